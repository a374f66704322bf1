package io.aryl.yarn.engine;

import static io.aryl.yarn.engine.EngineRig.INFERENCE;
import static io.aryl.yarn.engine.EngineRig.TRAINING;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.reclaim.Reclaim;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Job a (2..4, one GPU a worker) runs its two base workers on t1 and one extra worker on i1, a node
 * of two GPUs that inference lent; rigid job c runs its one worker beside it. Gang b (one worker)
 * arrives with no GPU idle: the round shrinks a's worker on i1 for it. Before that worker is gone,
 * inference takes i1 back. The round's snapshot leaves draining workers out, so the reclaim's plan
 * does not name a; the reclaim must still judge a by the shrink-or-preempt rule (it keeps its
 * minimum: shrunk), not stop it whole.
 */
@DisplayName("A reclaim of a node whose only worker of a job is already being shrunk")
class ReclaimOfADrainingWorkerTest {
  private static final long GRACE_MS = 2_000;

  private final EngineRig rig =
      new EngineRig(
          Map.of(
              "aryl.scheduler.shrink-grace-ms",
              String.valueOf(GRACE_MS),
              "aryl.scheduler.reclaim.default-deadline-ms",
              "60000"));

  @AfterEach
  void close() throws InterruptedException {
    rig.close();
  }

  private static List<String> noticed(Outcome o) {
    return o.actions(Action.Notice.class).stream().map(Action.Notice::containerId).toList();
  }

  private static List<String> killed(Outcome o) {
    return o.actions(Action.Kill.class).stream().map(Action.Kill::containerId).toList();
  }

  @Test
  @DisplayName("shrinks the job, which keeps its minimum, instead of preempting every worker of it")
  void shrinksTheJobItsPlanDidNotName() {
    rig.node("t1", TRAINING, 2)
        .node("i1", INFERENCE, 2)
        .job("a", 2, 4, 1, 36_000)
        .job("c", 1, 1, 1, 36_000);
    rig.round(1_000_000); // i1 seen in the inference pool
    rig.node("i1").label = TRAINING; // lent
    String base1 = rig.worker("a", "t1");
    String base2 = rig.worker("a", "t1");
    String extra = rig.worker("a", "i1");
    String rigid = rig.worker("c", "i1");
    rig.asking("a", 0);
    rig.after(1_000);

    rig.job("b", 1, 1, 1, 600);
    Outcome forB = rig.after(1_000);
    assertThat(noticed(forB)).as("a's extra worker, shrunk for b's gang").containsExactly(extra);

    RoundEngine.Started started = rig.engine.reclaim(rig.view(), 1, null, 0);
    Reclaim r = started.reclaim();
    assertThat(r.nodes()).containsExactly("i1");
    assertThat(r.jobActions())
        .as("the plan saw no worker of a on i1, only c's")
        .containsEntry("c", "PREEMPT")
        .doesNotContainKey("a");
    assertThat(noticed(started.outcome()))
        .as("c's worker; a's base workers are not asked back")
        .contains(rigid)
        .doesNotContain(base1, base2);

    Outcome due = rig.after(GRACE_MS);
    assertThat(killed(due)).containsExactlyInAnyOrder(extra, rigid);
    rig.kill(due);
    Outcome later = rig.after(GRACE_MS);
    assertThat(killed(later)).isEmpty();
    assertThat(rig.workersOf("a", "t1"))
        .as("a runs on at its minimum")
        .containsExactly(base1, base2);
    assertThat(r.containersPreempted()).as("c's worker alone").isEqualTo(1);
  }
}
