package io.aryl.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.speedup.SpeedupModel;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("Job")
class JobTest {
  private static Job.Builder valid() {
    return Job.builder("j1")
        .kind("bert")
        .submitTimeS(5)
        .gpusPerWorker(2)
        .workers(1, 4)
        .allowedGpuTypes("A100")
        .remainingS(1000)
        .attainedS(100)
        .sinceCheckpointS(30);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void refuses_a_bad_spec_naming_the_field_and_value(
      String scenario, UnaryOperator<Job.Builder> breakIt, String field, String value) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> breakIt.apply(valid()).build())
        .withMessageContaining(field)
        .withMessageContaining(value);
  }

  static Stream<Arguments> refuses_a_bad_spec_naming_the_field_and_value() {
    return Stream.of(
        bad("negative submit time", b -> b.submitTimeS(-1), "job(j1).submitTimeS", "-1.0"),
        bad("NaN submit time", b -> b.submitTimeS(Double.NaN), "job(j1).submitTimeS", "NaN"),
        bad(
            "infinite submit time",
            b -> b.submitTimeS(Double.POSITIVE_INFINITY),
            "job(j1).submitTimeS",
            "Infinity"),
        bad("zero GPUs per worker", b -> b.gpusPerWorker(0), "job(j1).gpusPerWorker", "0"),
        bad("negative GPUs per worker", b -> b.gpusPerWorker(-2), "job(j1).gpusPerWorker", "-2"),
        bad("zero min workers", b -> b.workers(0, 4), "job(j1).minWorkers", "0"),
        bad(
            "min above max",
            b -> b.workers(4, 2),
            "job(j1).minWorkers",
            "minWorkers=4, maxWorkers=2"),
        bad("negative remaining work", b -> b.remainingS(-0.5), "job(j1).remainingS", "-0.5"),
        bad("NaN remaining work", b -> b.remainingS(Double.NaN), "job(j1).remainingS", "NaN"),
        bad(
            "negative predicted work",
            b -> b.predictedRemainingS(-3),
            "job(j1).predictedRemainingS",
            "-3.0"),
        bad(
            "infinite predicted work",
            b -> b.predictedRemainingS(Double.POSITIVE_INFINITY),
            "job(j1).predictedRemainingS",
            "Infinity"),
        bad("negative attained work", b -> b.attainedS(-1), "job(j1).attainedS", "-1.0"),
        bad(
            "NaN time since checkpoint",
            b -> b.sinceCheckpointS(Double.NaN),
            "job(j1).sinceCheckpointS",
            "NaN"),
        bad(
            "blank allowed GPU type",
            b -> b.allowedGpuTypes(" "),
            "job(j1).allowedGpuTypes",
            "' '"),
        bad("no speedup model", b -> b.speedup(null), "job(j1).speedup", "null"));
  }

  private static Arguments bad(
      String scenario, UnaryOperator<Job.Builder> breakIt, String field, String value) {
    return Arguments.of(scenario, breakIt, field, value);
  }

  @ParameterizedTest(name = "id {0}")
  @MethodSource
  void refuses_a_blank_id(String id, String shown) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Job.builder(id).build())
        .withMessageContaining("job.id")
        .withMessageContaining(shown);
  }

  static Stream<Arguments> refuses_a_blank_id() {
    return Stream.of(
        Arguments.of(null, "null"), Arguments.of("", "''"), Arguments.of("  ", "'  '"));
  }

  @Test
  void refuses_a_null_set_of_allowed_types_naming_it() {
    assertThatThrownBy(() -> Job.builder("j1").allowedGpuTypes((Set<String>) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("job(j1).allowedGpuTypes");
  }

  @Test
  void without_a_prediction_predicts_the_truth() {
    Job job = Job.builder("j1").remainingS(777).build();

    assertThat(job.predictedRemainingS()).isEqualTo(777);
  }

  @Test
  void has_sensible_defaults() {
    Job job = Job.builder("j1").build();

    assertThat(job.kind()).isEmpty();
    assertThat(job.gpusPerWorker()).isEqualTo(1);
    assertThat(job.minWorkers()).isEqualTo(1);
    assertThat(job.maxWorkers()).isEqualTo(1);
    assertThat(job.isElastic()).isFalse();
    assertThat(job.allowedGpuTypes()).isEmpty();
    assertThat(job.speedup()).isEqualTo(SpeedupModel.linear());
  }

  @Test
  void a_null_kind_is_no_kind() {
    assertThat(Job.builder("j1").kind(null).build().kind()).isEmpty();
  }

  @Test
  void is_elastic_when_max_exceeds_min_and_its_base_gang_is_min_workers() {
    Job elastic = valid().workers(2, 8).gpusPerWorker(4).build();
    Job rigid = valid().workers(3, 3).build();

    assertThat(elastic.isElastic()).isTrue();
    assertThat(elastic.baseGpus()).isEqualTo(8);
    assertThat(rigid.isElastic()).isFalse();
  }

  @Test
  void allows_listed_types_only_or_any_type_when_none_listed() {
    Job picky = valid().allowedGpuTypes("A100", "H100").build();
    Job easy = valid().allowedGpuTypes(Set.of()).build();

    assertThat(picky.allows(GpuType.of("A100"))).isTrue();
    assertThat(picky.allows(GpuType.of("T4", 0.3))).isFalse();
    assertThat(easy.allows(GpuType.of("T4", 0.3))).isTrue();
  }

  @Test
  void exposes_allowed_types_sorted_and_unmodifiable() {
    Job job = valid().allowedGpuTypes("V100", "A100").build();

    assertThat(job.allowedGpuTypes()).containsExactly("A100", "V100");
    assertThatThrownBy(() -> job.allowedGpuTypes().add("T4"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @ParameterizedTest(name = "{0} workers -> {1}s")
  @MethodSource
  void predicts_runtime_at_a_worker_count_from_its_speedup(int workers, double expectedS) {
    Job job = valid().workers(1, 8).remainingS(800).speedup(SpeedupModel.linear()).build();

    assertThat(job.predictedRuntimeAt(workers)).isCloseTo(expectedS, within(1e-9));
  }

  static Stream<Arguments> predicts_runtime_at_a_worker_count_from_its_speedup() {
    return Stream.of(Arguments.of(1, 800.0), Arguments.of(2, 400.0), Arguments.of(8, 100.0));
  }

  @Test
  void runtime_is_relative_to_min_workers_because_work_is_in_base_seconds() {
    Job job = valid().workers(2, 8).remainingS(800).speedup(SpeedupModel.linear()).build();

    assertThat(job.predictedRuntimeAt(2)).isCloseTo(800, within(1e-9));
    assertThat(job.predictedRuntimeAt(4)).isCloseTo(400, within(1e-9));
  }

  @Test
  void round_trips_through_its_builder() {
    Job job = valid().predictedRemainingS(1234).build();

    assertThat(job.toBuilder().build()).isEqualTo(job).hasSameHashCodeAs(job);
  }

  @Test
  void differs_when_any_field_differs() {
    Job job = valid().build();

    assertThat(job.toBuilder().kind("gpt").build()).isNotEqualTo(job);
    assertThat(job.toBuilder().attainedS(101).build()).isNotEqualTo(job);
    assertThat(job.toBuilder().sinceCheckpointS(31).build()).isNotEqualTo(job);
    assertThat(job.toBuilder().allowedGpuTypes("H100").build()).isNotEqualTo(job);
  }

  @Test
  void with_progress_is_the_job_its_builder_makes_with_that_progress() {
    Job job =
        Job.builder("j")
            .kind("bert")
            .tenant("team-a")
            .submitTimeS(5)
            .gpusPerWorker(2)
            .workers(1, 4)
            .allowedGpuTypes("A100")
            .remainingS(100)
            .predictedRemainingS(90)
            .attainedS(10)
            .sinceCheckpointS(3)
            .build();

    Job later = job.withProgress(60, 50, 50, 7);

    assertThat(later)
        .isEqualTo(
            job.toBuilder()
                .remainingS(60)
                .predictedRemainingS(50)
                .attainedS(50)
                .sinceCheckpointS(7)
                .build());
    assertThat(later.hashCode())
        .isEqualTo(job.toBuilder().remainingS(60).predictedRemainingS(50).build().hashCode());
    assertThatIllegalArgumentException()
        .isThrownBy(() -> job.withProgress(-1, 50, 50, 7))
        .withMessageContaining("job(j).remainingS");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> job.withProgress(60, 50, 50, Double.NaN))
        .withMessageContaining("job(j).sinceCheckpointS");
  }
}
