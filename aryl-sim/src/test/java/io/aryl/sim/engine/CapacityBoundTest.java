package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.aryl.sim.engine.CapacityBound.Work;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("CapacityBound: SRPT on one machine as fast as all the GPUs, solved by hand")
class CapacityBoundTest {
  private static final double EPS = 1e-9;

  @Test
  @DisplayName("jobs all there at 0 run shortest first: flows 1, 3, 6 on a machine of 8 GPUs")
  void allAtOnce() {
    // Work 8, 16, 24 GPU-s on 8 GPUs: 1 s, 2 s, 3 s each, back to back: 1, 3, 6; mean 10/3.
    assertThat(
            CapacityBound.meanSrptFlowS(
                List.of(new Work(0, 24), new Work(0, 8), new Work(0, 16)), 8))
        .isCloseTo(10.0 / 3, within(EPS));
  }

  @Test
  @DisplayName("a short job arriving preempts a long one with more left")
  void shortArrivalPreempts() {
    // A: 10 GPU-s at 0; B: 2 at 4, on 1 GPU. At 4 A has 6 left > 2: B runs 4..6 (flow 2), A ends at
    // 12 (flow 12).
    assertThat(CapacityBound.meanSrptFlowS(List.of(new Work(0, 10), new Work(4, 2)), 1))
        .isCloseTo(7, within(EPS));
  }

  @Test
  @DisplayName("a job arriving with more work than is left of the running one waits")
  void longArrivalWaits() {
    // A: 10 at 0; B: 8 at 4 (A has 6 left < 8): A ends at 10, B at 18 (flow 14); mean (10 + 14) /
    // 2.
    assertThat(CapacityBound.meanSrptFlowS(List.of(new Work(0, 10), new Work(4, 8)), 1))
        .isCloseTo(12, within(EPS));
  }

  @Test
  @DisplayName("an idle gap: the next job starts at its release")
  void idleGap() {
    // A: 4 at 0 on 2 GPUs ends at 2; B: 6 at 10 ends at 13: flows 2 and 3.
    assertThat(CapacityBound.meanSrptFlowS(List.of(new Work(10, 6), new Work(0, 4)), 2))
        .isCloseTo(2.5, within(EPS));
  }

  @Test
  @DisplayName("under overload the bound grows with the queue, where the per-job bound does not")
  void overload() {
    // 10 jobs of 100 GPU-s at 0 on 10 GPUs: each takes 10 s alone, SRPT ends them at 10, 20, ...,
    // 100: mean 55.
    List<Work> jobs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      jobs.add(new Work(0, 100));
    }
    assertThat(CapacityBound.meanSrptFlowS(jobs, 10)).isCloseTo(55, within(EPS));
  }

  @Test
  @DisplayName(
      "no cheaper than any schedule: below processor sharing and first-come-first-served on random jobs")
  void belowOtherSingleMachineSchedules() {
    Random rnd = new Random(7);
    for (int round = 0; round < 200; round++) {
      List<Work> jobs = new ArrayList<>();
      int n = 1 + rnd.nextInt(12);
      for (int i = 0; i < n; i++) {
        jobs.add(new Work(rnd.nextInt(20), 1 + rnd.nextInt(30)));
      }
      double capacity = 1 + rnd.nextInt(4);
      double srpt = CapacityBound.meanSrptFlowS(jobs, capacity);
      assertThat(srpt).as("SRPT of %s", jobs).isLessThanOrEqualTo(fcfs(jobs, capacity) + EPS);
    }
  }

  @Test
  @DisplayName("bad input names what was wrong")
  void badInput() {
    assertThatThrownBy(() -> CapacityBound.meanSrptFlowS(List.of(new Work(0, 1)), 0))
        .hasMessageContaining("capacity")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> new Work(0, -1)).hasMessageContaining("-1");
    assertThat(CapacityBound.meanSrptFlowS(List.of(), 4)).isZero();
  }

  /**
   * Mean flow of first-come-first-served on the same machine: a feasible schedule, so never below
   * SRPT.
   */
  private static double fcfs(List<Work> jobs, double capacity) {
    List<Work> sorted = new ArrayList<>(jobs);
    sorted.sort(java.util.Comparator.comparingDouble(Work::releaseS));
    double t = 0;
    double flow = 0;
    for (Work w : sorted) {
      t = Math.max(t, w.releaseS()) + w.workGpuS() / capacity;
      flow += t - w.releaseS();
    }
    return flow / jobs.size();
  }
}
