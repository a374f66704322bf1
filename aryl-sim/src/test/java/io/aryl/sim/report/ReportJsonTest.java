package io.aryl.sim.report;

import static io.aryl.sim.report.Fixtures.aryl;
import static io.aryl.sim.report.Fixtures.fifo;
import static io.aryl.sim.report.Fixtures.instant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.sim.engine.Metrics;
import io.aryl.sim.engine.PolicyResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("ReportJson")
class ReportJsonTest {
  private static final List<String> REQUIRED =
      List.of(
          "jobs",
          "avg_queue_s",
          "p50_queue_s",
          "p95_queue_s",
          "p99_queue_s",
          "max_queue_s",
          "avg_jct_s",
          "p95_jct_s",
          "makespan_s",
          "gpu_util",
          "training_util",
          "inference_util",
          "loaned_gpu_hours",
          "preemptions",
          "scale_ins",
          "lost_gpu_hours",
          "inference_shortfall_server_s",
          "inference_short_share",
          "jct_bound_s",
          "jct_vs_bound",
          "gpu_s_per_work",
          "starved_jobs",
          "worst_slowdown",
          "sim_wall_s");

  @TempDir Path dir;

  private JsonNode writeAndRead(Map<String, Object> config, List<PolicyResult> results)
      throws Exception {
    Path file = dir.resolve("out/report.json");
    ReportJson.write(file, config, results);
    return ReportJson.read(file);
  }

  @Test
  void lists_the_policies_in_the_given_order_with_every_field_as_a_number() throws Exception {
    JsonNode policies = writeAndRead(Map.of(), List.of(fifo(), aryl(), instant())).get("policies");

    assertThat(policies.fieldNames()).toIterable().containsExactly("fifo", "aryl", "instant");
    for (JsonNode policy : policies) {
      assertThat(policy.fieldNames()).toIterable().containsAll(REQUIRED);
      assertThat(policy).allSatisfy(value -> assertThat(value.isNumber()).isTrue());
    }
  }

  @Test
  void holds_the_metrics_computed_by_hand() throws Exception {
    JsonNode policies = writeAndRead(Map.of(), List.of(fifo(), aryl())).get("policies");

    JsonNode fifo = policies.get("fifo");
    assertThat(fifo.get("jobs").asInt()).isEqualTo(4);
    assertThat(fifo.get("jobs").isIntegralNumber()).isTrue();
    assertThat(fifo.get("unfinished_jobs").asInt()).isEqualTo(1);
    assertThat(fifo.get("avg_queue_s").asDouble()).isEqualTo(700);
    assertThat(fifo.get("p50_queue_s").asDouble()).isEqualTo(300);
    assertThat(fifo.get("p95_queue_s").asDouble()).isEqualTo(1800);
    assertThat(fifo.get("avg_jct_s").asDouble()).isEqualTo(2400);
    assertThat(fifo.get("p95_jct_s").asDouble()).isEqualTo(3600);
    assertThat(fifo.get("makespan_s").asDouble()).isEqualTo(3630);
    assertThat(fifo.get("gpu_util").asDouble()).isEqualTo(0.5);
    assertThat(fifo.get("sim_wall_s").asDouble()).isEqualTo(0.25);

    JsonNode aryl = policies.get("aryl");
    assertThat(aryl.get("avg_queue_s").asDouble()).isEqualTo(75);
    assertThat(aryl.get("p50_queue_s").asDouble()).isEqualTo(0);
    assertThat(aryl.get("p95_queue_s").asDouble()).isEqualTo(240);
    assertThat(aryl.get("avg_jct_s").asDouble()).isEqualTo(1600);
    assertThat(aryl.get("p95_jct_s").asDouble()).isEqualTo(2800);
    assertThat(aryl.get("makespan_s").asDouble()).isEqualTo(2830);
    assertThat(aryl.get("gpu_util").asDouble()).isEqualTo(0.65);
    assertThat(aryl.get("training_util").asDouble()).isEqualTo(0.6);
    assertThat(aryl.get("inference_util").asDouble()).isEqualTo(0.75);
    assertThat(aryl.get("loaned_gpu_hours").asDouble()).isEqualTo(2);
    assertThat(aryl.get("preemptions").asLong()).isEqualTo(3);
    assertThat(aryl.get("scale_ins").asLong()).isEqualTo(5);
    assertThat(aryl.get("lost_gpu_hours").asDouble()).isEqualTo(0.5);
    assertThat(aryl.get("inference_shortfall_server_s").asDouble()).isEqualTo(42);
  }

  @Test
  void agrees_with_metrics_for_every_field() throws Exception {
    List<PolicyResult> results = List.of(fifo(), aryl(), instant());
    JsonNode policies = writeAndRead(Map.of(), results).get("policies");

    for (PolicyResult r : results) {
      Map<String, Object> expected = Metrics.of(r);
      JsonNode actual = policies.get(r.policy());
      assertThat(actual.fieldNames()).toIterable().containsExactlyElementsOf(expected.keySet());
      expected.forEach(
          (name, value) ->
              assertThat(actual.get(name).asDouble())
                  .as("%s.%s", r.policy(), name)
                  .isCloseTo(
                      ((Number) value).doubleValue(),
                      within(1e-4 * Math.max(1, Math.abs(((Number) value).doubleValue())))));
    }
  }

  @Test
  void measures_the_queuing_removed_against_a_policy_named_baseline() throws Exception {
    PolicyResult f = Fixtures.fifo();
    PolicyResult baseline =
        new PolicyResult(
            "baseline",
            f.jobs(),
            f.samples(),
            f.windowS(),
            f.trainingGpus(),
            f.inferenceGpus(),
            f.trainingBusyGpuS(),
            f.loanedBusyGpuS(),
            f.inferenceBusyGpuS(),
            f.loanedGpuS(),
            f.workGpuS(),
            f.preemptions(),
            f.scaleIns(),
            f.lostGpuS(),
            f.inferenceShortfallServerS(),
            f.unfinishedJobs(),
            f.simWallS());
    JsonNode policies = writeAndRead(Map.of(), List.of(baseline, Fixtures.aryl())).get("policies");

    // Total queuing: baseline 100 + 300 + 600 + 1800 = 2800 s, aryl 0 + 0 + 60 + 240 = 300 s: 1 -
    // 300/2800 removed.
    assertThat(policies.get("aryl").get("queue_removed_pct").asDouble())
        .isCloseTo(89.2857, within(1e-3));
    assertThat(policies.get("baseline").get("queue_removed_pct").asDouble()).isZero();
    // Without a baseline the field is absent rather than made up.
    assertThat(
            writeAndRead(Map.of(), List.of(Fixtures.aryl()))
                .get("policies")
                .get("aryl")
                .has("queue_removed_pct"))
        .isFalse();
  }

  @Test
  void round_trips_the_config() throws Exception {
    Map<String, Object> cluster = new LinkedHashMap<>();
    cluster.put("training_gpus", 256);
    cluster.put("inference_gpus", 128);
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("trace", "philly");
    config.put("seed", 7);
    config.put("window_days", 30.5);
    config.put("elastic", true);
    config.put("policies", List.of("fifo", "aryl"));
    config.put("cluster", cluster);

    JsonNode root = writeAndRead(config, List.of(fifo()));

    assertThat(
            new ObjectMapper()
                .convertValue(root.get("config"), new TypeReference<Map<String, Object>>() {}))
        .isEqualTo(config);
    assertThat(root.get("config").fieldNames())
        .toIterable()
        .containsExactly("trace", "seed", "window_days", "elastic", "policies", "cluster");
  }

  @Test
  void is_pretty_printed() throws Exception {
    Path file = dir.resolve("report.json");
    ReportJson.write(file, Map.of("seed", 1), List.of(fifo()));

    assertThat(Files.readString(file))
        .contains("\n  \"config\" : {")
        .contains("\n  \"policies\" : {");
  }

  @Test
  void rounds_doubles_without_losing_small_values() {
    assertThat(ReportJson.round(1 / 3.0)).isEqualTo(0.3333);
    assertThat(ReportJson.round(1234.567891)).isEqualTo(1234.5679);
    assertThat(ReportJson.round(0.000123456)).isEqualTo(0.0001235);
    assertThat(ReportJson.round(-2.5e-7)).isEqualTo(-2.5e-7);
    assertThat(ReportJson.round(0)).isZero();
  }

  @Test
  void writes_a_non_finite_value_as_null() throws Exception {
    PolicyResult r = fifo();
    PolicyResult nan =
        new PolicyResult(
            r.policy(),
            r.jobs(),
            r.samples(),
            r.windowS(),
            r.trainingGpus(),
            r.inferenceGpus(),
            r.trainingBusyGpuS(),
            r.loanedBusyGpuS(),
            r.inferenceBusyGpuS(),
            r.loanedGpuS(),
            r.workGpuS(),
            r.preemptions(),
            r.scaleIns(),
            r.lostGpuS(),
            r.inferenceShortfallServerS(),
            r.unfinishedJobs(),
            Double.NaN);

    JsonNode policy = writeAndRead(Map.of(), List.of(nan)).get("policies").get("fifo");

    assertThat(policy.get("sim_wall_s").isNull()).isTrue();
    assertThat(policy.get("avg_queue_s").asDouble()).isEqualTo(700);
  }

  @Test
  void refuses_two_results_for_one_policy() {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () -> ReportJson.write(dir.resolve("r.json"), Map.of(), List.of(fifo(), fifo())))
        .withMessageContaining("fifo");
  }
}
