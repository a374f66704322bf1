package io.aryl.sim.baselines;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import io.aryl.core.speedup.SpeedupModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "AfsPlanner: each next GPU to the job whose throughput gain per remaining work is highest")
class AfsPlannerTest {
  private static final GpuType A100 = GpuType.of("A100");

  private static Job job(String id, int min, int max, double remainingS, SpeedupModel speedup) {
    return Job.builder(id)
        .workers(min, max)
        .remainingS(remainingS)
        .predictedRemainingS(remainingS)
        .speedup(speedup)
        .build();
  }

  private static List<Server> gpus(int n) {
    return List.of(Server.training("s0", A100, n));
  }

  /**
   * Two jobs, each a 1-GPU worker from 1 up to 4 workers, queued on one server: who ends with how
   * many workers.
   */
  static Stream<Arguments> twoJobs() {
    SpeedupModel linear = SpeedupModel.linear();
    return Stream.of(
        Arguments.of(
            "linear scaling: the shorter job takes the spare GPUs (shortest remaining first)",
            3,
            job("a", 1, 4, 10_000, linear),
            job("b", 1, 4, 1_000, linear),
            1,
            2),
        Arguments.of(
            "equal remaining work: the job that scales better takes the spare GPU",
            3,
            job("a", 1, 4, 5_000, linear),
            job("b", 1, 4, 5_000, SpeedupModel.powerLaw(0.5)),
            2,
            1),
        Arguments.of(
            "efficiency over shortness: a short job that scales badly yields to a longer one that"
                + " scales well (gain 0.149 / 1000 s against 1 / 5000 s)",
            3,
            job("a", 1, 4, 1_000, SpeedupModel.powerLaw(0.2)),
            job("b", 1, 4, 5_000, linear),
            1,
            2),
        Arguments.of(
            "but shortness over efficiency when the gap is wide enough (0.149 / 1000 s against"
                + " 1 / 10000 s)",
            3,
            job("a", 1, 4, 1_000, SpeedupModel.powerLaw(0.2)),
            job("b", 1, 4, 10_000, linear),
            2,
            1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("twoJobs")
  void theNextGpuGoesToTheHigherGainPerRemainingWork(
      String rule, int gpus, Job a, Job b, int aWorkers, int bWorkers) {
    Plan plan = new AfsPlanner().plan(ClusterState.of(0, gpus(gpus), List.of(a, b), Map.of()));
    assertThat(plan.target("a").totalWorkers()).as(rule).isEqualTo(aWorkers);
    assertThat(plan.target("b").totalWorkers()).as(rule).isEqualTo(bWorkers);
  }

  @Test
  @DisplayName("unlike Optimus, which gives the spare GPUs of two linear jobs to the longer one")
  void unlikeOptimus() {
    ClusterState s =
        ClusterState.of(
            0,
            gpus(4),
            List.of(
                job("a", 1, 4, 10_000, SpeedupModel.linear()),
                job("b", 1, 4, 1_000, SpeedupModel.linear())),
            Map.of());
    Plan afs = new AfsPlanner().plan(s);
    Plan optimus = new OptimusPlanner().plan(s);
    assertThat(afs.target("b").totalWorkers()).isEqualTo(3);
    assertThat(afs.target("a").totalWorkers()).isEqualTo(1);
    assertThat(optimus.target("a").totalWorkers()).isEqualTo(3);
  }

  @Test
  @DisplayName(
      "a queued job's start competes with extra workers: a short job takes a GPU from them")
  void aStartTakesAGpuFromAnotherJobsExtraWorkers() {
    Job running = job("r", 1, 4, 10_000, SpeedupModel.linear());
    Job queued = job("q", 1, 1, 1_000, SpeedupModel.linear());
    Plan plan =
        new AfsPlanner()
            .plan(
                ClusterState.of(
                    0, gpus(4), List.of(running, queued), Map.of("r", Allocation.of("s0", 4))));
    assertThat(plan.started()).containsExactly("q");
    assertThat(plan.shrunk()).containsExactly("r");
    assertThat(plan.target("r").totalWorkers()).isEqualTo(3);
    assertThat(plan.preempted()).isEmpty();
  }

  @Test
  @DisplayName("every job runs: a long queued job gets its minimum before anyone's extra worker")
  void everyQueuedJobThatFitsGetsItsMinimumFirst() {
    Job running = job("r", 1, 2, 1_000, SpeedupModel.linear());
    Job queued = job("q", 1, 1, 100_000, SpeedupModel.linear());
    ClusterState s =
        ClusterState.of(0, gpus(2), List.of(running, queued), Map.of("r", Allocation.of("s0", 1)));
    Plan plan = new AfsPlanner().plan(s);
    assertThat(plan.target("q").totalWorkers()).isEqualTo(1);
    assertThat(plan.target("r").totalWorkers()).isEqualTo(1);
  }

  @Test
  @DisplayName("when not every minimum fits, the least remaining GPU-time starts")
  void whenMinimaDoNotAllFitTheLeastRemainingGpuTimeStarts() {
    Job wide =
        Job.builder("wide").workers(2, 2).remainingS(1_000).predictedRemainingS(1_000).build();
    Job longer = job("long", 1, 1, 1_500, SpeedupModel.linear());
    ClusterState s = ClusterState.of(0, gpus(2), List.of(wide, longer), Map.of());
    // wide: 2 GPUs x 1000 s = 2000 GPU-s; long: 1 x 1500 = 1500 GPU-s.
    Plan plan = new AfsPlanner().plan(s);
    assertThat(plan.started()).containsExactly("long");
  }

  @Test
  @DisplayName("running jobs keep their minimum gang: AFS here never preempts")
  void runningJobsKeepTheirMinimum() {
    Job running = job("r", 2, 2, 1_000_000, SpeedupModel.linear());
    Job queued = job("q", 1, 1, 10, SpeedupModel.linear());
    Plan plan =
        new AfsPlanner()
            .plan(
                ClusterState.of(
                    0, gpus(2), List.of(running, queued), Map.of("r", Allocation.of("s0", 2))));
    assertThat(plan.preempted()).isEmpty();
    assertThat(plan.target("q").isEmpty()).isTrue();
  }

  @Test
  @DisplayName("the values: a start is 1 / (remaining x base GPUs), a worker its throughput gain")
  void values() {
    Job gang =
        Job.builder("g")
            .gpusPerWorker(2)
            .workers(2, 4)
            .remainingS(1_000)
            .predictedRemainingS(1_000)
            .build();
    assertThat(AfsPlanner.startValue(gang)).isEqualTo(1.0 / (1_000 * 4));
    // Linear: one more worker at 2 adds half the minimum's throughput, over its 2 GPUs.
    assertThat(AfsPlanner.extraValue(gang, 2)).isEqualTo(0.5 / 2 / 1_000);
    // The planner reads the prediction, not the truth.
    Job mispredicted = gang.toBuilder().remainingS(10).build();
    assertThat(AfsPlanner.extraValue(mispredicted, 2)).isEqualTo(AfsPlanner.extraValue(gang, 2));
  }

  @Test
  @DisplayName("a saturated round hands every running job back its own workers")
  void aSaturatedRoundChangesNothing() {
    List<Job> jobs = new ArrayList<>();
    jobs.add(job("a", 1, 3, 5_000, SpeedupModel.powerLaw(0.8)));
    jobs.add(job("b", 1, 5, 1_000, SpeedupModel.powerLaw(0.8)));
    // Both at their widest, on every GPU.
    ClusterState s =
        ClusterState.of(
            0,
            List.of(Server.training("s0", A100, 4), Server.training("s1", A100, 4)),
            jobs,
            Map.of("a", Allocation.of("s0", 3), "b", Allocation.of(Map.of("s0", 1, "s1", 4))));
    AfsPlanner planner = new AfsPlanner();
    assertThat(planner.changesNothingWhenSaturated()).isTrue();
    assertThat(planner.plan(s).changes()).isEmpty();
  }
}
