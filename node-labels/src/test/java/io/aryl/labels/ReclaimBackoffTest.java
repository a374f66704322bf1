package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("ReclaimBackoff: the wait before asking again for a reclaim the scheduler refused")
class ReclaimBackoffTest {
  @ParameterizedTest(name = "interval {0} ms, refusal {1} in a row: wait {2} ms")
  @CsvSource({
      "50, 1, 50", "50, 2, 100", "50, 3, 200", "50, 11, 51200", "50, 12, 60000", "50, 1000, 60000",
      "5000, 1, 5000", "5000, 4, 40000", "5000, 5, 60000",
      "120000, 1, 60000"})
  @DisplayName("starts at the decision interval and doubles with every refusal in a row, to at most 60 s")
  void delays(long intervalMs, int refusals, long expectedMs) {
    assertThat(ReclaimBackoff.delayMs(refusals, intervalMs)).isEqualTo(expectedMs);
  }

  @Test
  @DisplayName("holds the next request until its time; with no refusal nothing is held")
  void allows() {
    assertThat(ReclaimBackoff.NONE.allows(0)).isTrue();
    ReclaimBackoff once = ReclaimBackoff.NONE.refused(1_000, 50, "only 0 are loaned");
    assertThat(once.refusals()).isEqualTo(1);
    assertThat(once.nextAttemptMs()).isEqualTo(1_050);
    assertThat(once.lastRefusal()).isEqualTo("only 0 are loaned");
    assertThat(once.allows(1_049)).isFalse();
    assertThat(once.allows(1_050)).isTrue();
    ReclaimBackoff twice = once.refused(1_050, 50, "still 0");
    assertThat(twice.nextAttemptMs()).isEqualTo(1_150);
    assertThat(twice.lastRefusal()).isEqualTo("still 0");
  }

  @Test
  @DisplayName("a refusal count with no reason, or a time with no refusal, is refused naming the fields")
  void checks() {
    assertThatThrownBy(() -> new ReclaimBackoff(0, 5, null)).hasMessageContaining("nextAttemptMs=5");
    assertThatThrownBy(() -> new ReclaimBackoff(-1, 0, null)).hasMessageContaining("refusals");
    assertThatThrownBy(() -> ReclaimBackoff.delayMs(1, 0)).hasMessageContaining("intervalMs");
  }
}
