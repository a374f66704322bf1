package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.admission.JobOrder;
import io.aryl.core.elastic.ElasticValue;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import io.aryl.core.speedup.SpeedupModel;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** One round of the Aryl policy, scenario by scenario. */
class RoundPlannerTest {
  static final GpuType A100 = GpuType.of("A100");
  static final GpuType T4 = GpuType.of("T4", 0.5);
  static final double NOW = 10_000;

  final RoundPlanner aryl = new RoundPlanner(PolicyConfig.defaults());

  static Job.Builder job(String id, int gpusPerWorker, int min, int max, double runtimeS) {
    return Job.builder(id)
        .gpusPerWorker(gpusPerWorker)
        .workers(min, max)
        .remainingS(runtimeS)
        .submitTimeS(NOW - 100);
  }

  static ClusterState state(List<Server> servers, List<Job> jobs, Map<String, Allocation> running) {
    return ClusterState.of(NOW, servers, jobs, running);
  }

  @Test
  @DisplayName("an elastic job grows to its maximum on an idle cluster")
  void growsToMaxOnIdleCluster() {
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 8), Server.training("t2", A100, 8)),
            List.of(job("e", 1, 2, 12, 3600).build()),
            Map.of());
    Plan plan = aryl.plan(s);
    assertThat(plan.started()).containsExactly("e");
    assertThat(plan.target("e").totalWorkers()).isEqualTo(12);
  }

  @Test
  @DisplayName("a gang that does not fit gets nothing, and a smaller job behind it starts")
  void gangAllOrNothing() {
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 8)),
            List.of(job("big", 4, 3, 3, 60).build(), job("small", 2, 2, 2, 3600).build()),
            Map.of());
    Plan plan = aryl.plan(s);
    assertThat(plan.targets()).containsOnlyKeys("small");
  }

  @Test
  @DisplayName("base demand beats elastic extras: a queued job shrinks a running elastic job")
  void queuedJobShrinksElastic() {
    Job elastic = job("e", 1, 2, 8, 36_000).build();
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 8)),
            List.of(elastic, job("q", 2, 2, 2, 3600).build()),
            Map.of("e", Allocation.of("t1", 8)));
    Plan plan = aryl.plan(s);
    assertThat(plan.changes())
        .containsEntry("e", Plan.Change.SHRINK)
        .containsEntry("q", Plan.Change.START);
    assertThat(plan.target("e").totalWorkers()).isEqualTo(4);
    assertThat(plan.target("q").totalWorkers()).isEqualTo(2);
  }

  @Test
  @DisplayName("admission takes idle GPUs before shrinking anyone")
  void idleBeforeShrink() {
    Job elastic = job("e", 1, 2, 8, 36_000).build();
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 8), Server.training("t2", A100, 8)),
            List.of(elastic, job("q", 4, 1, 1, 3600).build()),
            Map.of("e", Allocation.of("t1", 8)));
    Plan plan = aryl.plan(s);
    assertThat(plan.target("q").workersByServer()).containsExactly(Map.entry("t2", 1));
    // t2's other 4 GPUs go to the elastic job, which was already at its max: it keeps its 8.
    assertThat(plan.changes()).doesNotContainKey("e");
  }

  @Test
  @DisplayName(
      "base workers prefer the training pool's own servers, flexible workers prefer loaned ones")
  void rolesPreferTheirServers() {
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 8), Server.loaned("l1", A100, 8)),
            List.of(job("e", 1, 4, 12, 36_000).build()),
            Map.of());
    Allocation a = aryl.plan(s).target("e");
    assertThat(a.workersOn("t1")).as("workers on own server").isEqualTo(4);
    assertThat(a.workersOn("l1")).as("flexible on the loaned server").isEqualTo(8);
  }

  @Test
  @DisplayName("inelastic jobs land on own servers while they fit, only then on loaned ones")
  void inelasticAvoidsLoaned() {
    ClusterState s =
        state(
            List.of(Server.loaned("l1", A100, 8), Server.training("t1", A100, 8)),
            List.of(
                job("a", 4, 1, 1, 100).build(),
                job("b", 4, 1, 1, 200).build(),
                job("c", 4, 1, 1, 300).build()),
            Map.of());
    Plan plan = aryl.plan(s);
    assertThat(plan.target("a").workersOn("t1") + plan.target("b").workersOn("t1")).isEqualTo(2);
    assertThat(plan.target("c").workersOn("l1")).isEqualTo(1);
  }

  @Test
  @DisplayName("the shortest predicted job goes first; FIFO is selectable")
  void shortestPredictedFirst() {
    Job longOld = job("long", 8, 1, 1, 100).submitTimeS(1).predictedRemainingS(10_000).build();
    Job shortNew = job("short", 8, 1, 1, 10_000).submitTimeS(2).predictedRemainingS(100).build();
    ClusterState s =
        state(List.of(Server.training("t1", A100, 8)), List.of(longOld, shortNew), Map.of());
    assertThat(aryl.plan(s).started())
        .as("by prediction, not by the truth")
        .containsExactly("short");
    RoundPlanner fifo = new RoundPlanner(PolicyConfig.defaults().withJobOrder(JobOrder.FIFO));
    assertThat(fifo.plan(s).started()).containsExactly("long");
  }

  @Test
  @DisplayName(
      "a starving large job holds back smaller ones until it fits, but lets through those that end first")
  void starvationGuardReservesAndBackfills() {
    Server t1 = Server.training("t1", A100, 8);
    Job running =
        job("r", 4, 1, 1, 3600).build(); // frees its 4 GPUs in 3600 s: the big job's shadow time
    Job bigOld = job("big", 8, 1, 1, 100_000).submitTimeS(0).build();
    Job quick = job("quick", 2, 1, 1, 600).build(); // ends well before the shadow: backfills
    Job slow =
        job("slow", 2, 1, 1, 7200).build(); // would still hold GPUs when the big job could start
    RoundPlanner planner = new RoundPlanner(PolicyConfig.defaults().withStarvationWaitS(5_000));
    ClusterState starving =
        state(
            List.of(t1),
            List.of(running, bigOld, quick, slow),
            Map.of("r", Allocation.of("t1", 1)));
    assertThat(planner.plan(starving).started())
        .as("waited %s s > 5000 s", NOW)
        .containsExactly("quick");

    RoundPlanner patient = new RoundPlanner(PolicyConfig.defaults().withStarvationWaitS(50_000));
    assertThat(patient.plan(starving).started()).containsExactlyInAnyOrder("quick", "slow");
  }

  @Test
  @DisplayName("a job that could never fit reserves nothing")
  void impossibleJobReservesNothing() {
    Job huge = job("huge", 8, 4, 4, 100).submitTimeS(0).build();
    Job small = job("small", 2, 1, 1, 60).build();
    RoundPlanner planner = new RoundPlanner(PolicyConfig.defaults().withStarvationWaitS(5_000));
    ClusterState s = state(List.of(Server.training("t1", A100, 8)), List.of(huge, small), Map.of());
    assertThat(planner.plan(s).started()).containsExactly("small");
  }

  @Test
  @DisplayName("a fenced server takes no new workers and sheds its flexible ones")
  void fencedServer() {
    Server fenced = Server.loaned("l1", A100, 8).withFenced(true);
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 8), fenced),
            List.of(job("e", 1, 2, 16, 36_000).build()),
            Map.of("e", Allocation.of(Map.of("t1", 8, "l1", 4))));
    Allocation next = aryl.plan(s).target("e");
    assertThat(next.workersOn("l1")).isZero();
    assertThat(next.workersOn("t1")).isEqualTo(8);
  }

  @Test
  @DisplayName("GPU types are respected: an A100-only job waits rather than run on T4s")
  void gpuTypesRespected() {
    ClusterState s =
        state(
            List.of(Server.loaned("l1", T4, 8), Server.training("t1", A100, 8)),
            List.of(
                job("r", 8, 1, 1, 3600).build(),
                job("a", 1, 1, 1, 60).allowedGpuTypes("A100").build()),
            Map.of("r", Allocation.of("t1", 1)));
    assertThat(aryl.plan(s).targets()).doesNotContainKey("a");
  }

  @Test
  @DisplayName("a second round on the first round's result changes nothing")
  void stableWhenNothingChanges() {
    List<Server> servers =
        List.of(
            Server.training("t1", A100, 8),
            Server.training("t2", A100, 8),
            Server.loaned("l1", T4, 8));
    List<Job> jobs =
        List.of(
            job("e1", 1, 2, 8, 36_000).build(),
            job("e2", 2, 1, 4, 7_200).speedup(SpeedupModel.powerLaw(0.8)).build(),
            job("i", 4, 1, 1, 600).build());
    Plan first = aryl.plan(state(servers, jobs, Map.of()));
    Plan second = aryl.plan(state(servers, jobs, first.targets()));
    assertThat(second.changes()).isEmpty();
  }

  @Test
  @DisplayName(
      "re-scaling is priced: a running job is not resized for a gain smaller than the pause")
  void rescaleOverheadDamps() {
    // One extra GPU would save 3600 - 3600*2/3 = 1200 s of a 3600 s job at 2 workers: worth it; of
    // a 60 s job,
    // 20 s, less than the 30 s re-scale pause: not worth it.
    ClusterState longJob =
        state(
            List.of(Server.training("t1", A100, 3)),
            List.of(job("e", 1, 2, 3, 3600).build()),
            Map.of("e", Allocation.of("t1", 2)));
    ClusterState shortJob =
        state(
            List.of(Server.training("t1", A100, 3)),
            List.of(job("e", 1, 2, 3, 60).build()),
            Map.of("e", Allocation.of("t1", 2)));
    assertThat(aryl.plan(longJob).changes()).containsEntry("e", Plan.Change.GROW);
    assertThat(aryl.plan(shortJob).changes()).isEmpty();
  }

  @Test
  @DisplayName("with elasticity off every job runs at its minimum")
  void elasticOff() {
    RoundPlanner inelastic = new RoundPlanner(PolicyConfig.defaults().withElastic(false));
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 8)),
            List.of(job("e", 1, 2, 8, 3600).build()),
            Map.of());
    assertThat(inelastic.plan(s).target("e").totalWorkers()).isEqualTo(2);
  }

  @Test
  @DisplayName("spare GPUs go where they cut predicted JCT the most")
  void knapsackPrefersTheBiggerGain() {
    // Both start at 1 worker; 4 spare GPUs. Linear scaling: the long job gains far more per extra
    // worker.
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 6)),
            List.of(job("long", 1, 1, 5, 100_000).build(), job("short", 1, 1, 5, 1_000).build()),
            Map.of());
    Plan plan = aryl.plan(s);
    assertThat(plan.target("long").totalWorkers()).isEqualTo(5);
    assertThat(plan.target("short").totalWorkers()).isEqualTo(1);
  }

  @Test
  @DisplayName("shortest remaining first: spare GPUs go to the job closest to finishing")
  void shortestRemainingFirstPrefersTheShortJob() {
    // As above, but each job's JCT reduction is weighted by 1 / remaining^2: the short job's 4
    // extra workers cut
    // its JCT by 80%, worth more than the long job's same 80%, 100 times longer.
    RoundPlanner srf =
        new RoundPlanner(
            PolicyConfig.defaults().withElasticValue(ElasticValue.SHORTEST_REMAINING_FIRST));
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 6)),
            List.of(job("long", 1, 1, 5, 100_000).build(), job("short", 1, 1, 5, 1_000).build()),
            Map.of());
    Plan plan = srf.plan(s);
    assertThat(plan.target("short").totalWorkers()).isEqualTo(5);
    assertThat(plan.target("long").totalWorkers()).isEqualTo(1);
  }

  @Test
  @DisplayName(
      "GPUs fragmentation leaves go to a job whose workers fit, after one whose workers fit nowhere")
  void leftoverGpusSkipWorkersTooLargeForAnyServer() {
    // Spare: a 3, b 4 (held by small's 4 extra workers), c 3. The knapsack gives big (the larger
    // gain) a 4-GPU worker
    // and small 6 extras; small keeps its 4 on b, big's worker then fits nowhere, and small takes 2
    // more elsewhere.
    // What is left (4 GPUs, at most 3 on a server) goes to small, up to its maximum of 8, passing
    // over big.
    ClusterState s =
        state(
            List.of(
                Server.training("a", A100, 8),
                Server.training("b", A100, 8),
                Server.training("c", A100, 8)),
            List.of(
                job("big", 4, 1, 2, 100_000).build(),
                job("r1", 4, 1, 1, 3600).build(),
                job("r2", 5, 1, 1, 3600).build(),
                job("small", 1, 1, 8, 10_000).build()),
            Map.of(
                "big",
                Allocation.of("a", 1),
                "r1",
                Allocation.of("b", 1),
                "r2",
                Allocation.of("c", 1),
                "small",
                Allocation.of(Map.of("a", 1, "b", 4))));
    Plan plan = aryl.plan(s);
    assertThat(plan.target("big").totalWorkers()).isEqualTo(1);
    assertThat(plan.target("small").totalWorkers()).isEqualTo(8);
  }

  @Test
  @DisplayName(
      "spare GPUs a job may not use do not count: jobs bound to one GPU type share only its GPUs")
  void knapsackCapacityPerTypeSet() {
    // Both jobs may only use A100s; t1 has 6 spare, the T4 server 8 more that neither can use. By
    // value the long
    // job gets 4 extras and the short one 2; counting the T4s would let both "fit" 4, and the short
    // job, placed
    // first by id, would take the A100s.
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 8), Server.training("t2", T4, 8)),
            List.of(
                job("a-short", 1, 1, 5, 1_000).allowedGpuTypes("A100").build(),
                job("b-long", 1, 1, 5, 100_000).allowedGpuTypes("A100").build()),
            Map.of("a-short", Allocation.of("t1", 1), "b-long", Allocation.of("t1", 1)));
    Plan plan = aryl.plan(s);
    assertThat(plan.target("b-long").totalWorkers()).isEqualTo(5);
    assertThat(plan.target("a-short").totalWorkers()).isEqualTo(3);
  }

  @Test
  @DisplayName(
      "speed-aware: a gang goes whole onto GPUs of one speed rather than straddle fast and slow")
  void speedAwareGangKeepsOnePace() {
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 8), Server.loaned("l1", T4, 8)),
            List.of(job("r", 4, 1, 1, 3600).build(), job("g", 4, 2, 2, 3600).build()),
            Map.of("r", Allocation.of("t1", 1)));
    assertThat(aryl.plan(s).target("g").workersByServer())
        .as("the paper: base workers fill own servers first")
        .containsOnlyKeys("t1", "l1");
    RoundPlanner speedAware = new RoundPlanner(PolicyConfig.defaults().withSpeedAware(true));
    assertThat(speedAware.plan(s).target("g").workersByServer())
        .containsExactly(Map.entry("l1", 2));
  }

  @Test
  @DisplayName("speed-aware: a job's extra workers never go to GPUs slower than its base")
  void speedAwareExtrasDoNotSlowAJob() {
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 4), Server.loaned("l1", T4, 8)),
            List.of(job("e", 1, 2, 8, 36_000).build()),
            Map.of("e", Allocation.of("t1", 2)));
    assertThat(aryl.plan(s).target("e").workersOn("l1"))
        .as("the paper: flexible workers go to loaned servers")
        .isPositive();
    Allocation next =
        new RoundPlanner(PolicyConfig.defaults().withSpeedAware(true)).plan(s).target("e");
    assertThat(next.workersOn("l1")).isZero();
    assertThat(next.workersOn("t1")).isEqualTo(4);
  }
}
