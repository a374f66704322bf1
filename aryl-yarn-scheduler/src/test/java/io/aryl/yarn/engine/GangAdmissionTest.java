package io.aryl.yarn.engine;

import static io.aryl.yarn.engine.EngineRig.TRAINING;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Gang admission on two training nodes of 8 GPUs, as hadoop-it's {@code GangAdmissionIT} runs it on
 * real daemons: A holds 12 GPUs; B, predicted shortest, needs 8 at once; C needs 4. B is first in
 * line but does not fit: it is promised nothing, C fits the 4 free GPUs and goes ahead of it, and B
 * starts whole once A is gone.
 *
 * <p>The IT keeps what needs the ResourceManager: that the Capacity Scheduler allocates nothing of
 * a gang the plan did not admit, and that with Aryl off the outcome is the stock scheduler's,
 * partial gang included.
 */
@DisplayName(
    "Gang admission: a gang that does not fit holds nothing, a smaller job backfills, the gang starts whole"
        + " later")
class GangAdmissionTest {
  private final EngineRig rig = new EngineRig(RoundEngineTest.CONF);

  @AfterEach
  void close() throws InterruptedException {
    rig.close();
  }

  /** A holds all of t1 and half of t2; B and C ask for their gangs. */
  private void aHoldsTwelve() {
    rig.node("t1", TRAINING, 8).node("t2", TRAINING, 8).job("a", 12, 12, 1, 600);
    for (int i = 0; i < 12; i++) {
      rig.worker("a", i < 8 ? "t1" : "t2");
    }
    rig.asking("a", 0);
    rig.round(1_000_000);
    rig.job("b", 8, 8, 1, 100, 1).job("c", 4, 4, 1, 1_000, 2);
  }

  @Test
  @DisplayName("while A holds 12 of 16 GPUs, B is promised nothing and C gets the 4 free ones")
  void theGangThatDoesNotFitHoldsNothing() {
    aHoldsTwelve();

    Outcome o = rig.after(1_000);

    assertThat(o.promises().book().admitted("b")).as("B admitted").isFalse();
    assertThat(o.promises().book().target("b").totalWorkers()).as("B's target").isZero();
    assertThat(o.promises().book().target("c").workersByServer()).isEqualTo(Map.of("t2", 4));
    assertThat(RoundEngineTest.granted(o)).containsExactly("c");
    assertThat(o.actions(Action.Diagnose.class))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.appId()).isEqualTo("b");
              assertThat(d.message())
                  .as("C's gang takes the 4 free GPUs in the same plan")
                  .isEqualTo(
                      "Aryl: waiting for 8 workers x 1 GPU (8 GPUs) on training; 0 GPUs free now, largest node 0 free");
            });
    rig.allocateGrants(o);
    assertThat(rig.workersOf("b")).isZero();
    assertThat(rig.workersOf("c")).isEqualTo(4);
    assertThat(rig.after(1_000).promises().book().admitted("b"))
        .as("B admitted a round later")
        .isFalse();
  }

  @Test
  @DisplayName(
      "once A is gone, B is admitted whole in the next round and granted all 8 workers at once")
  void theGangStartsWholeOnceRoomFrees() {
    aHoldsTwelve();
    rig.allocateGrants(rig.after(1_000));

    rig.finish("a", true);
    Outcome o = rig.after(1_000);

    assertThat(o.promises().book().admitted("b")).isTrue();
    assertThat(o.promises().book().target("b").totalWorkers()).isEqualTo(8);
    assertThat(RoundEngineTest.granted(o)).contains("b");
    rig.allocateGrants(o);
    assertThat(rig.workersOf("b")).isEqualTo(8);
    assertThat(rig.workersOf("c")).as("C keeps its workers").isEqualTo(4);
  }
}
