package io.aryl.yarn.engine;

import static io.aryl.yarn.engine.EngineRig.INFERENCE;
import static io.aryl.yarn.engine.EngineRig.TRAINING;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.reclaim.Reclaim;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Which loaned node a one-node reclaim returns when each of two jobs, one worker of 8 GPUs apiece,
 * runs alone on a loaned node of its own (training's own node is full): returning a node preempts
 * its job, priced at 8 GPUs x (the seconds it loses + the restart). "checkpointing" started first
 * and "silent" 12 s later. By the time since their workers changed, the older job loses more and
 * the younger job's node goes back; once the ApplicationMasters' reports say the older one
 * checkpointed a second ago, it loses least and its node goes back.
 *
 * <p>The end-to-end path (an aryl-am worker writing the marker, its ApplicationMaster reporting it,
 * the scheduler polling the report) is hadoop-it's {@code CheckpointReclaimIT}.
 */
@DisplayName(
    "A one-node reclaim returns the node whose job loses least: by checkpoint reports, else by age")
class ReclaimByCheckpointTest {
  private static final long T0 = 1_001_000L;
  private static final long SILENT_STARTS_MS = T0 + 10_000;
  private static final long RECLAIM_MS = SILENT_STARTS_MS + 12_000;

  private final EngineRig rig = new EngineRig(RoundEngineTest.CONF);

  @BeforeEach
  void twoJobsOnTwoLoanedNodes() {
    rig.node("t1", TRAINING, 8).node("i1", INFERENCE, 8).node("i2", INFERENCE, 8);
    rig.start("blocker", "t1", 8, false);
    rig.round(T0 - 1_000); // i1 and i2 seen at home in the inference pool
    rig.node("i1").label = TRAINING; // both lent
    rig.node("i2").label = TRAINING;

    rig.job("checkpointing", 1, 1, 8, 600, 0);
    rig.worker("checkpointing", "i1");
    rig.round(T0);
    rig.job("silent", 1, 1, 8, 3_600, 10);
    rig.worker("silent", "i2");
    rig.round(SILENT_STARTS_MS);
  }

  @AfterEach
  void close() throws InterruptedException {
    rig.close();
  }

  private Reclaim reclaimOneNode() {
    rig.round(RECLAIM_MS);
    return rig.engine.reclaim(rig.view(), 1, null, 0).reclaim();
  }

  @Test
  @DisplayName(
      "with the reports, the node of the job that checkpointed a second ago goes back, priced by that second")
  void checkpointedJobsNodeGoes() {
    rig.checkpoint("checkpointing", RECLAIM_MS - 1_000);

    Reclaim r = reclaimOneNode();

    assertThat(r.nodes()).containsExactly("i1");
    assertThat(r.jobActions()).isEqualTo(Map.of("checkpointing", "PREEMPT"));
    assertThat(r.plannedCostGpuS())
        .as("8 GPUs x (about 1 s lost + the restart)")
        .isLessThan(8 * (12 + 120));
  }

  @Test
  @DisplayName(
      "without reports, the younger job's node goes back: the older one has more to lose since its change")
  void youngerJobsNodeGoes() {
    Reclaim r = reclaimOneNode();

    assertThat(r.nodes()).containsExactly("i2");
    assertThat(r.jobActions()).isEqualTo(Map.of("silent", "PREEMPT"));
  }

  @Test
  @DisplayName(
      "a report 21 s old prices the older job by those 21 s: still above the younger job's 12, its node stays")
  void staleReportChangesNothing() {
    rig.checkpoint("checkpointing", T0 + 1_000);

    assertThat(reclaimOneNode().nodes()).containsExactly("i2");
  }
}
