package io.aryl.yarn.engine;

import static io.aryl.yarn.engine.EngineRig.INFERENCE;
import static io.aryl.yarn.engine.EngineRig.TRAINING;
import static io.aryl.yarn.engine.RoundEngineTest.GRACE_MS;
import static io.aryl.yarn.engine.RoundEngineTest.killed;
import static io.aryl.yarn.engine.RoundEngineTest.noticed;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.JobRecord;
import io.aryl.yarn.state.Jobs;
import io.aryl.yarn.state.Section;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Each job's preemptions in the ResourceManager: counted once per stop the engine decides (a plan's
 * PREEMPT for a shorter job, a reclaim's), stored with the job's record before the job is told,
 * read back by a newly active scheduler, and handed to aryl-core, whose budget then keeps aryl+
 * from stopping a long job for shorter ones without end. The cluster of {@link
 * ShortJobPreemptionTest}: "long" (one 8-GPU worker, 10 h) runs alone on t1 and checkpointed a
 * second before "short" (one 8-GPU worker, 10 min) arrives.
 */
@DisplayName(
    "aryl+ in the ResourceManager: each job's preemptions counted once, stored, and bounding")
class PreemptionCountTest {
  private static final long T0 = 1_000_000L;
  private static final Map<String, String> CONF = conf();

  /** The budget aryl+ runs with in the ResourceManager: the configured policy's. */
  private static final int BUDGET = ArylSettings.from(CONF).policy().preemption().budget();

  private static Map<String, String> conf() {
    Map<String, String> conf = new HashMap<>(RoundEngineTest.CONF);
    conf.put("aryl.scheduler.policy", "aryl+");
    return conf;
  }

  private EngineRig rig;

  @AfterEach
  void close() {
    rig.close();
  }

  /**
   * long runs alone on t1, its store saying it was stopped {@code preemptions} times before; short
   * arrives a minute later. Returns long's worker.
   */
  private String longRunsThenShortArrives(int preemptions) throws IOException {
    EngineRig.Store store = new EngineRig.Store();
    if (preemptions > 0) {
      DurableState.open(store, T0)
          .save(Section.JOBS, new Jobs(Map.of("long", new JobRecord(0, 0, Map.of(), preemptions))));
    }
    rig = new EngineRig(CONF, store);
    rig.node("t1", TRAINING, 8);
    rig.job("long", 1, 1, 8, 36_000, 0);
    String worker = rig.worker("long", "t1");
    rig.round(T0);
    rig.checkpoint("long", T0 + 59_000);
    rig.job("short", 1, 1, 8, 600, 60);
    return worker;
  }

  /** The preemptions aryl-core was handed for the job in the engine's last round. */
  private static int plannedWith(EngineRig rig, String app) {
    return rig.engine.status().lastInput().state().job(app).preemptions();
  }

  @Test
  @DisplayName(
      "a job stopped for a shorter one has its stored count raised by one, stored by the time it is"
          + " told")
  void stopForAShorterJobIsCounted() throws IOException {
    String longWorker = longRunsThenShortArrives(0);
    assertThat(rig.storedPreemptions("long")).isZero();

    Outcome asked = rig.round(T0 + 60_000);

    assertThat(noticed(asked)).containsExactly(longWorker);
    assertThat(rig.storedPreemptions("long")).isEqualTo(1);
    assertThat(rig.storedPreemptions("short")).isZero();
    assertThat(firstWrite(rig, "jobs", "\"preemptions\":1"))
        .as("the count is stored before the drain that carries the stop out")
        .isNotNegative()
        .isLessThan(firstWrite(rig, "drains", longWorker));
  }

  /** The index of the first write of {@code section} that held {@code text}; -1 if none did. */
  private static int firstWrite(EngineRig rig, String section, String text) {
    for (int i = 0; i < rig.store.log.size(); i++) {
      var w = rig.store.log.get(i);
      if (w.getKey().equals(section) && w.getValue().contains(text)) {
        return i;
      }
    }
    return -1;
  }

  @Test
  @DisplayName(
      "a stop that cannot be stored is neither told nor counted twice: the next round stores the"
          + " one count and tells the job")
  void unstoredStopIsToldOnceStoredAndCountedOnce() throws IOException {
    String longWorker = longRunsThenShortArrives(0);
    rig.store.failing = new IOException("disk full");

    Outcome unstored = rig.round(T0 + 60_000);
    assertThat(noticed(unstored)).isEmpty();
    rig.store.failing = null;
    assertThat(rig.storedPreemptions("long")).isZero();

    Outcome stored = rig.after(1_000);
    assertThat(noticed(stored)).containsExactly(longWorker);
    assertThat(rig.storedPreemptions("long")).isEqualTo(1);
  }

  @Test
  @DisplayName(
      "the stop's later rounds, and a newly active scheduler resuming it, do not count it again;"
          + " the new scheduler plans with the stored count")
  void resumedStopIsNotCountedAgain() throws IOException {
    String longWorker = longRunsThenShortArrives(0);
    rig.round(T0 + 60_000);
    rig.asking("long", 1); // its ApplicationMaster asks for its gang again, as after a reclaim
    rig.node("t2", TRAINING, 8); // and a node joins that could run it: it is planned again
    rig.after(GRACE_MS / 2);
    assertThat(rig.storedPreemptions("long")).isEqualTo(1);

    rig.close();
    rig = rig.restart();
    rig.after(1); // may tell the job again: the new scheduler cannot know the notice arrived
    assertThat(rig.storedPreemptions("long")).as("a notice told again is no new stop").isEqualTo(1);
    assertThat(plannedWith(rig, "long")).as("read back and handed to aryl-core").isEqualTo(1);

    Outcome due = rig.after(GRACE_MS);
    assertThat(killed(due)).as("the resumed stop is carried out").containsExactly(longWorker);
    rig.kill(due);
    rig.allocateGrants(rig.after(250));
    rig.after(1_000);
    assertThat(rig.storedPreemptions("long")).isEqualTo(1);
    assertThat(plannedWith(rig, "long")).isEqualTo(1);
  }

  @Test
  @DisplayName(
      "a job stopped one short of its budget is stopped for a shorter one; at its budget, read"
          + " back from the store, it runs on and the shorter job waits")
  void budgetBindsInTheResourceManager() throws IOException {
    String oneShort = longRunsThenShortArrives(BUDGET - 1);
    Outcome stopped = rig.round(T0 + 60_000);
    assertThat(noticed(stopped)).containsExactly(oneShort);
    assertThat(rig.storedPreemptions("long")).isEqualTo(BUDGET);
    rig.close();

    longRunsThenShortArrives(BUDGET);
    Outcome atBudget = rig.round(T0 + 60_000);
    assertThat(plannedWith(rig, "long")).isEqualTo(BUDGET);
    assertThat(noticed(atBudget)).as("long is not stopped again").isEmpty();
    assertThat(atBudget.promises().book().target("long").totalWorkers()).isEqualTo(1);
    assertThat(atBudget.promises().book().admitted("short")).isFalse();
    assertThat(rig.storedPreemptions("long")).isEqualTo(BUDGET);
  }

  @Test
  @DisplayName(
      "a job a reclaim stops is counted once, also when a newly active scheduler resumes the"
          + " reclaim")
  void reclaimStopIsCountedOnce() throws IOException {
    rig = new EngineRig(CONF);
    rig.node("t1", TRAINING, 1).node("i1", INFERENCE, 1).job("a", 2, 2, 1, 36_000);
    rig.round(T0); // i1 seen in the inference pool
    rig.node("i1").label = TRAINING; // lent
    String onT1 = rig.worker("a", "t1");
    String onI1 = rig.worker("a", "i1");
    rig.after(1_000);

    RoundEngine.Started started = rig.engine.reclaim(rig.view(), 1, null, 0);
    assertThat(started.reclaim().jobActions()).isEqualTo(Map.of("a", "PREEMPT"));
    assertThat(noticed(started.outcome())).containsExactlyInAnyOrder(onT1, onI1);
    assertThat(rig.storedPreemptions("a")).isEqualTo(1);

    rig.asking("a", 2); // its ApplicationMaster asks for its gang again
    rig.node("t2", TRAINING, 2); // and a node joins that could run it: it is planned again
    rig.after(GRACE_MS / 2);
    rig.close();
    rig = rig.restart();
    Outcome due = rig.after(GRACE_MS);
    assertThat(killed(due))
        .as("the resumed reclaim is carried out: the job's every worker, on t1 too")
        .containsExactlyInAnyOrder(onT1, onI1);
    assertThat(rig.storedPreemptions("a")).isEqualTo(1);
    assertThat(plannedWith(rig, "a")).isEqualTo(1);
  }
}
