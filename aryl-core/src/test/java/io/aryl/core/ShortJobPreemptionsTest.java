package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.core.admission.CheckpointPreemption;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import io.aryl.core.model.Tenants;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * aryl+'s preemption at checkpoints, one round at a time: one training server of 8 GPUs, a running
 * job "long" holding all of it, and a job "short" of 8 GPUs waiting. With aryl+'s rule (factor 2,
 * restart 120 s) long is stopped when its remaining seconds are at least twice short's plus its own
 * seconds since its checkpoint plus the restart (both jobs hold 8 GPUs, so the GPUs cancel out).
 */
@DisplayName("aryl+: a running job stopped after its checkpoint to start a much shorter one")
class ShortJobPreemptionsTest {
  static final GpuType A100 = GpuType.of("A100");
  static final double NOW = 100_000;

  static final PolicyConfig ARYL_PLUS = ArylPolicy.ARYL_PLUS.applyTo(PolicyConfig.defaults());

  static Job job(String id, double remainingS, double sinceCheckpointS, int preemptions) {
    return Job.builder(id)
        .gpusPerWorker(8)
        .workers(1, 1)
        .remainingS(remainingS)
        .sinceCheckpointS(sinceCheckpointS)
        .preemptions(preemptions)
        .submitTimeS(NOW - 600)
        .build();
  }

  static ClusterState longRunsShortWaits(
      double longS, double sinceCheckpointS, int preemptions, double shortS) {
    return ClusterState.of(
        NOW,
        List.of(Server.training("t1", A100, 8)),
        List.of(job("long", longS, sinceCheckpointS, preemptions), job("short", shortS, 0, 0)),
        Map.of("long", Allocation.of("t1", 1)),
        Tenants.NONE);
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = ';',
      value = {
        // what; long's remaining s; its s since checkpoint; its preemptions; short's s; stopped?
        "a long job is stopped after its checkpoint to start a job 10x shorter; 36000; 60; 0; 3600; true",
        "the same long job 29 minutes after its checkpoint: the lost work is still small against the gain; 36000; 1740; 0; 3600; true",
        "a job only 2x longer than the waiting one is not stopped: the restart tips it; 7200; 0; 0; 3600;"
            + " false",
        // 2 x (1000 + 4000 + 120) = 10240 s of work against 10000: the lost work outweighs the gain
        "a job that checkpointed long ago is not preempted: the lost work costs more than the gain;"
            + " 10000; 4000; 0; 1000; false",
        "the same job just after its checkpoint is; 10000; 60; 0; 1000; true",
        "a job preempted 9 times may be stopped once more; 36000; 60; 9; 3600; true",
        "a job preempted 10 times (aryl+'s budget) is not preempted again; 36000; 60; 10; 3600; false",
      })
  void stopsOnlyWhenItPays(
      String what,
      double longS,
      double sinceCheckpointS,
      int preemptions,
      double shortS,
      boolean stopped) {
    Plan plan =
        new RoundPlanner(ARYL_PLUS)
            .plan(longRunsShortWaits(longS, sinceCheckpointS, preemptions, shortS));

    if (stopped) {
      assertThat(plan.changes())
          .as(what)
          .containsExactlyInAnyOrderEntriesOf(
              Map.of("long", Plan.Change.PREEMPT, "short", Plan.Change.START));
      assertThat(plan.target("short")).isEqualTo(Allocation.of("t1", 1));
      assertThat(plan.waiting()).as("nobody left waiting").isEmpty();
    } else {
      assertThat(plan.changes()).as(what).isEmpty();
      assertThat(plan.waiting()).containsOnlyKeys("short");
    }
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = ';',
      value = {
        // what; long's remaining s; its service s; its preemptions; how long the other waited s;
        // the other's service s; its preemptions; stopped?
        "a job that never ran and waited over an hour stops one that has run an hour, though only"
            + " 2x shorter; 7200; 3600; 0; 3700; 0; 0; true",
        "after 50 minutes it has not aged yet; 7200; 3600; 0; 3000; 0; 0; false",
        "a running job that has had 50 minutes of service is not stopped for it; 7200; 3000; 0;"
            + " 3700; 0; 0; false",
        "a job that ran before does not age: its wait after a stop is in its completion time; 7200;"
            + " 3600; 0; 3700; 600; 1; false",
        "a running job at its budget is not stopped for an aged one either; 7200; 3600; 10; 3700;"
            + " 0; 0; false",
        "an aged job stops a job of any length that has been served: here one shorter than itself;"
            + " 2000; 3600; 0; 3700; 0; 0; true",
      })
  void agedJobStopsAServedOne(
      String what,
      double longS,
      double longServedS,
      int longPreemptions,
      double waitedS,
      double otherServedS,
      int otherPreemptions,
      boolean stopped) {
    Job running =
        Job.builder("long")
            .gpusPerWorker(8)
            .workers(1, 1)
            .remainingS(longS)
            .attainedS(longServedS)
            .sinceCheckpointS(60)
            .preemptions(longPreemptions)
            .submitTimeS(NOW - longServedS - 600)
            .build();
    Job other =
        Job.builder("other")
            .gpusPerWorker(8)
            .workers(1, 1)
            .remainingS(3_600)
            .attainedS(otherServedS)
            .preemptions(otherPreemptions)
            .submitTimeS(NOW - waitedS)
            .build();
    ClusterState state =
        ClusterState.of(
            NOW,
            List.of(Server.training("t1", A100, 8)),
            List.of(running, other),
            Map.of("long", Allocation.of("t1", 1)),
            Tenants.NONE);

    Plan plan = new RoundPlanner(ARYL_PLUS).plan(state);

    if (stopped) {
      assertThat(plan.changes())
          .as(what)
          .containsExactlyInAnyOrderEntriesOf(
              Map.of("long", Plan.Change.PREEMPT, "other", Plan.Change.START));
    } else {
      assertThat(plan.changes()).as(what).isEmpty();
    }
  }

  @Test
  @DisplayName(
      "aged jobs are offered before shorter ones, oldest first: the room one stop frees goes to the"
          + " job that waited longest")
  void agedJobsFirstOldestFirst() {
    Job running =
        Job.builder("long")
            .gpusPerWorker(8)
            .workers(1, 1)
            .remainingS(7_200)
            .attainedS(7_200)
            .sinceCheckpointS(60)
            .submitTimeS(NOW - 9_000)
            .build();
    ClusterState state =
        ClusterState.of(
            NOW,
            List.of(Server.training("t1", A100, 8)),
            List.of(
                running,
                job("aged-younger", 3_000, 0, 0).toBuilder().submitTimeS(NOW - 4_000).build(),
                job("aged-older", 3_400, 0, 0).toBuilder().submitTimeS(NOW - 5_000).build(),
                job("fresh-short", 600, 0, 0)),
            Map.of("long", Allocation.of("t1", 1)),
            Tenants.NONE);

    Plan plan = new RoundPlanner(ARYL_PLUS).plan(state);

    // One server: whoever is offered first takes it. By shortest-first fresh-short (which may stop
    // long by the factor rule too) and then aged-younger would come before aged-older.
    assertThat(plan.changes())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("long", Plan.Change.PREEMPT, "aged-older", Plan.Change.START));
  }

  @Test
  @DisplayName("a job preempted once is not preempted again within its guard (a budget of one)")
  void budgetOfOne() {
    PolicyConfig once = ARYL_PLUS.withPreemption(CheckpointPreemption.shorterOnly(2, 1));

    assertThat(new RoundPlanner(once).plan(longRunsShortWaits(36_000, 60, 0, 3_600)).changes())
        .containsEntry("long", Plan.Change.PREEMPT);
    assertThat(new RoundPlanner(once).plan(longRunsShortWaits(36_000, 60, 1, 3_600)).changes())
        .isEmpty();
  }

  @Test
  @DisplayName("aryl, the paper's policy, runs every job to completion")
  void arylNeverPreemptsForAShorterJob() {
    Plan plan =
        new RoundPlanner(ArylPolicy.ARYL.applyTo(PolicyConfig.defaults()))
            .plan(longRunsShortWaits(36_000, 60, 0, 3_600));

    assertThat(plan.changes()).isEmpty();
  }

  @Test
  @DisplayName(
      "of two long jobs the one that loses least is stopped, and only as many as the gang needs")
  void leastLostWorkFirst() {
    ClusterState state =
        ClusterState.of(
            NOW,
            List.of(Server.training("t1", A100, 8), Server.training("t2", A100, 8)),
            List.of(
                job("a", 36_000, 1_500, 0), job("b", 36_000, 300, 0), job("short", 3_600, 0, 0)),
            Map.of("a", Allocation.of("t1", 1), "b", Allocation.of("t2", 1)),
            Tenants.NONE);

    Plan plan = new RoundPlanner(ARYL_PLUS).plan(state);

    assertThat(plan.changes())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("b", Plan.Change.PREEMPT, "short", Plan.Change.START));
    assertThat(plan.target("short")).isEqualTo(Allocation.of("t2", 1));
  }

  @Test
  @DisplayName(
      "a job is stopped only if the waiting gang then fits: a preemption that starts nothing only loses work")
  void nothingStoppedForAGangThatWouldNotFit() {
    ClusterState state =
        ClusterState.of(
            NOW,
            List.of(Server.training("t1", A100, 8), Server.training("t2", A100, 8)),
            List.of(
                job("long", 36_000, 60, 0),
                job("stays", 500, 60, 0),
                Job.builder("wide")
                    .gpusPerWorker(8)
                    .workers(2, 2)
                    .remainingS(1_000)
                    .submitTimeS(NOW - 600)
                    .build()),
            Map.of("long", Allocation.of("t1", 1), "stays", Allocation.of("t2", 1)),
            Tenants.NONE);

    assertThat(new RoundPlanner(ARYL_PLUS).plan(state).changes()).isEmpty();
  }

  static Job fourGpuJob(String id, int workers, double remainingS) {
    return Job.builder(id)
        .gpusPerWorker(4)
        .workers(workers, workers)
        .remainingS(remainingS)
        .sinceCheckpointS(60)
        .submitTimeS(NOW - 600)
        .build();
  }

  /**
   * "short" wants all 8 GPUs of one server; "long" (workers of 4 GPUs) fills t1, the only server
   * with 8 GPUs it could have; "a" and "b" (jobs of 500 s, never worth stopping) hold t2 and t3.
   */
  static ClusterState shortNeedsTheLongJobsServer(
      int t1Gpus, int longWorkers, int othersWorkers, List<Job> alsoWaiting) {
    List<Job> jobs =
        new java.util.ArrayList<>(
            List.of(
                fourGpuJob("long", longWorkers, 36_000),
                fourGpuJob("a", othersWorkers, 500),
                fourGpuJob("b", othersWorkers, 500),
                job("short", 3_600, 0, 0)));
    jobs.addAll(alsoWaiting);
    return ClusterState.of(
        NOW,
        List.of(
            Server.training("t1", A100, t1Gpus),
            Server.training("t2", A100, 8),
            Server.training("t3", A100, 8)),
        jobs,
        Map.of(
            "long", Allocation.of("t1", longWorkers),
            "a", Allocation.of("t2", othersWorkers),
            "b", Allocation.of("t3", othersWorkers)),
        Tenants.NONE);
  }

  @Test
  @DisplayName(
      "a job stopped for a shorter one that fits in the room left runs on there: moved, not stopped"
          + " and started again a round later")
  void stoppedJobMovedWhereItFits() {
    // t2 and t3 have half free: 4 + 4 GPUs, no room for short's 8 on one server, room for long's
    // two workers of 4.
    Plan plan = new RoundPlanner(ARYL_PLUS).plan(shortNeedsTheLongJobsServer(8, 2, 1, List.of()));

    assertThat(plan.changes())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("long", Plan.Change.MOVE, "short", Plan.Change.START));
    assertThat(plan.target("short")).isEqualTo(Allocation.of("t1", 1));
    assertThat(plan.target("long")).isEqualTo(Allocation.of(Map.of("t2", 1, "t3", 1)));
  }

  @Test
  @DisplayName(
      "the room a stop freed beyond the gang it started goes to the jobs still waiting first, and a"
          + " stopped job only gets what is left")
  void waitingJobsBeforeTheStoppedOne() {
    // t1 has 12 GPUs, all long's; t2 and t3 are full. "next" (4 GPUs) fit nowhere in phase 1 and
    // has no job worth stopping left once short stopped long: it starts in the 4 GPUs short leaves
    // on t1, and long, which would need 12, is stopped.
    Job next = fourGpuJob("next", 1, 4_000);
    Plan plan =
        new RoundPlanner(ARYL_PLUS).plan(shortNeedsTheLongJobsServer(12, 3, 2, List.of(next)));

    assertThat(plan.changes())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "long", Plan.Change.PREEMPT,
                "short", Plan.Change.START,
                "next", Plan.Change.START));
    assertThat(plan.target("next")).isEqualTo(Allocation.of("t1", 1));
    assertThat(plan.waiting()).as("nobody left waiting").isEmpty();
  }

  /** 1-GPU jobs submitted {@code agoH} hours before NOW, for the senior lane. */
  static Job queuedFor(String id, double agoH) {
    return Job.builder(id).workers(1, 1).remainingS(1_000).submitTimeS(NOW - agoH * 3600).build();
  }

  @Test
  @DisplayName(
      "with preemption the senior lane is its share of the pool, where the paper's widens it to half"
          + " the pool while the starving backlog is small")
  void laneIsItsShareWithPreemption() {
    // Four starving 1-GPU jobs (waited 13-16 h, the guard's wait is 12 h) and a pool of 20 GPUs:
    // the backlog fits, so aryl's lane is half the pool (10 GPUs, all four), aryl+'s a tenth (2).
    List<Job> queued =
        List.of(queuedFor("q1", 16), queuedFor("q2", 15), queuedFor("q3", 14), queuedFor("q4", 13));
    List<Job> aryl =
        ArylPolicy.ARYL
            .applyTo(PolicyConfig.defaults())
            .starvationGuard()
            .jumpers(queued, List.of(), NOW, 20);
    List<Job> arylPlus = ARYL_PLUS.starvationGuard().jumpers(queued, List.of(), NOW, 20);

    assertThat(aryl).extracting(Job::id).containsExactly("q1", "q2", "q3", "q4");
    assertThat(arylPlus).extracting(Job::id).containsExactly("q1", "q2");
  }

  @Test
  @DisplayName("the rule's knobs are checked, naming the field and the value")
  void checked() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CheckpointPreemption.shorterOnly(0.5, 1))
        .withMessageContaining("policy.preemption.factor")
        .withMessageContaining("0.5");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CheckpointPreemption.shorterOnly(2, -1))
        .withMessageContaining("policy.preemption.budget")
        .withMessageContaining("-1");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Job.builder("j").remainingS(1).preemptions(-1).build())
        .withMessageContaining("job(j).preemptions")
        .withMessageContaining("-1");
    assertThat(CheckpointPreemption.OFF.enabled()).isFalse();
    assertThat(IntStream.of(CheckpointPreemption.DEFAULT.budget())).containsExactly(10);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new CheckpointPreemption(2, 10, 0, 3600))
        .withMessageContaining("policy.preemption.agedAfterS")
        .withMessageContaining("0");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new CheckpointPreemption(2, 10, 3600, -1))
        .withMessageContaining("policy.preemption.servedS")
        .withMessageContaining("-1");
  }
}
