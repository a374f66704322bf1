package io.aryl.yarn.engine;

import static io.aryl.yarn.engine.EngineRig.TRAINING;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An ApplicationMaster on a training node, as aryl-am places it on a cluster whose every node is
 * labelled ({@code --am-node-label auto}): memory and a vcore, no GPU. The round counts it as no
 * worker of its job and no GPU taken from the plan, and never drains it as a plain application's
 * container or a partial gang's. hadoop-it's {@code FullyLabelledIT} runs it on real daemons.
 */
@DisplayName("An AM on a training node: no worker, no GPU, never drained")
class AmOnATrainingNodeTest {
  private final EngineRig rig = new EngineRig(RoundEngineTest.CONF);

  @AfterEach
  void close() throws InterruptedException {
    rig.close();
  }

  @Test
  @DisplayName("the job's workers fill the node's 8 GPUs beside its AM, and keep them")
  void theAmTakesNoGpu() {
    rig.node("t1", TRAINING, 8).job("j", 2, 4, 2, 600);
    String am = rig.start("j", "t1", 0, true);
    rig.asking("j", 4);

    Outcome o = rig.round(1_000_000);
    assertThat(o.promises().book().admitted("j")).isTrue();
    assertThat(o.promises().book().target("j").workersByServer()).isEqualTo(Map.of("t1", 4));
    rig.allocateGrants(o);
    assertThat(rig.workersOf("j")).as("workers, the AM not among them").isEqualTo(4);

    Outcome next = rig.after(1_000);
    assertThat(next.promises().book().target("j").workersByServer()).isEqualTo(Map.of("t1", 4));
    assertThat(RoundEngineTest.noticed(next)).as("notices").isEmpty();
    assertThat(RoundEngineTest.killed(next)).as("kills").isEmpty();
    assertThat(rig.node("t1").containers).containsKey(am);
  }

  @Test
  @DisplayName(
      "on a full node a second job's AM waits beside the first job's: nothing is drained, and the"
          + " second job is told no GPU is free")
  void aFullNodeDrainsNoAm() {
    rig.node("t1", TRAINING, 8).job("j", 4, 4, 2, 600);
    rig.start("j", "t1", 0, true);
    rig.allocateGrants(rig.round(1_000_000));
    assertThat(rig.workersOf("j")).isEqualTo(4);

    rig.job("k", 1, 1, 2, 60, 1);
    rig.start("k", "t1", 0, true);
    Outcome o = rig.after(1_000);

    assertThat(o.promises().book().admitted("k")).as("k admitted").isFalse();
    assertThat(RoundEngineTest.noticed(o)).as("notices").isEmpty();
    assertThat(RoundEngineTest.killed(o)).as("kills").isEmpty();
    assertThat(o.actions(Action.Diagnose.class))
        .singleElement()
        .satisfies(
            d ->
                assertThat(d.message())
                    .isEqualTo(
                        "Aryl: waiting for 1 worker x 2 GPUs (2 GPUs) on training; 0 GPUs free"
                            + " now, largest node 0 free"));
  }
}
