package io.aryl.yarn.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.job.JobShape;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "JobProgressMeter: each job's progress, measured between rounds and kept across restarts")
class JobProgressMeterTest {
  private static final AppView JOB = new AppView("app_1", new JobShape(2, 4, 1, 3600, ""), 0, 0);

  private static List<NodeView> workers(int onA, int onB) {
    List<ContainerView> a = new java.util.ArrayList<>();
    List<ContainerView> b = new java.util.ArrayList<>();
    for (int i = 0; i < onA; i++) {
      a.add(new ContainerView("a" + i, "app_1", i, 1, false));
    }
    for (int i = 0; i < onB; i++) {
      b.add(new ContainerView("b" + i, "app_1", 10 + i, 1, false));
    }
    return List.of(new NodeView("A", "training", 8, a), new NodeView("B", "training", 8, b));
  }

  @Test
  @DisplayName("work is counted at the pace of the job's minimum width, from its second round on")
  void attainedAtMinimumPace() {
    JobProgressMeter m = new JobProgressMeter();
    m.update(Map.of("app_1", JOB), workers(2, 2), 0);
    m.update(Map.of("app_1", JOB), workers(2, 2), 10_000);
    assertThat(m.get("app_1").attainedBaseS())
        .as("4 workers for 10 s at min 2")
        .isCloseTo(20, within(1e-9));
    assertThat(m.get("app_1").sinceChangeS()).isCloseTo(10, within(1e-9));
  }

  @Test
  @DisplayName("a change of width restarts the time since the last change")
  void widthChangeResetsSinceChange() {
    JobProgressMeter m = new JobProgressMeter();
    m.update(Map.of("app_1", JOB), workers(2, 2), 0);
    m.update(Map.of("app_1", JOB), workers(2, 2), 10_000);
    m.update(Map.of("app_1", JOB), workers(2, 0), 12_000);
    assertThat(m.get("app_1").sinceChangeS()).isZero();
  }

  @Test
  @DisplayName(
      "a meter restored from the record prices the job as before and knows where its workers ran")
  void restoredMeterContinues() {
    JobProgressMeter before = new JobProgressMeter();
    before.update(Map.of("app_1", JOB), workers(3, 1), 0);
    before.update(Map.of("app_1", JOB), workers(3, 1), 5_000);

    JobProgressMeter after = new JobProgressMeter();
    after.restore(before.toRecord());

    assertThat(after.get("app_1")).isEqualTo(before.get("app_1"));
    assertThat(after.nodesWithWorkers()).containsExactlyInAnyOrder("A", "B");
    after.update(Map.of("app_1", JOB), workers(3, 1), 60_000);
    assertThat(after.get("app_1").sinceChangeS())
        .as("the first round after adds nothing: no measured interval")
        .isEqualTo(before.get("app_1").sinceChangeS());
  }

  @Test
  @DisplayName(
      "it is stored when a worker moves, and otherwise every "
          + JobProgressMeter.SAVE_EVERY_MS
          + " ms")
  void savedOnChangeOrPeriodically() {
    JobProgressMeter m = new JobProgressMeter();
    m.update(Map.of("app_1", JOB), workers(2, 2), 0);
    assertThat(m.saveDue(0)).isTrue();
    m.saved(0);
    m.update(Map.of("app_1", JOB), workers(2, 2), 1_000);
    assertThat(m.saveDue(1_000)).isFalse();
    assertThat(m.saveDue(JobProgressMeter.SAVE_EVERY_MS)).isTrue();
    m.update(Map.of("app_1", JOB), workers(2, 1), 2_000);
    assertThat(m.saveDue(2_000)).as("a worker left").isTrue();
  }
}
