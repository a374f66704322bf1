package io.aryl.sim.baselines;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.RoundPlanner;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import io.aryl.core.testing.SmallStates;
import io.aryl.sim.engine.PolicySpec;
import io.aryl.sim.engine.SimConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OptimusPlannerTest {
  private static final GpuType A100 = GpuType.of("A100");
  private static final GpuType T4 = GpuType.of("T4", 0.5);

  private final OptimusPlanner planner = new OptimusPlanner();

  private static Job job(String id, int gpusPerWorker, int min, int max, double remainingS) {
    return Job.builder(id)
        .gpusPerWorker(gpusPerWorker)
        .workers(min, max)
        .remainingS(remainingS)
        .predictedRemainingS(remainingS)
        .build();
  }

  private static ClusterState state(
      List<Server> servers, List<Job> jobs, Map<String, Allocation> allocations) {
    return ClusterState.of(1000, servers, jobs, allocations);
  }

  @Test
  void anElasticJobGrowsToItsMaxOnAnIdleClusterOnOneServer() {
    ClusterState s =
        state(
            List.of(Server.training("s0", A100, 8), Server.training("s1", A100, 8)),
            List.of(job("j", 1, 1, 6, 10_000)),
            Map.of());
    Plan plan = planner.plan(s);
    assertThat(plan.target("j").totalWorkers()).isEqualTo(6);
    assertThat(plan.target("j").workersByServer()).hasSize(1); // as few servers as possible
    assertThat(plan.started()).containsExactly("j");
  }

  @Test
  void theNextWorkerGoesToTheJobWhoseCompletionTimeDropsMost() {
    // 4 GPUs: both start at 1; a: 10000s, gains 5000 then 1667 per worker; b: 1000s, gains 500.
    ClusterState s =
        state(
            List.of(Server.training("s0", A100, 4)),
            List.of(job("a", 1, 1, 4, 10_000), job("b", 1, 1, 4, 1_000)),
            Map.of());
    Plan plan = planner.plan(s);
    assertThat(plan.target("a").totalWorkers()).isEqualTo(3);
    assertThat(plan.target("b").totalWorkers()).isEqualTo(1);
  }

  @Test
  void theGainIsPerGpu() {
    // Both minima leave 2 GPUs. One more worker saves 500 s for either job, but c's worker takes 2
    // GPUs (250 s per
    // GPU) and d's one (500 s per GPU): d grows, and the last GPU is too small for c. Per worker, c
    // would win the tie.
    ClusterState s =
        state(
            List.of(Server.training("s0", A100, 5)),
            List.of(job("c", 2, 1, 2, 1_000), job("d", 1, 1, 2, 1_000)),
            Map.of());
    Plan plan = planner.plan(s);
    assertThat(plan.target("c").totalWorkers()).isEqualTo(1);
    assertThat(plan.target("d").totalWorkers()).isEqualTo(2);
  }

  @Test
  void growthStopsAtMaxWorkersEvenWithGpusLeft() {
    ClusterState s =
        state(List.of(Server.training("s0", A100, 8)), List.of(job("j", 2, 1, 2, 5_000)), Map.of());
    assertThat(planner.plan(s).target("j").totalWorkers()).isEqualTo(2);
  }

  @Test
  void aGangStartsWithAllItsMinimumOrNotAtAll() {
    Job big = job("big", 1, 3, 3, 100);
    Job small = job("small", 1, 2, 2, 5_000);
    Job running = job("running", 6, 1, 1, 50_000);
    ClusterState s =
        state(
            List.of(Server.training("s0", A100, 8)),
            List.of(big, small, running),
            Map.of("running", Allocation.of("s0", 1)));
    Plan plan = planner.plan(s);
    assertThat(plan.target("big").isEmpty()).isTrue();
    assertThat(plan.target("small").totalWorkers()).isEqualTo(2);
    assertThat(plan.preempted()).isEmpty();
  }

  @Test
  void minimaComeBeforeExtrasAndSmallestGpuTimeFirst() {
    // "e" runs with 7 extras; two queued gangs of 4 GPUs: both minima displace e's extras before e
    // may grow.
    Job e = job("e", 1, 1, 8, 100_000);
    ClusterState s =
        state(
            List.of(Server.training("s0", A100, 8), Server.training("s1", A100, 4)),
            List.of(
                e, job("q1", 1, 4, 4, 1_000), job("q2", 4, 1, 1, 2_000), job("q3", 4, 1, 1, 3_000)),
            Map.of("e", Allocation.of("s0", 8)));
    Plan plan = planner.plan(s);
    // q1 (4 GPU x 1000 s) and q2 (4 x 2000 s) fit after e's base; q3 (4 x 3000 s) does not.
    assertThat(plan.target("q1").totalWorkers()).isEqualTo(4);
    assertThat(plan.target("q2").totalWorkers()).isEqualTo(1);
    assertThat(plan.target("q3").isEmpty()).isTrue();
    assertThat(plan.target("e").totalWorkers()).isEqualTo(4);
    assertThat(plan.target("e").workersOn("s0")).isGreaterThanOrEqualTo(1); // its base stays put
    assertThat(plan.shrunk()).containsExactly("e");
  }

  @Test
  void aGangGoesOnTheFewestServers() {
    // Free: s0 2, s1 4, s2 8. A 4-worker gang of 2 GPUs fits whole on s2 only.
    Job filler0 = job("f0", 6, 1, 1, 10);
    Job filler1 = job("f1", 4, 1, 1, 10);
    ClusterState s =
        state(
            List.of(
                Server.training("s0", A100, 8),
                Server.training("s1", A100, 8),
                Server.training("s2", A100, 8)),
            List.of(filler0, filler1, job("g", 2, 4, 4, 100)),
            Map.of("f0", Allocation.of("s0", 1), "f1", Allocation.of("s1", 1)));
    assertThat(planner.plan(s).target("g")).isEqualTo(Allocation.of("s2", 4));
  }

  @Test
  void extraWorkersStayWhereTheyRun() {
    Job e = job("e", 1, 1, 4, 100_000);
    ClusterState s =
        state(
            List.of(Server.training("s0", A100, 8), Server.training("s1", A100, 8)),
            List.of(e),
            Map.of("e", Allocation.of(Map.of("s0", 1, "s1", 3))));
    Plan plan = planner.plan(s);
    assertThat(plan.target("e")).isEqualTo(s.allocation("e"));
    assertThat(plan.changes()).isEmpty();
  }

  @Test
  void fencedServersGetNoNewWorkers() {
    Server fenced = new Server("i0", A100, 8, Pool.INFERENCE, true, true);
    Job running = job("r", 1, 1, 8, 50_000);
    ClusterState s =
        state(
            List.of(Server.training("t0", A100, 4), fenced),
            List.of(running, job("q", 1, 1, 8, 50_000)),
            Map.of("r", Allocation.of("i0", 3)));
    Plan plan = planner.plan(s);
    plan.targets()
        .forEach(
            (id, a) ->
                assertThat(a.workersOn("i0"))
                    .as(id)
                    .isLessThanOrEqualTo(s.allocation(id).workersOn("i0")));
    assertThat(plan.target("r").workersOn("i0")).isEqualTo(1); // its base stays; its extras may not
    assertThat(plan.preempted()).isEmpty();
  }

  @Test
  void gpuTypesAreRespected() {
    Job a100Only =
        Job.builder("a")
            .gpusPerWorker(1)
            .workers(1, 8)
            .remainingS(10_000)
            .allowedGpuTypes("A100")
            .build();
    ClusterState s =
        state(
            List.of(Server.training("s0", A100, 2), Server.training("s1", T4, 8)),
            List.of(a100Only),
            Map.of());
    Plan plan = planner.plan(s);
    assertThat(plan.target("a")).isEqualTo(Allocation.of("s0", 2));
  }

  @Test
  void runningJobsKeepTheirMinimumInPlace() {
    // A flood of short queued jobs never preempts a long running one nor moves its base.
    List<Job> jobs = new ArrayList<>();
    jobs.add(job("long", 2, 2, 4, 1_000_000));
    for (int i = 0; i < 10; i++) {
      jobs.add(job("q" + i, 1, 1, 2, 10));
    }
    ClusterState s =
        state(
            List.of(Server.training("s0", A100, 8)), jobs, Map.of("long", Allocation.of("s0", 4)));
    Plan plan = planner.plan(s);
    assertThat(plan.preempted()).isEmpty();
    assertThat(plan.target("long").workersOn("s0")).isGreaterThanOrEqualTo(2);
    assertThat(totalGpus(s, plan, "s0")).isLessThanOrEqualTo(8);
  }

  @Test
  void aSaturatedClusterIsLeftAsItIs() {
    assertThat(planner.changesNothingWhenSaturated()).isTrue();
    int withExtras = 0;
    for (long seed = 0; seed < 500; seed++) {
      ClusterState s = SmallStates.saturate(SmallStates.random(seed));
      assertThat(RoundPlanner.saturated(s)).isTrue();
      assertThat(new OptimusPlanner().plan(s).changes()).as("changes on %s", s).isEmpty();
      withExtras += s.jobs().stream().anyMatch(j -> j.maxWorkers() > j.minWorkers()) ? 1 : 0;
    }
    assertThat(withExtras).as("saturated states with a job above its minimum").isGreaterThan(100);
  }

  @Test
  void theSamePlanEveryTime() {
    for (long seed = 0; seed < 50; seed++) {
      ClusterState s = randomState(seed);
      assertThat(new OptimusPlanner().plan(s)).isEqualTo(planner.plan(s));
    }
  }

  @Test
  void isRegisteredAsAPolicy() {
    PolicySpec p = PolicySpec.named("optimus");
    assertThat(p.loan()).isTrue();
    assertThat(p.elastic()).isTrue();
    assertThat(p.planner().create(p, SimConfig.defaults(2, 1))).isInstanceOf(OptimusPlanner.class);
  }

  @Test
  void randomStatesGiveValidPlans() {
    for (long seed = 1; seed <= 300; seed++) {
      ClusterState s = randomState(seed);
      Plan plan = planner.plan(s); // Plan.between validates the targets as ClusterState does
      assertThat(plan.preempted()).as("seed %d", seed).isEmpty();
      for (Map.Entry<String, Allocation> e : plan.targets().entrySet()) {
        Job j = s.job(e.getKey());
        Allocation now = s.allocation(j.id());
        assertThat(e.getValue().totalWorkers())
            .as("seed %d %s", seed, j.id())
            .isBetween(j.minWorkers(), j.maxWorkers());
        int kept = 0;
        for (Map.Entry<String, Integer> w : e.getValue().workersByServer().entrySet()) {
          Server server = s.server(w.getKey());
          assertThat(j.allows(server.gpuType())).isTrue();
          assertThat(server.servesTraining()).isTrue();
          if (server.fenced()) {
            assertThat(w.getValue())
                .as("seed %d %s on fenced %s", seed, j.id(), server.id())
                .isLessThanOrEqualTo(now.workersOn(server.id()));
          }
          kept += Math.min(w.getValue(), now.workersOn(w.getKey()));
        }
        if (!now.isEmpty()) {
          assertThat(kept)
              .as("seed %d: %s keeps its base in place", seed, j.id())
              .isGreaterThanOrEqualTo(j.minWorkers());
        }
      }
      for (Server server : s.servers()) {
        assertThat(totalGpus(s, plan, server.id()))
            .as("seed %d %s", seed, server.id())
            .isLessThanOrEqualTo(server.gpus());
      }
      // Marginal gain stops only for a reason: an elastic running job below max had no room for a
      // worker.
      for (Map.Entry<String, Allocation> e : plan.targets().entrySet()) {
        Job j = s.job(e.getKey());
        if (e.getValue().totalWorkers() < j.maxWorkers()) {
          assertThat(fitsAnywhere(s, plan, j))
              .as("seed %d: %s below max with room left", seed, j.id())
              .isFalse();
        }
      }
    }
  }

  @Test
  void aLargeRoundIsFast() {
    ClusterState s = largeState(125, 300, 7); // 1,000 GPUs, 300 jobs
    for (int i = 0; i < 50; i++) {
      planner.plan(s); // warm up
    }
    int rounds = 50;
    long t0 = System.nanoTime();
    for (int i = 0; i < rounds; i++) {
      planner.plan(s);
    }
    double msPerRound = (System.nanoTime() - t0) / 1e6 / rounds;
    assertThat(msPerRound).as("ms per round").isLessThan(50);
  }

  // --- helpers
  // ---------------------------------------------------------------------------------------------------

  private static int totalGpus(ClusterState s, Plan plan, String serverId) {
    int used = 0;
    for (Map.Entry<String, Allocation> e : plan.targets().entrySet()) {
      used += e.getValue().workersOn(serverId) * s.job(e.getKey()).gpusPerWorker();
    }
    return used;
  }

  private static boolean fitsAnywhere(ClusterState s, Plan plan, Job j) {
    for (Server server : s.servers()) {
      if (server.acceptsNewWorkers()
          && j.allows(server.gpuType())
          && server.gpus() - totalGpus(s, plan, server.id()) >= j.gpusPerWorker()) {
        return true;
      }
    }
    return false;
  }

  /** Small random but valid states, as aryl-core's own property tests use them. */
  static ClusterState randomState(long seed) {
    return SmallStates.random(seed);
  }

  /** A cluster of {@code servers} 8-GPU training servers, about half of its jobs running. */
  static ClusterState largeState(int serverCount, int jobCount, long seed) {
    return SmallStates.large(serverCount, jobCount, seed);
  }
}
