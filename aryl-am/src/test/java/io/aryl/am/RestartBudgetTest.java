package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RestartBudgetTest {
  @ParameterizedTest(name = "max {0}: failure {1} allowed = {2}")
  @CsvSource({"0,1,false", "1,1,true", "1,2,false", "3,3,true", "3,4,false"})
  void failuresBeyondTheBudgetAreRefused(int max, int failures, boolean lastAllowed) {
    RestartBudget b = new RestartBudget(max);
    boolean allowed = true;
    for (int i = 0; i < failures; i++) {
      allowed = b.spend();
    }
    assertThat(allowed).isEqualTo(lastAllowed);
    assertThat(b.used()).isEqualTo(failures);
  }
}
