package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("Metrics")
class MetricsTest {
  private static final double[] FOUR = {10, 20, 30, 40};

  private static PolicyResult result(
      List<JobRecord> jobs,
      int trainingGpus,
      int inferenceGpus,
      double windowS,
      double trainingBusyGpuS,
      double loanedBusyGpuS,
      double inferenceBusyGpuS) {
    return new PolicyResult(
        "p",
        jobs,
        List.of(),
        windowS,
        trainingGpus,
        inferenceGpus,
        trainingBusyGpuS,
        loanedBusyGpuS,
        inferenceBusyGpuS,
        7_200,
        0,
        3,
        5,
        1_800,
        42,
        2,
        1.5);
  }

  private static JobRecord job(double submitS, double firstStartS, double endS) {
    return new JobRecord("j", submitS, firstStartS, endS, 1, false, 1);
  }

  @ParameterizedTest(name = "p{0} of 10,20,30,40 is {1}")
  @CsvSource({
    "0, 10", "1, 10", "25, 10", "26, 20", "50, 20", "51, 30", "75, 30", "95, 40", "100, 40"
  })
  void percentile_is_nearest_rank(double p, double expected) {
    assertThat(Metrics.percentile(FOUR, p)).isEqualTo(expected);
  }

  @Test
  void percentile_of_twenty_values_picks_the_ceiling_rank() {
    double[] values = new double[20];
    for (int i = 0; i < values.length; i++) {
      values[i] = i + 1;
    }
    // ceil(0.95 * 20) = 19th value; ceil(0.5 * 20) = 10th; ceil(0.99 * 20) = 20th.
    assertThat(Metrics.percentile(values, 95)).isEqualTo(19);
    assertThat(Metrics.percentile(values, 50)).isEqualTo(10);
    assertThat(Metrics.percentile(values, 99)).isEqualTo(20);
    assertThat(Metrics.percentile(new double[] {7}, 95)).isEqualTo(7);
  }

  @Test
  void mean_and_percentile_of_nothing_are_zero() {
    assertThat(Metrics.mean(new double[0])).isZero();
    assertThat(Metrics.percentile(new double[0], 95)).isZero();
    assertThat(Metrics.mean(FOUR)).isEqualTo(25);
  }

  @Test
  void queue_jct_and_makespan_come_from_the_finished_jobs() {
    // Queues 100, 300, 600, 1800; JCTs 1000, 2000, 3000, 3600.
    List<JobRecord> jobs =
        List.of(job(0, 100, 1000), job(10, 310, 2010), job(20, 620, 3020), job(30, 1830, 3630));

    Map<String, Object> m = Metrics.of(result(jobs, 8, 4, 10_000, 0, 0, 0));

    assertThat(m)
        .contains(
            entry("jobs", 4),
            entry("unfinished_jobs", 2),
            entry("avg_queue_s", 700.0),
            entry("p50_queue_s", 300.0),
            entry("p95_queue_s", 1800.0),
            entry("avg_jct_s", 2400.0),
            entry("p95_jct_s", 3600.0),
            entry("makespan_s", 3630.0));
  }

  @Test
  void utilizations_are_busy_gpu_seconds_over_capacity() {
    // Capacity: 8 * 100 = 800 training, 4 * 100 = 400 inference GPU-seconds.
    Map<String, Object> m = Metrics.of(result(List.of(), 8, 4, 100, 400, 100, 200));

    assertThat((double) m.get("gpu_util")).isCloseTo(700.0 / 1200, within(1e-12));
    assertThat((double) m.get("training_util")).isCloseTo(0.5, within(1e-12));
    // Loaned GPUs belong to the inference pool: their training work counts towards its use.
    assertThat((double) m.get("inference_util")).isCloseTo(0.75, within(1e-12));
    assertThat(m)
        .contains(
            entry("loaned_gpu_hours", 2.0),
            entry("preemptions", 3L),
            entry("scale_ins", 5L),
            entry("lost_gpu_hours", 0.5),
            entry("inference_shortfall_server_s", 42.0),
            entry("sim_wall_s", 1.5));
  }

  @Test
  void an_empty_run_gives_zeros_not_nan() {
    PolicyResult empty =
        new PolicyResult("p", List.of(), List.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    Map<String, Object> m = Metrics.of(empty);

    assertThat(m.values()).allSatisfy(v -> assertThat(((Number) v).doubleValue()).isZero());
  }

  @Test
  void reports_every_field_in_a_stable_order() {
    assertThat(Metrics.of(result(List.of(job(0, 1, 2)), 1, 1, 1, 0, 0, 0)).keySet())
        .containsExactly(
            "jobs",
            "unfinished_jobs",
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
            "jct_capacity_bound_s",
            "jct_vs_capacity_bound",
            "gpu_s_per_work",
            "starved_jobs",
            "worst_slowdown",
            "sim_wall_s");
  }

  @Test
  @DisplayName("the share of time inference was short is its seconds short over the window")
  void inferenceShortShare() {
    PolicyResult r =
        new PolicyResult(
            "p", List.of(), List.of(), 1000, 1, 8, 0, 0, 0, 0, 0, 0, 0, 0, 182, 0, 0, 0, 0, 91);

    assertThat(Metrics.of(r))
        .contains(entry("inference_shortfall_server_s", 182.0))
        .containsEntry("inference_short_share", 0.091);
  }

  @Test
  @DisplayName("the capacity-aware bound is the larger of the per-job bound and the SRPT one")
  void capacityBoundIsTheLargerBound() {
    List<JobRecord> jobs =
        List.of(
            new JobRecord("a", 0, 0, 10, 1, false, 4), new JobRecord("b", 0, 0, 20, 1, false, 6));
    PolicyResult tight =
        new PolicyResult("p", jobs, List.of(), 100, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12.5);
    assertThat(Metrics.of(tight))
        .contains(
            entry("jct_bound_s", 5.0),
            entry("jct_capacity_bound_s", 12.5),
            entry("jct_vs_capacity_bound", 15 / 12.5));
    PolicyResult loose =
        new PolicyResult("p", jobs, List.of(), 100, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2);
    assertThat(Metrics.of(loose))
        .contains(entry("jct_capacity_bound_s", 5.0), entry("jct_vs_capacity_bound", 3.0));
  }
}
