package io.aryl.sim.baselines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import io.aryl.core.speedup.MeasuredSpeedup;
import io.aryl.core.speedup.SpeedupModel;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "GoodputPlanner: GPUs to the power mean of each job's own speedup, restarts priced, one GPU"
        + " speed per job")
class GoodputPlannerTest {
  private static final GpuType FAST = GpuType.of("A100");
  private static final GpuType SLOW = GpuType.of("T4", 0.5);
  private static final double DELAY_S = 30;

  /** Gains nothing from a second worker. */
  private static final SpeedupModel FLAT = new MeasuredSpeedup("flat", Map.of(1, 1.0, 2, 1.0));

  /** Gains a little: 1, 1.2, 1.3, 1.35. */
  private static final SpeedupModel POOR =
      new MeasuredSpeedup("poor", Map.of(1, 1.0, 2, 1.2, 3, 1.3, 4, 1.35));

  private static GoodputPlanner planner() {
    return new GoodputPlanner(GoodputPlanner.POLLUX_P, DELAY_S);
  }

  private static Job job(String id, int min, int max, SpeedupModel speedup) {
    return job(id, min, max, speedup, 0);
  }

  private static Job job(String id, int min, int max, SpeedupModel speedup, double submitS) {
    return Job.builder(id)
        .submitTimeS(submitS)
        .workers(min, max)
        .remainingS(10_000)
        .predictedRemainingS(10_000)
        .speedup(speedup)
        .build();
  }

  private static List<Server> fast(int gpus) {
    return List.of(Server.training("f0", FAST, gpus));
  }

  private static Plan plan(List<Server> servers, List<Job> jobs, Map<String, Allocation> now) {
    return planner().plan(ClusterState.of(86_400, servers, jobs, now));
  }

  /** Two waiting jobs, 1-GPU workers from 1 to 4, on one server: who ends with how many. */
  static Stream<Arguments> nextGpu() {
    SpeedupModel linear = SpeedupModel.linear();
    return Stream.of(
        Arguments.of(
            "the next GPU goes to the job whose own curve gains most: linear over n^0.5"
                + " (1 - 1/2 = 0.5 against 1 - 1/1.41 = 0.29)",
            3,
            job("a", 1, 4, linear),
            job("b", 1, 4, SpeedupModel.powerLaw(0.5)),
            2,
            1),
        Arguments.of(
            "the next GPU goes to the job whose own curve gains most: n^0.8 over a measured knee"
                + " (0.43 against 0.17)",
            3,
            job("a", 1, 4, POOR),
            job("b", 1, 4, SpeedupModel.powerLaw(0.8)),
            1,
            2),
        Arguments.of(
            "a job with a flat curve is not widened, even with GPUs left over",
            4,
            job("a", 1, 2, FLAT),
            job("b", 1, 1, linear),
            1,
            1),
        Arguments.of(
            "with too few GPUs, both jobs run before either widens (p = -1: a job left out costs"
                + " a thousand)",
            2,
            job("a", 1, 4, linear),
            job("b", 1, 4, POOR),
            1,
            1),
        Arguments.of(
            "the fairness of p = -1: n^0.5 gets its second GPU before linear gets its third"
                + " (1 - 1/1.41 = 0.29 against 1/2 - 1/3 = 0.17)",
            5,
            job("a", 1, 4, linear),
            job("b", 1, 4, SpeedupModel.powerLaw(0.5)),
            3,
            2));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nextGpu")
  void theNextGpuGoesWhereThePowerMeanGainsMost(
      String rule, int gpus, Job a, Job b, int aWorkers, int bWorkers) {
    Plan plan = plan(fast(gpus), List.of(a, b), Map.of());
    assertThat(plan.target("a").totalWorkers()).as(rule).isEqualTo(aWorkers);
    assertThat(plan.target("b").totalWorkers()).as(rule).isEqualTo(bWorkers);
  }

  @Test
  @DisplayName("with p = 1 (the sum of speedups, no fairness) the linear job takes every spare GPU")
  void utilitarian() {
    Plan plan =
        new GoodputPlanner(1, DELAY_S)
            .plan(
                ClusterState.of(
                    0,
                    fast(5),
                    List.of(
                        job("a", 1, 4, SpeedupModel.linear()),
                        job("b", 1, 4, SpeedupModel.powerLaw(0.5))),
                    Map.of()));
    assertThat(plan.target("a").totalWorkers()).isEqualTo(4);
    assertThat(plan.target("b").totalWorkers()).isEqualTo(1);
  }

  /**
   * A running job at 2 of its 1..4 linear workers, one GPU free: it grows to 3 only when its
   * speedup of 3, times Pollux's restart factor {@code age / (age + 30 s)}, beats the 2 it has.
   */
  static Stream<Arguments> restart() {
    return Stream.of(
        Arguments.of("a day old: factor 0.9997, 3 x 0.9997 > 2: it grows", 86_400.0, 3),
        Arguments.of("90 s old: factor 0.75, 3 x 0.75 = 2.25 > 2: it grows", 90.0, 3),
        Arguments.of(
            "30 s old: factor 0.5, 3 x 0.5 = 1.5 < 2: the change does not pay its restart",
            30.0,
            2),
        Arguments.of("just submitted: factor 0, it stays", 0.0, 2));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("restart")
  void aReAllocationThatDoesNotPayItsRestartIsNotMade(String rule, double ageS, int workers) {
    Job r = job("r", 1, 4, SpeedupModel.linear(), 1000);
    Plan plan =
        planner()
            .plan(
                ClusterState.of(
                    1000 + ageS, fast(3), List.of(r), Map.of("r", Allocation.of("f0", 2))));
    assertThat(plan.target("r").totalWorkers()).as(rule).isEqualTo(workers);
  }

  @Test
  @DisplayName("Pollux's restart factor: (age - restarts x delay) / (age + delay), never below 0")
  void restartFactor() {
    GoodputPlanner p = planner();
    assertThat(p.restartFactor(90, 0)).isCloseTo(0.75, within(1e-12));
    assertThat(p.restartFactor(90, 1)).isCloseTo(0.5, within(1e-12));
    assertThat(p.restartFactor(90, 4)).isZero();
  }

  @Test
  @DisplayName("a change counts as a restart: the same job, changed again soon, pays more")
  void restartsAccumulate() {
    GoodputPlanner p = planner();
    Job r = job("r", 1, 4, SpeedupModel.linear(), 0);
    // 150 s old, 2 workers, 1 GPU free: factor 150/180 = 0.83, 3 x 0.83 = 2.5 > 2: grows.
    Plan first =
        p.plan(ClusterState.of(150, fast(3), List.of(r), Map.of("r", Allocation.of("f0", 2))));
    assertThat(first.target("r").totalWorkers()).isEqualTo(3);
    // A GPU more at 160 s: one restart, factor (160 - 30) / 190 = 0.68, 4 x 0.68 = 2.7 < 3: stays.
    Plan second =
        p.plan(ClusterState.of(160, fast(4), List.of(r), Map.of("r", Allocation.of("f0", 3))));
    assertThat(second.target("r").totalWorkers()).isEqualTo(3);
    // Without the restart on record it would grow: (160 / 190) x 4 = 3.4 > 3.
    Plan fresh =
        planner()
            .plan(ClusterState.of(160, fast(4), List.of(r), Map.of("r", Allocation.of("f0", 3))));
    assertThat(fresh.target("r").totalWorkers()).isEqualTo(4);
  }

  @Test
  @DisplayName(
      "a slow GPU goes to the job that loses least on it: the one that makes up for speed with"
          + " width takes the two slow GPUs, the flat one the fast GPU")
  void aSlowGpuGoesToTheJobThatLosesLeastOnIt() {
    List<Server> servers = List.of(Server.training("f0", FAST, 1), Server.loaned("s0", SLOW, 2));
    // By id, "a" (linear) would be served first; it loses nothing on two slow GPUs (0.5 x 2 = 1),
    // while the flat job would run at 0.5 there.
    Job linear = job("a", 1, 2, SpeedupModel.linear());
    Job flat = job("b", 1, 2, FLAT);
    Plan plan = plan(servers, List.of(linear, flat), Map.of());
    assertThat(plan.target("b")).isEqualTo(Allocation.of("f0", 1));
    assertThat(plan.target("a")).isEqualTo(Allocation.of("s0", 2));
  }

  @Test
  @DisplayName("a job runs on GPUs of one speed: it does not widen onto slower ones")
  void oneSpeedPerJob() {
    List<Server> servers = List.of(Server.training("f0", FAST, 2), Server.loaned("s0", SLOW, 2));
    Plan plan = plan(servers, List.of(job("a", 1, 4, SpeedupModel.linear())), Map.of());
    assertThat(plan.target("a")).isEqualTo(Allocation.of("f0", 2));
  }

  @Test
  @DisplayName(
      "a running job keeps its minimum: a waiting job starts on GPUs others hold beyond it")
  void noPreemption() {
    Job r = job("r", 2, 4, SpeedupModel.linear());
    Job q = job("q", 2, 2, SpeedupModel.linear());
    Plan plan = plan(fast(4), List.of(r, q), Map.of("r", Allocation.of("f0", 4)));
    assertThat(plan.started()).containsExactly("q");
    assertThat(plan.target("r").totalWorkers()).isEqualTo(2);
    assertThat(plan.preempted()).isEmpty();
  }

  @Test
  @DisplayName("p must be at most 1 and the delay not negative, each named with its value")
  void badParameters() {
    assertThatThrownBy(() -> new GoodputPlanner(2, 30))
        .hasMessageContaining("p must be <= 1, was 2");
    assertThatThrownBy(() -> new GoodputPlanner(-1, -5))
        .hasMessageContaining("delayS must be >= 0, was -5");
  }
}
