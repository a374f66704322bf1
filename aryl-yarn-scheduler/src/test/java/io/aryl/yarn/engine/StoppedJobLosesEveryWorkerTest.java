package io.aryl.yarn.engine;

import static io.aryl.yarn.engine.EngineRig.INFERENCE;
import static io.aryl.yarn.engine.EngineRig.TRAINING;
import static io.aryl.yarn.engine.RoundEngineTest.GRACE_MS;
import static io.aryl.yarn.engine.RoundEngineTest.killed;
import static io.aryl.yarn.engine.RoundEngineTest.noticed;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A job the engine stops as a whole (a reclaim that would leave it below its minimum, a plan's
 * PREEMPT for a shorter job or a team's guarantee) loses every worker at the grace, wherever it
 * runs: as the plan and the simulator's {@code preempt} take it. Its ApplicationMaster was told
 * that all of them go; nothing that happens to one worker's node during the grace (the node not
 * being returned, the plan wanting a worker there again) keeps that worker alive.
 */
@DisplayName("A job stopped as a whole loses every worker at the grace, wherever it runs")
class StoppedJobLosesEveryWorkerTest {
  private static final long T0 = 1_000_000L;

  private EngineRig rig;

  @AfterEach
  void close() {
    rig.close();
  }

  /**
   * Job a (two workers of one GPU, both base) runs on t1, a training node of two GPUs, and on i1, a
   * node of one GPU inference lent; a reclaim of one node takes i1 back, which leaves a below its
   * minimum: it is preempted. Returns a's workers, on t1 and on i1.
   */
  private List<String> reclaimPreemptsAJobOnAKeptAndAReturnedNode() {
    rig = new EngineRig(RoundEngineTest.CONF);
    rig.node("t1", TRAINING, 2).node("i1", INFERENCE, 1).job("a", 2, 2, 1, 36_000);
    rig.round(T0); // i1 seen in the inference pool
    rig.node("i1").label = TRAINING; // lent
    String onT1 = rig.worker("a", "t1");
    String onI1 = rig.worker("a", "i1");
    rig.asking("a", 0);
    rig.after(1_000);

    RoundEngine.Started started = rig.engine.reclaim(rig.view(), 1, null, 0);
    assertThat(started.reclaim().nodes()).containsExactly("i1");
    assertThat(started.reclaim().jobActions()).isEqualTo(Map.of("a", "PREEMPT"));
    assertThat(noticed(started.outcome()))
        .as("both workers are told: the job stops")
        .containsExactlyInAnyOrder(onT1, onI1);
    return List.of(onT1, onI1);
  }

  @Test
  @DisplayName(
      "a reclaim that preempts a job kills its worker on a node it does not return too, at the"
          + " grace, and the job is out of the plan")
  void reclaimKillsTheWorkerOnAKeptNode() {
    List<String> workers = reclaimPreemptsAJobOnAKeptAndAReturnedNode();

    assertThat(rig.after(GRACE_MS - 500).actions(Action.Kill.class))
        .as("before the grace")
        .isEmpty();
    Outcome due = rig.after(500);

    assertThat(killed(due))
        .as("the worker on t1, which the reclaim does not return, as well as the one on i1")
        .containsExactlyInAnyOrderElementsOf(workers);
    assertThat(due.promises().book().target("a").isEmpty()).as("a is out of the plan").isTrue();
    rig.kill(due);
    rig.relabel(rig.after(1_000));
    assertThat(rig.workersOf("a")).isZero();
    assertThat(rig.engine.status().reclaimsInFlight()).as("i1 was returned").isEmpty();
  }

  @Test
  @DisplayName(
      "a reclaim's stop holds when the job is planned again during the grace, and for a newly active"
          + " scheduler that reads the drains back")
  void reclaimStopHoldsWhenPlannedAgainAndAfterARestart() {
    List<String> workers = reclaimPreemptsAJobOnAKeptAndAReturnedNode();
    rig.asking("a", 2); // its ApplicationMaster asks for its gang again
    rig.node("t2", TRAINING, 1); // and a node joins that could run it with t1
    Outcome replanned = rig.after(GRACE_MS / 2);
    assertThat(replanned.promises().book().target("a").workersOn("t1"))
        .as("the plan wants a worker of a on t1 again")
        .isEqualTo(1);

    rig.close();
    rig = rig.restart();
    Outcome due = rig.after(GRACE_MS);

    assertThat(killed(due))
        .as("the resumed stop takes both workers")
        .containsExactlyInAnyOrderElementsOf(workers);
  }

  @Test
  @DisplayName(
      "a job the plan stops for a shorter one loses the worker on a node the plan gives it again"
          + " during the grace")
  void planStopHoldsWhenAWorkersNodeIsPlannedForTheJobAgain() {
    Map<String, String> conf = new HashMap<>(RoundEngineTest.CONF);
    conf.put("aryl.scheduler.policy", "aryl+");
    rig = new EngineRig(conf);
    rig.node("t1", TRAINING, 4).node("t2", TRAINING, 8);
    rig.job("long", 2, 2, 4, 36_000, 0).job("other", 1, 1, 4, 1_000, 0);
    String onT1 = rig.worker("long", "t1");
    String onT2 = rig.worker("long", "t2");
    rig.worker("other", "t2");
    rig.asking("long", 0);
    rig.round(T0);
    rig.checkpoint("long", T0 + 59_000);
    rig.job("short", 1, 1, 4, 600, 60);

    Outcome stopped = rig.round(T0 + 60_000);
    assertThat(stopped.promises().book().target("long").isEmpty()).isTrue();
    assertThat(noticed(stopped)).containsExactlyInAnyOrder(onT1, onT2);
    assertThat(stopped.promises().book().target("short").workersOn("t1")).isEqualTo(1);
    String freedNode = "t2";

    rig.finish("other", true); // other ends during the grace: half of t2 is free
    rig.asking("long", 2); // long's ApplicationMaster asks for its gang again
    rig.node("t3", TRAINING, 4); // and a node joins that runs it beside t2
    rig.after(250);
    Outcome replanned = rig.after(250);
    assertThat(replanned.promises().book().target("long").workersOn(freedNode))
        .as("the plan wants a worker of long on %s again", freedNode)
        .isEqualTo(1);

    Outcome due = rig.after(GRACE_MS - 500);
    assertThat(killed(due))
        .as("both workers the stop told, the one on %s too", freedNode)
        .containsExactlyInAnyOrder(onT1, onT2);
  }

  @Test
  @DisplayName(
      "a job stopped for a team's guarantee loses the worker on a node the plan gives it again"
          + " during the grace")
  void teamStopHoldsWhenAWorkersNodeIsPlannedForTheJobAgain() {
    Map<String, String> conf = new HashMap<>(RoundEngineTest.CONF);
    conf.put("aryl.scheduler.tenant.reclaim-delay-s", "1");
    rig = new EngineRig(conf);
    rig.node("t0", TRAINING, 4).node("t1", TRAINING, 4).node("t2", TRAINING, 8);
    rig.tenants(Map.of("vision", 0.7, "nlp", 0.3)); // of 16 GPUs: vision 11, nlp 4
    rig.job("nlp", 2, 2, 4, 36_000, 0).team("nlp", "nlp");
    rig.job("small", 1, 1, 4, 36_000, 0).team("small", "nlp");
    rig.job("other", 1, 1, 4, 36_000, 0).team("other", "vision");
    String onT1 = rig.worker("nlp", "t1");
    String onT2 = rig.worker("nlp", "t2");
    rig.worker("small", "t0");
    rig.worker("other", "t2");
    rig.round(T0);
    rig.round(T0 + 299_000);
    // nlp checkpointed a second ago, small never: stopping nlp throws away less work, and leaves
    // its team at its guarantee of 4 GPUs
    rig.checkpoint("nlp", T0 + 299_000);
    rig.job("vision", 1, 1, 4, 600, 299).team("vision", "vision"); // within vision's 11 GPUs

    Outcome stopped = rig.round(T0 + 300_000);
    for (int i = 0; i < 3 && noticed(stopped).isEmpty(); i++) {
      stopped = rig.after(1_000); // vision's job waits the team's reclaim delay
    }
    assertThat(stopped.promises().book().target("nlp").isEmpty())
        .as("nlp, borrowing, cannot shrink below its gang: stopped")
        .isTrue();
    assertThat(noticed(stopped)).containsExactlyInAnyOrder(onT1, onT2);
    assertThat(stopped.promises().book().target("vision").workersOn("t1")).isEqualTo(1);

    rig.finish("other", true); // other ends during the grace: half of t2 is free
    rig.asking("nlp", 2); // nlp's ApplicationMaster asks for its gang again
    rig.node("t3", TRAINING, 4); // and a node joins that runs it beside t2
    rig.after(250);
    Outcome replanned = rig.after(250);
    assertThat(replanned.promises().book().target("nlp").workersOn("t2"))
        .as("the plan wants a worker of nlp on t2 again")
        .isEqualTo(1);

    Outcome due = rig.after(GRACE_MS - 500);
    assertThat(killed(due))
        .as("both workers the stop told, the one on t2 too")
        .containsExactlyInAnyOrder(onT1, onT2);
  }
}
