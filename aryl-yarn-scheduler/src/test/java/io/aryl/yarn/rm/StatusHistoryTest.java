package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.HistorySample;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusHistoryTest {
  private static HistorySample sample(long timeMs, int loaned) {
    return new HistorySample(timeMs, loaned, 0, Map.of("training", 1), Map.of("training", 8));
  }

  @Test
  void keepsOneSampleAnIntervalAndAtMostTheCapacity() {
    StatusHistory h = new StatusHistory(1000, 3);
    assertThat(h.add(sample(0, 0))).isTrue();
    assertThat(h.due(999)).isFalse();
    assertThat(h.add(sample(999, 1))).as("within the interval").isFalse();
    for (int i = 1; i <= 5; i++) {
      assertThat(h.add(sample(i * 1000L, i))).isTrue();
    }
    assertThat(h.samples()).extracting(HistorySample::timeMs).containsExactly(3000L, 4000L, 5000L);
    assertThat(h.samples()).extracting(HistorySample::loanedNodes).containsExactly(3, 4, 5);
  }

  @Test
  void theDefaultKeepsSixHoursAtOneAMinute() {
    StatusHistory h = new StatusHistory();
    for (int i = 0; i < 1000; i++) {
      h.add(sample(i * 60_000L, 0));
    }
    assertThat(h.samples()).hasSize(360);
    assertThat(h.samples().get(0).timeMs()).isEqualTo(640 * 60_000L);
  }

  @Test
  void answersWithItsIntervalCapacityAndSamplesOldestFirst() {
    StatusHistory h = new StatusHistory(1000, 3);
    h.add(sample(0, 1));
    h.add(sample(1000, 2));
    assertThat(h.answer().intervalMs()).isEqualTo(1000);
    assertThat(h.answer().capacity()).isEqualTo(3);
    assertThat(h.answer().samples()).isEqualTo(List.of(sample(0, 1), sample(1000, 2)));
  }
}
