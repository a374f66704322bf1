package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.core.loan.LoanPolicy;
import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanDecider.Memory;
import io.aryl.labels.LoanDecider.Observation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LoanDeciderTest {
  /** 100 rps per server, no headroom, margin 1; hold 1000 ms, cooldown 5000 ms, at most 2 per step. */
  private static final LoanDecider DECIDER = new LoanDecider(
      new LoanDecider.Settings(new LoanPolicy(100, 0, 1), 1000, 5000, 2));

  @ParameterizedTest(name = "[{index}] {11}")
  @CsvSource(delimiter = '|', textBlock = """
      # now  | rate | servers | idle | loaned | reclaiming | lendableSince | lastReclaim | loan | reclaim | lendableSinceAfter | case
        10000 | 800 | 8 | 0 | 0 | 0 |   -1 |   -1 | 0 | 0 |   -1 | need covers the pool: nothing
        10000 | 650 | 8 | 1 | 0 | 0 |   -1 |   -1 | 0 | 0 |   -1 | 7 needed + margin 1 = 8: nothing
        10000 | 550 | 8 | 2 | 0 | 0 |   -1 |   -1 | 0 | 0 | 10000 | 1 lendable: the hold starts
        10500 | 550 | 8 | 2 | 0 | 0 | 10000 |   -1 | 0 | 0 | 10000 | held 500 of 1000 ms
        11000 | 550 | 8 | 2 | 0 | 0 | 10000 |   -1 | 1 | 0 | 10000 | held long enough: loan 1
        11000 | 100 | 8 | 7 | 0 | 0 | 10000 |   -1 | 2 | 0 | 10000 | 6 lendable, capped at max-step 2
        11000 | 100 | 8 | 1 | 0 | 0 | 10000 |   -1 | 1 | 0 | 10000 | 6 lendable, only 1 idle
        11000 | 100 | 8 | 0 | 0 | 0 | 10000 |   -1 | 0 | 0 | 10000 | lendable but none idle
        11000 | 100 | 8 | 2 | 6 | 0 | 10000 |   -1 | 0 | 0 |   -1 | 6 on loan already: nothing
        11000 | 100 | 8 | 2 | 4 | 2 | 10000 |   -1 | 0 | 0 |   -1 | coming back count as away
        11000 | 550 | 8 | 2 | 0 | 0 | 10000 | 8000 | 0 | 0 | 10000 | cooling down after a reclaim
        14000 | 550 | 8 | 2 | 0 | 0 | 10000 | 8000 | 1 | 0 | 10000 | cooldown over
        11000 | 650 | 8 | 0 | 1 | 0 | 10000 |   -1 | 0 | 0 |   -1 | inside the margin band: keep the loan
        11000 | 650 | 8 | 0 | 2 | 0 |   -1 |   -1 | 0 | 1 |   -1 | 7 needed, 6 home: reclaim only the shortfall
        11000 | 800 | 8 | 0 | 3 | 0 |   -1 |   -1 | 0 | 3 |   -1 | all needed: reclaim all 3
        11000 | 800 | 8 | 0 | 1 | 2 |   -1 |   -1 | 0 | 1 |   -1 | 2 already coming back: ask for 1 more
        11000 | 700 | 8 | 0 | 0 | 2 |   -1 |   -1 | 0 | 0 |   -1 | enough coming back: nothing
        11000 | 900 | 8 | 0 | 2 | 0 |   -1 |   -1 | 0 | 2 |   -1 | need beyond the pool: reclaim every loaned node
      """)
  void decides(long now, double rate, int servers, int idle, int loaned, int reclaiming, long lendableSince,
      long lastReclaim, int loan, int reclaim, long lendableSinceAfter, String why) {
    Decision d = DECIDER.decide(new Observation(now, rate, true, servers, idle, loaned, reclaiming),
        new Memory(lendableSince, lastReclaim));
    assertThat(d.loan()).as("loan: %s (%s)", why, d.reason()).isEqualTo(loan);
    assertThat(d.reclaim()).as("reclaim: %s (%s)", why, d.reason()).isEqualTo(reclaim);
    assertThat(d.memory().lendableSinceMs()).as("lendable since: %s", why).isEqualTo(lendableSinceAfter);
    assertThat(d.memory().lastReclaimMs()).as("last reclaim: %s", why).isEqualTo(reclaim > 0 ? now : lastReclaim);
  }

  @Test
  void demandUnknownDoesNothingAndRestartsTheHold() {
    Decision d = DECIDER.decide(new Observation(20000, Double.NaN, false, 8, 8, 0, 0), new Memory(10000, -1));
    assertThat(d.loan()).isZero();
    assertThat(d.reclaim()).isZero();
    assertThat(d.reason()).contains("demand unknown");
    assertThat(d.memory().lendableSinceMs()).isEqualTo(-1);
  }

  @Test
  void partialDemandStillReclaimsButNeverLoans() {
    Decision low = DECIDER.decide(new Observation(20000, 0, false, 8, 8, 0, 0), new Memory(10000, -1));
    assertThat(low.loan()).isZero();
    assertThat(low.reason()).contains("did not answer");
    Decision high = DECIDER.decide(new Observation(20000, 800, false, 8, 0, 3, 0), Memory.NONE);
    assertThat(high.reclaim()).isEqualTo(3);
  }

  @Test
  void hysteresisDoesNotFlapAroundAThreshold() {
    // Demand oscillating between 550 and 650 rps: loans 1 once, never reclaims it, never loans a second.
    Memory m = Memory.NONE;
    int loaned = 0;
    int reclaims = 0;
    for (int t = 0; t < 100; t++) {
      double rate = t % 2 == 0 ? 550 : 650;
      Decision d = DECIDER.decide(new Observation(t * 500L, rate, true, 8, 8 - loaned, loaned, 0), m);
      loaned += d.loan();
      loaned -= d.reclaim();
      reclaims += d.reclaim();
      m = d.memory();
    }
    assertThat(reclaims).isZero();
    assertThat(loaned).isLessThanOrEqualTo(1);
  }

  @Test
  void preconditionsNameFieldAndValue() {
    assertThatThrownBy(() -> new Observation(0, -1, true, 8, 0, 0, 0)).hasMessageContaining("rate")
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> new Observation(0, 1, true, 2, 1, 1, 1))
        .hasMessageContaining("inferenceServers=2");
    assertThatThrownBy(() -> new LoanDecider.Settings(new LoanPolicy(1, 0, 0), -5, 0, 1))
        .hasMessageContaining("loanHoldMs").hasMessageContaining("-5");
    assertThatThrownBy(() -> new LoanDecider.Settings(new LoanPolicy(1, 0, 0), 0, 0, 0))
        .hasMessageContaining("loanMaxStep");
  }
}
