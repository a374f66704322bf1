package io.aryl.yarn.round;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("TenantShares: each team's guarantee in GPUs of the pool's own servers")
class TenantSharesTest {
  private static final TenantShares NLP_VISION = TenantShares.of(Map.of("nlp", 0.4, "vision", 0.6));

  @Test
  @DisplayName("shares of the own GPUs, rounded down")
  void sharesRoundedDown() {
    assertThat(NLP_VISION.guarantees(15).guarantees()).isEqualTo(Map.of("nlp", 6, "vision", 9));
  }

  @Test
  @DisplayName("a gang waiting for drains holds GPUs outside the snapshot: no team's guarantee dips, its own team's"
      + " counts what it holds")
  void gangWaitingForDrains() {
    // 15 own GPUs, 8 of them held or kept for vision's starting gang: the snapshot has 7.
    assertThat(NLP_VISION.guarantees(7, Map.of("vision", 8)).guarantees()).isEqualTo(Map.of("nlp", 6, "vision", 1));
    assertThat(NLP_VISION.guarantees(15, Map.of()).guarantees()).isEqualTo(Map.of("nlp", 6, "vision", 9));
  }

  @Test
  @DisplayName("a team holding outside more than its guarantee: the snapshot's GPUs alone, so that they fit")
  void moreThanItsGuarantee() {
    // nlp's starting gang holds 12 of 15: nlp's 6 is met, vision's 9 no longer fits in the 3 left.
    assertThat(NLP_VISION.guarantees(3, Map.of("nlp", 12)).guarantees()).isEqualTo(Map.of("nlp", 1, "vision", 1));
  }
}
