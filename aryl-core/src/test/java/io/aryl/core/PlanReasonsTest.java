package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.elastic.ElasticValue;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.BelowMax;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.QueuePlace;
import io.aryl.core.model.QueuePlace.Standing;
import io.aryl.core.model.Server;
import io.aryl.core.model.Tenants;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The plan says why, as the round decided it: where admission put each queued job it left waiting,
 * and why phase 2 did not widen each elastic job it runs below its maximum. Hand-made snapshots on
 * 1-GPU-per-worker arithmetic that can be followed on paper: linear speed-up, so a job of {@code R}
 * predicted seconds at its minimum of 1 worker runs {@code R / w} at {@code w} workers; the default
 * re-scale pause is 30 s.
 */
@DisplayName(
    "the plan says why: a waiting job's place in the queue, an elastic job below its maximum")
class PlanReasonsTest {
  static final GpuType A100 = GpuType.of("A100");
  static final GpuType V100 = GpuType.of("V100");
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

  @Nested
  @DisplayName("a queued job the round leaves waiting")
  class Waiting {
    @Test
    @DisplayName("a job behind a shorter one is second in the queue")
    void behindAShorterOne() {
      ClusterState s =
          state(
              List.of(Server.training("t1", A100, 4)),
              List.of(
                  job("r", 4, 1, 1, 36_000).build(),
                  job("short", 4, 1, 1, 600).build(),
                  job("long", 4, 1, 1, 6_000).build()),
              Map.of("r", Allocation.of("t1", 1)));
      Plan plan = aryl.plan(s);
      assertThat(plan.targets()).containsOnlyKeys("r");
      assertThat(plan.waiting())
          .as("the running job is not queued")
          .containsOnlyKeys("short", "long")
          .containsEntry("short", new QueuePlace(0, 0, Standing.NOT_STARVING, false))
          .containsEntry("long", new QueuePlace(1, 1, Standing.NOT_STARVING, false));
    }

    @Test
    @DisplayName(
        "jobs admitted before a waiting one were offered before it, but are not waiting ahead of it")
    void admittedAheadAreOfferedBefore() {
      ClusterState s =
          state(
              List.of(Server.training("t1", A100, 4)),
              List.of(
                  job("r", 2, 1, 1, 36_000).build(),
                  job("tiny", 2, 1, 1, 60).build(),
                  job("short", 4, 1, 1, 600).build(),
                  job("long", 4, 1, 1, 6_000).build()),
              Map.of("r", Allocation.of("t1", 1)));
      Plan plan = aryl.plan(s);
      assertThat(plan.started()).containsExactly("tiny");
      assertThat(plan.waiting())
          .containsOnlyKeys("short", "long")
          .containsEntry("short", new QueuePlace(0, 1, Standing.NOT_STARVING, false))
          .containsEntry("long", new QueuePlace(1, 2, Standing.NOT_STARVING, false));
    }

    /**
     * With a 50 s starvation wait: a full pool of two 4-GPU servers held by job a (submitted {@code
     * aAgeS} ago), two starving one-worker gangs of 4 GPUs, s1 (90 s queued, 600 s predicted) and
     * s2 (80 s, 60 s). The senior lane is half the pool (4 GPUs) while the starving jobs' 8 GPUs
     * fit in the pool, counting the older running jobs first.
     */
    Plan starving(double aAgeS) {
      RoundPlanner planner = new RoundPlanner(PolicyConfig.defaults().withStarvationWaitS(50));
      return planner.plan(
          state(
              List.of(Server.training("t1", A100, 4), Server.training("t2", A100, 4)),
              List.of(
                  job("a", 4, 2, 2, 36_000).submitTimeS(NOW - aAgeS).build(),
                  job("s1", 4, 1, 1, 600).submitTimeS(NOW - 90).build(),
                  job("s2", 4, 1, 1, 60).submitTimeS(NOW - 80).build()),
              Map.of("a", Allocation.of(Map.of("t1", 1, "t2", 1)))));
    }

    @Test
    @DisplayName("a starving job the senior lane holds goes first, and servers are held for it")
    void inTheLane() {
      Plan plan =
          starving(40); // a is younger than both: the lane holds s1, the oldest, and is full then
      assertThat(plan.waiting())
          .containsEntry("s1", new QueuePlace(0, 0, Standing.IN_THE_LANE, true))
          .containsEntry("s2", new QueuePlace(1, 1, Standing.OUTSIDE_THE_LANE, false));
    }

    @Test
    @DisplayName("a starving job outside the lane keeps its place in the job order")
    void outsideTheLane() {
      Plan plan = starving(100); // a is older than both and fills the lane: shortest first decides
      assertThat(plan.waiting())
          .as("s2, shorter, is first and reserves; s1, older and starving too, stays behind it")
          .containsEntry("s2", new QueuePlace(0, 0, Standing.OUTSIDE_THE_LANE, true))
          .containsEntry("s1", new QueuePlace(1, 1, Standing.OUTSIDE_THE_LANE, false));
    }

    @Test
    @DisplayName(
        "with teams, a job within its team's guarantee is offered before a shorter one beyond its team's")
    void teamsWithinTheirGuaranteeFirst() {
      // nlp runs 8 GPUs on a guarantee of 4; vision runs 8 on 12. Both queue a 4-GPU job on a full
      // pool.
      ClusterState s =
          ClusterState.of(
              NOW,
              List.of(Server.training("t1", A100, 8), Server.training("t2", A100, 8)),
              List.of(
                  job("n", 4, 2, 2, 36_000).tenant("nlp").build(),
                  job("v", 4, 2, 2, 36_000).tenant("vision").build(),
                  job("n-short", 4, 1, 1, 60).tenant("nlp").build(),
                  job("v-long", 4, 1, 1, 6_000).tenant("vision").submitTimeS(NOW - 30).build()),
              Map.of("n", Allocation.of("t1", 2), "v", Allocation.of("t2", 2)),
              Tenants.of(Map.of("nlp", 4, "vision", 12)));
      Plan plan = aryl.plan(s);
      assertThat(plan.targets()).containsOnlyKeys("n", "v");
      assertThat(plan.waiting())
          .containsEntry("v-long", new QueuePlace(0, 0, Standing.NOT_STARVING, false))
          .containsEntry("n-short", new QueuePlace(1, 1, Standing.NOT_STARVING, false));
    }
  }

  @Nested
  @DisplayName("an elastic job the round runs below its maximum")
  class BelowItsMaximum {
    @Test
    @DisplayName("no spare GPUs of an A100-only job's type: idle V100s do not count")
    void noSpareGpusOfItsType() {
      ClusterState s =
          state(
              List.of(Server.training("t1", A100, 4), Server.training("t2", V100, 4)),
              List.of(job("e", 1, 1, 8, 36_000).allowedGpuTypes("A100").build()),
              Map.of("e", Allocation.of("t1", 4)));
      Plan plan = aryl.plan(s);
      assertThat(plan.target("e").totalWorkers()).isEqualTo(4);
      assertThat(plan.belowMax())
          .containsExactly(Map.entry("e", new BelowMax.NoRoom(List.of("A100"), 0, 0)));
    }

    @Test
    @DisplayName(
        "spare GPUs spread thinner than one worker are no room: how many, and the most on one server")
    void spareGpusTooThin() {
      // r's two 3-GPU workers leave 1 GPU on each of t1 and t2; e's workers take 2.
      ClusterState s =
          state(
              List.of(
                  Server.training("t1", A100, 4),
                  Server.training("t2", A100, 4),
                  Server.training("t3", A100, 2)),
              List.of(job("r", 3, 2, 2, 36_000).build(), job("e", 2, 1, 4, 36_000).build()),
              Map.of("r", Allocation.of(Map.of("t1", 1, "t2", 1)), "e", Allocation.of("t3", 1)));
      Plan plan = aryl.plan(s);
      assertThat(plan.changes()).isEmpty();
      assertThat(plan.belowMax())
          .containsExactly(Map.entry("e", new BelowMax.NoRoom(List.of("A100"), 2, 1)));
    }

    @Test
    @DisplayName(
        "one more worker is not worth the re-scale pause: both numbers, in predicted seconds")
    void notWorthThePause() {
      // 100 s at 1 worker: 50 s at the 2 it runs, 33.3 s at 3. One more saves 16.7 s and pauses it
      // 30 s.
      ClusterState s =
          state(
              List.of(Server.training("t1", A100, 8)),
              List.of(job("e", 1, 1, 4, 100).build()),
              Map.of("e", Allocation.of("t1", 2)));
      Plan plan = aryl.plan(s);
      assertThat(plan.changes()).as("6 GPUs stay idle").isEmpty();
      assertThat(plan.belowMax().get("e"))
          .isInstanceOfSatisfying(
              BelowMax.NotWorthThePause.class,
              r -> {
                assertThat(r.gainS()).isCloseTo(50 - 100 / 3.0, within(1e-9));
                assertThat(r.pauseS()).isEqualTo(30);
              });
    }

    @Test
    @DisplayName(
        "the spare GPUs went to a job whose extra workers are worth more; that one ran out of room")
    void othersWorthMore() {
      // 2 spare GPUs. long (10 h) gains 6 h from two more workers; short (1 h) 30 min from one:
      // long takes both.
      ClusterState s =
          state(
              List.of(Server.training("t1", A100, 4)),
              List.of(job("long", 1, 1, 4, 36_000).build(), job("short", 1, 1, 4, 3_600).build()),
              Map.of("long", Allocation.of("t1", 1), "short", Allocation.of("t1", 1)));
      Plan plan = aryl.plan(s);
      assertThat(plan.target("long").totalWorkers()).isEqualTo(3);
      assertThat(plan.target("short").totalWorkers()).isEqualTo(1);
      assertThat(plan.belowMax())
          .containsEntry("short", new BelowMax.OthersWorthMore(1, 1_800, 30))
          .containsEntry("long", new BelowMax.NoRoom(List.of("A100"), 0, 0));
    }

    @Test
    @DisplayName(
        "two more workers would pay the pause where one does not, but the GPUs went to a job worth more")
    void twoMoreWouldPay() {
      // e: 150 s at 1 worker, 75 s at the 2 it runs; one more saves 25 s (< 30 s), two more 37.5 s
      // (> 30 s). The 2
      // idle GPUs and its own extra's GPU fit 2 more; long (10 h) takes the idle two, all it may
      // take.
      ClusterState s =
          state(
              List.of(Server.training("t1", A100, 5)),
              List.of(job("e", 1, 1, 4, 150).build(), job("long", 1, 1, 3, 36_000).build()),
              Map.of("e", Allocation.of("t1", 2), "long", Allocation.of("t1", 1)));
      Plan plan = aryl.plan(s);
      assertThat(plan.target("long").totalWorkers()).isEqualTo(3);
      assertThat(plan.target("e").totalWorkers()).isEqualTo(2);
      assertThat(plan.belowMax())
          .containsExactly(Map.entry("e", new BelowMax.OthersWorthMore(2, 37.5, 30)));
    }

    @Test
    @DisplayName("a job at its maximum, and a rigid job, have no reason to give")
    void atItsMaximum() {
      ClusterState s =
          state(
              List.of(Server.training("t1", A100, 8)),
              List.of(job("e", 1, 1, 4, 36_000).build(), job("r", 2, 1, 1, 36_000).build()),
              Map.of());
      Plan plan = aryl.plan(s);
      assertThat(plan.target("e").totalWorkers()).isEqualTo(4);
      assertThat(plan.belowMax()).isEmpty();
      assertThat(plan.waiting()).isEmpty();
    }

    @Test
    @DisplayName("with elastic allocation off, every elastic job runs at its minimum, and says so")
    void elasticOff() {
      ClusterState s =
          state(
              List.of(Server.training("t1", A100, 8)),
              List.of(job("e", 1, 2, 4, 36_000).build()),
              Map.of());
      Plan plan = new RoundPlanner(PolicyConfig.defaults().withElastic(false)).plan(s);
      assertThat(plan.target("e").totalWorkers()).isEqualTo(2);
      assertThat(plan.belowMax()).containsExactly(Map.entry("e", new BelowMax.ElasticOff()));
    }

    @Test
    @DisplayName("a job moved whole to slower GPUs where it runs wider is left as moved this round")
    void movedWhole() {
      // A rigid job holds 6 of t1's 8 A100s; e would run 2 wide there, so it moves to the 8 T4s of
      // l1 (half speed).
      GpuType t4 = GpuType.of("T4", 0.5);
      RoundPlanner arylPlus =
          new RoundPlanner(
              PolicyConfig.defaults()
                  .withSpeedAware(true)
                  .withElasticValue(ElasticValue.SHORTEST_REMAINING_FIRST));
      ClusterState s =
          state(
              List.of(Server.training("t1", A100, 8), Server.loaned("l1", t4, 8)),
              List.of(job("r", 6, 1, 1, 36_000).build(), job("e", 1, 2, 12, 36_000).build()),
              Map.of("r", Allocation.of("t1", 1)));
      Plan plan = arylPlus.plan(s);
      assertThat(plan.target("e")).isEqualTo(Allocation.of("l1", 8));
      assertThat(plan.belowMax()).containsExactly(Map.entry("e", new BelowMax.MovedWhole()));
    }
  }
}
