package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusHistoryTest {
  private static Map<String, Object> status(int loaned, int usedTraining) {
    return Map.of(
        "nodes", List.of(
            Map.of("node", "a", "label", "inference", "gpus", 8, "usedGpus", 3),
            Map.of("node", "b", "label", "training", "gpus", 8, "usedGpus", usedTraining),
            Map.of("node", "c", "label", "training", "gpus", 4, "usedGpus", 1)),
        "loanedNodes", java.util.Collections.nCopies(loaned, Map.of()),
        "applications", List.of(Map.of("application", "x", "actualWorkers", 0),
            Map.of("application", "y", "actualWorkers", 2)));
  }

  @Test
  void aSampleCountsLoansQueuedJobsAndGpusByPool() {
    StatusHistory.Sample s = StatusHistory.Sample.of(5, status(2, 6));
    assertThat(s.loanedNodes()).isEqualTo(2);
    assertThat(s.queuedJobs()).as("applications without a worker").isEqualTo(1);
    assertThat(s.gpusUsed()).isEqualTo(Map.of("inference", 3, "training", 7));
    assertThat(s.gpus()).isEqualTo(Map.of("inference", 8, "training", 12));
  }

  @Test
  void keepsOneSampleAnIntervalAndAtMostTheCapacity() {
    StatusHistory h = new StatusHistory(1000, 3);
    assertThat(h.add(StatusHistory.Sample.of(0, status(0, 0)))).isTrue();
    assertThat(h.due(999)).isFalse();
    assertThat(h.add(StatusHistory.Sample.of(999, status(1, 0)))).as("within the interval").isFalse();
    for (int i = 1; i <= 5; i++) {
      assertThat(h.add(StatusHistory.Sample.of(i * 1000L, status(i, 0)))).isTrue();
    }
    assertThat(h.samples()).extracting(StatusHistory.Sample::timeMs).containsExactly(3000L, 4000L, 5000L);
    assertThat(h.samples()).extracting(StatusHistory.Sample::loanedNodes).containsExactly(3, 4, 5);
  }

  @Test
  void theDefaultKeepsSixHoursAtOneAMinute() {
    StatusHistory h = new StatusHistory();
    for (int i = 0; i < 1000; i++) {
      h.add(StatusHistory.Sample.of(i * 60_000L, status(0, 0)));
    }
    assertThat(h.samples()).hasSize(360);
    assertThat(h.samples().get(0).timeMs()).isEqualTo(640 * 60_000L);
  }
}
