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
}
