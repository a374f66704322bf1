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

  @Test
  @DisplayName("a job preempted once is not preempted again within its guard (a budget of one)")
  void budgetOfOne() {
    PolicyConfig once = ARYL_PLUS.withPreemption(new CheckpointPreemption(2, 1));

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
        .isThrownBy(() -> new CheckpointPreemption(0.5, 1))
        .withMessageContaining("policy.preemption.factor")
        .withMessageContaining("0.5");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new CheckpointPreemption(2, -1))
        .withMessageContaining("policy.preemption.budget")
        .withMessageContaining("-1");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Job.builder("j").remainingS(1).preemptions(-1).build())
        .withMessageContaining("job(j).preemptions")
        .withMessageContaining("-1");
    assertThat(CheckpointPreemption.OFF.enabled()).isFalse();
    assertThat(IntStream.of(CheckpointPreemption.DEFAULT.budget())).containsExactly(10);
  }
}
