package io.aryl.yarn.engine;

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
 * aryl+ in the ResourceManager: the plan's "stop job J to start a much shorter one" carried out as
 * the generation change an ApplicationMaster already knows from shrinks and reclaims. J's workers
 * get a PreemptionMessage, are killed once the grace is over, and the shorter job's gang is granted
 * on the GPUs they leave. One training node of 8 GPUs; "long" (one 8-GPU worker, 10 h predicted)
 * runs on it and checkpointed a second before "short" (one 8-GPU worker, 10 min) arrives.
 */
@DisplayName("aryl+ in the ResourceManager: a long job stopped for a much shorter one")
class ShortJobPreemptionTest {
  private static final long T0 = 1_000_000L;

  private static Map<String, String> conf(String policy) {
    Map<String, String> conf = new HashMap<>(RoundEngineTest.CONF);
    conf.put("aryl.scheduler.policy", policy);
    return conf;
  }

  private EngineRig rig;

  @AfterEach
  void close() throws InterruptedException {
    rig.close();
  }

  /** long runs alone on t1; short arrives a minute later. Returns long's worker. */
  private String longRunsThenShortArrives(String policy) {
    rig = new EngineRig(conf(policy));
    rig.node("t1", TRAINING, 8);
    rig.job("long", 1, 1, 8, 36_000, 0);
    String worker = rig.worker("long", "t1");
    rig.round(T0);
    rig.checkpoint("long", T0 + 59_000);
    rig.job("short", 1, 1, 8, 600, 60);
    return worker;
  }

  @Test
  @DisplayName(
      "aryl+: long's worker is asked back at once and killed at the grace, short's gang promised"
          + " throughout and granted on the freed GPUs; long waits in the queue for its gang again")
  void arylPlusStopsTheLongJob() {
    String longWorker = longRunsThenShortArrives("aryl+");

    Outcome asked = rig.round(T0 + 60_000);
    assertThat(noticed(asked)).as("long's worker asked back").containsExactly(longWorker);
    assertThat(asked.promises().book().target("short").workersByServer())
        .isEqualTo(Map.of("t1", 1));
    assertThat(asked.promises().book().admitted("long")).as("long is out of the plan").isFalse();

    Outcome during = rig.after(GRACE_MS - 500);
    assertThat(killed(during)).as("not before the grace").isEmpty();
    assertThat(during.promises().book().target("short").totalWorkers())
        .as("short keeps its promise while its room drains")
        .isEqualTo(1);

    Outcome due = rig.after(500);
    assertThat(killed(due)).containsExactly(longWorker);
    rig.kill(due);
    rig.asking("long", 1); // its ApplicationMaster asks for its gang again, as after a reclaim
    List<String> started = rig.allocateGrants(rig.after(250));
    assertThat(started).hasSize(1);
    assertThat(rig.workersOf("short", "t1")).isEqualTo(started);

    Outcome after = rig.after(1_000);
    assertThat(noticed(after)).as("short is not stopped for long, 60x longer").isEmpty();
    assertThat(after.promises().book().admitted("long")).isFalse();
  }

  /**
   * "served" (one 8-GPU worker, 2 h predicted) starts alone on t1 at T0; "aged" (one 8-GPU worker,
   * 1 h, only half as long: never worth a stop by the factor) has waited since {@code agedSubmitS};
   * the round comes 3,700 s later, when served has had over an hour of service.
   */
  private String servedRunsWhileAnotherWaits(double agedSubmitS) {
    rig = new EngineRig(conf("aryl+"));
    rig.node("t1", TRAINING, 8);
    rig.job("served", 1, 1, 8, 7_200, 0);
    String worker = rig.worker("served", "t1");
    rig.round(T0);
    rig.job("aged", 1, 1, 8, 3_600, agedSubmitS);
    rig.checkpoint("served", T0 + 3_650_000);
    return worker;
  }

  @Test
  @DisplayName(
      "aryl+ ages: a job that never ran and waited over an hour has a job that has run an hour"
          + " asked back, though it is only half as long")
  void agedJobStopsAServedOne() {
    String servedWorker = servedRunsWhileAnotherWaits(0);

    Outcome o = rig.round(T0 + 3_700_000);

    assertThat(noticed(o)).containsExactly(servedWorker);
    assertThat(o.promises().book().target("aged").workersByServer()).isEqualTo(Map.of("t1", 1));
  }

  @Test
  @DisplayName("aryl+: after 50 minutes of waiting the same job has not aged: served runs on")
  void notYetAged() {
    servedRunsWhileAnotherWaits(700);

    Outcome o = rig.round(T0 + 3_700_000);

    assertThat(noticed(o)).isEmpty();
    assertThat(o.promises().book().admitted("aged")).isFalse();
  }

  @Test
  @DisplayName("aryl, the paper's policy, lets long run to completion: short waits")
  void arylLetsItRun() {
    longRunsThenShortArrives("aryl");

    Outcome o = rig.round(T0 + 60_000);

    assertThat(noticed(o)).isEmpty();
    assertThat(o.promises().book().admitted("short")).isFalse();
    assertThat(o.promises().book().target("long").totalWorkers()).isEqualTo(1);
  }
}
