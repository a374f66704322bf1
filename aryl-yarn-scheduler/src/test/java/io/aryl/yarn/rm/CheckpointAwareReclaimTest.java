package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.job.CheckpointReport;
import io.aryl.core.job.JobShape;
import io.aryl.core.model.GpuType;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.reclaim.ReclaimPlan;
import io.aryl.core.reclaim.ReclaimPlanner;
import io.aryl.core.reclaim.ReclaimRequest;
import io.aryl.core.victim.Fate;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.JobProgress;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.round.SnapshotTranslator;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two inelastic jobs of 2 workers x 2 GPUs, each alone on a loaned node of 4 GPUs; one node must go
 * back, so one job falls below its minimum and is preempted, at {@code 4 GPUs x (seconds lost + 120
 * s restart)}. "steady" has had the same workers for 3000 s, "changed" changed its workers 60 s
 * ago. By the time since the change alone, steady is the dearer one (4 x 3120 = 12480 GPU-s against
 * 4 x 180 = 720) and changed's node goes; once their ApplicationMasters report their checkpoints,
 * the job that checkpointed seconds ago is the cheap one.
 */
@DisplayName(
    "Reclaims priced by real checkpoints: the node of the job that checkpointed most recently goes back")
class CheckpointAwareReclaimTest {
  private static final long NOW = 1_700_000_000_000L;
  private static final String STEADY = "app-steady";
  private static final String CHANGED = "app-changed";
  private static final String STEADY_NODE = "inf-1";
  private static final String CHANGED_NODE = "inf-2";
  private static final SnapshotTranslator TRANSLATOR =
      new SnapshotTranslator("training", GpuType.of("gpu"), node -> node.startsWith("inf"));

  /** As the planning loop builds it: the default restart, the default re-scale. */
  private static final ReclaimPlanner PLANNER =
      new ReclaimPlanner(
          new ReclaimCostModel(
              ReclaimCostModel.defaults().restartOverheadS(),
              ArylSettings.defaults().policy().rescaleOverheadS()));

  /**
   * What an ApplicationMaster answers: a checkpoint so many seconds ago, none, or no answer at all.
   */
  private record Answer(String what, long agoS) {
    static Answer ago(long s) {
      return new Answer("checkpointed " + s + " s ago", s);
    }

    static final Answer NONE = new Answer("no checkpoint", -1);
    static final Answer UNREACHABLE = new Answer("unreachable", -2);

    CheckpointReport report() throws IOException {
      if (equals(UNREACHABLE)) {
        throw new IOException("connection refused");
      }
      return agoS < 0 ? CheckpointReport.NONE : new CheckpointReport(NOW - agoS * 1000, 100);
    }

    @Override
    public String toString() {
      return what;
    }
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(
            "neither reports a checkpoint: priced by the time since the change, as before",
            Answer.NONE,
            Answer.NONE,
            CHANGED_NODE,
            CHANGED,
            720.0),
        Arguments.of(
            "both unreachable: priced as before",
            Answer.UNREACHABLE,
            Answer.UNREACHABLE,
            CHANGED_NODE,
            CHANGED,
            720.0),
        Arguments.of(
            "steady checkpointed 5 s ago, changed 2400 s ago (before its change): steady's node goes",
            Answer.ago(5),
            Answer.ago(2400),
            STEADY_NODE,
            STEADY,
            500.0),
        Arguments.of(
            "only steady reports, 5 s ago: steady's node goes",
            Answer.ago(5),
            Answer.NONE,
            STEADY_NODE,
            STEADY,
            500.0),
        Arguments.of(
            "only changed reports, 2400 s ago: a checkpoint before its change does not raise its price",
            Answer.NONE,
            Answer.ago(2400),
            CHANGED_NODE,
            CHANGED,
            720.0),
        Arguments.of(
            "steady checkpointed 50 s ago: 4 x 170 = 680 < 720, steady's node goes",
            Answer.ago(50),
            Answer.ago(2400),
            STEADY_NODE,
            STEADY,
            680.0),
        Arguments.of(
            "steady checkpointed 100 s ago: 4 x 220 = 880 > 720, changed's node goes",
            Answer.ago(100),
            Answer.ago(2400),
            CHANGED_NODE,
            CHANGED,
            720.0),
        Arguments.of(
            "changed checkpointed 10 s ago, after its change, steady 50 s ago: changed's node goes",
            Answer.ago(50),
            Answer.ago(10),
            CHANGED_NODE,
            CHANGED,
            520.0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  @DisplayName("a one-node reclaim preempts the job whose preemption loses least")
  void reclaimPicksCheapestPreemption(
      String what, Answer steady, Answer changed, String node, String preempted, double costGpuS)
      throws IOException {
    ReclaimPlan plan = reclaimOne(steady, changed);

    assertThat(plan.isFeasible()).isTrue();
    assertThat(plan.servers()).as("the node returned").containsExactly(node);
    assertThat(plan.jobsWith(Fate.PREEMPT)).as("the job preempted").containsExactly(preempted);
    assertThat(plan.costGpuS()).as("GPU-seconds lost").isEqualTo(costGpuS);
  }

  /** The round's translation and the reclaim planner, as the engine's ReclaimSteps runs them. */
  private static ReclaimPlan reclaimOne(Answer steady, Answer changed) {
    Map<String, Answer> byUrl = Map.of("http://am-steady/", steady, "http://am-changed/", changed);
    CheckpointTimes times =
        new CheckpointTimes(
            10_000,
            () -> List.of(STEADY, CHANGED),
            id -> id.equals(STEADY) ? "http://am-steady/" : "http://am-changed/",
            url -> byUrl.get(url).report());
    times.poll();

    List<NodeView> nodes =
        List.of(
            new NodeView(
                STEADY_NODE, "training", 4, List.of(worker("c1", STEADY), worker("c2", STEADY))),
            new NodeView(
                CHANGED_NODE,
                "training",
                4,
                List.of(worker("c3", CHANGED), worker("c4", CHANGED))));
    Map<String, AppView> apps = new TreeMap<>();
    for (String id : List.of(STEADY, CHANGED)) {
      apps.put(id, new AppView(id, new JobShape(2, 2, 2, 36_000, ""), 0, 0));
    }
    Map<String, JobProgress> progress =
        Map.of(
            STEADY, new JobProgress(3000, 3000),
            CHANGED, new JobProgress(2900, 60));
    RoundInput in =
        TRANSLATOR.translate(
            3100,
            nodes,
            apps,
            PlanBook.EMPTY,
            Set.of(),
            Set.of(),
            progress,
            (id, p) -> times.sinceCheckpointS(id, p, NOW));
    return PLANNER.plan(in.state(), ReclaimRequest.any(1));
  }

  private static long seq;

  private static ContainerView worker(String id, String app) {
    return new ContainerView(id, app, ++seq, 2, false);
  }
}
