package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.core.loan.LoanPolicy;
import io.aryl.labels.LoanDecider.Change;
import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanDecider.Memory;
import io.aryl.labels.LoanDecider.Observation;
import io.aryl.labels.LoanDecider.SchedulerState;
import io.aryl.labels.LoanDecider.Target;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "LoanDecider: the loan target, from demand, the inference servers, what is on loan and what came before")
class LoanDeciderTest {
  /**
   * 100 rps per server, no headroom, margin 1; hold 1000 ms, cooldown 5000 ms, at most 2 per step,
   * back in 30 s.
   */
  private static final LoanDecider DECIDER =
      new LoanDecider(new LoanDecider.Settings(new LoanPolicy(100, 0, 1), 1000, 5000, 2, 30_000));

  /**
   * {@code -}: none; {@code N}: N on loan, no deadline; {@code N@T}: N on loan, the rest back by T.
   */
  private static Target target(String s) {
    if (s.equals("-")) {
      return null;
    }
    String[] p = s.split("@", -1);
    return new Target(Integer.parseInt(p[0]), p.length > 1 ? Long.parseLong(p[1]) : 0);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      # case                                                                       | now   | rate | all demand | scheduler  | servers | onLoan | inForce | since | lowered | target   | change  | since after | lowered after
      the need covers every server: the target stays 0                             | 10000 | 800 | true  | SETTLED    | 8 | 0 | 0       |    -1 |   -1 | 0        | KEPT    |    -1 |    -1
      7 needed + margin 1 = 8: nothing more may be on loan                         | 10000 | 650 | true  | SETTLED    | 8 | 0 | 0       |    -1 |   -1 | 0        | KEPT    |    -1 |    -1
      room for 1 more: the hold starts, the target stands                          | 10000 | 550 | true  | SETTLED    | 8 | 0 | 0       |    -1 |   -1 | 0        | KEPT    | 10000 |    -1
      held 500 of 1000 ms: the target stands                                       | 10500 | 550 | true  | SETTLED    | 8 | 0 | 0       | 10000 |   -1 | 0        | KEPT    | 10000 |    -1
      held long enough: raised to 1                                                | 11000 | 550 | true  | SETTLED    | 8 | 0 | 0       | 10000 |   -1 | 1        | RAISED  | 10000 |    -1
      room for 6: raised by at most max-step 2 above the 0 on loan                 | 11000 | 100 | true  | SETTLED    | 8 | 0 | 0       | 10000 |   -1 | 2        | RAISED  | 10000 |    -1
      room for 6 and 3 on loan: raised from 3 to 5                                 | 11000 | 100 | true  | SETTLED    | 8 | 3 | 3       | 10000 |   -1 | 5        | RAISED  | 10000 |    -1
      the scheduler lent 1 of the 3 allowed: not raised past 1 + max-step          | 11000 | 100 | true  | SETTLED    | 8 | 1 | 3       | 10000 |   -1 | 3        | KEPT    | 10000 |    -1
      room for 6 and 6 allowed: the target stands and the hold ends                | 11000 | 100 | true  | SETTLED    | 8 | 6 | 6       | 10000 |   -1 | 6        | KEPT    |    -1 |    -1
      lowered 3 s ago: cooling down, the target stands                             | 11000 | 550 | true  | SETTLED    | 8 | 0 | 0       | 10000 | 8000 | 0        | KEPT    | 10000 |  8000
      lowered 6 s ago: the cooldown is over, raised                                | 14000 | 550 | true  | SETTLED    | 8 | 0 | 0       | 10000 | 8000 | 1        | RAISED  | 10000 |  8000
      inside the margin band: 1 on loan stands                                     | 11000 | 650 | true  | SETTLED    | 8 | 1 | 1       | 10000 |   -1 | 1        | KEPT    |    -1 |    -1
      7 needed leaves room for 1: lowered from 2 to 1 at once, back within 30 s    | 11000 | 650 | true  | SETTLED    | 8 | 2 | 2       |    -1 |   -1 | 1@41000  | LOWERED |    -1 | 11000
      every server needed: lowered from 3 to 0                                     | 11000 | 800 | true  | SETTLED    | 8 | 3 | 3       |    -1 |   -1 | 0@41000  | LOWERED |    -1 | 11000
      a need beyond the pool: lowered to 0                                         | 11000 | 900 | true  | SETTLED    | 8 | 2 | 2       |    -1 |   -1 | 0@41000  | LOWERED |    -1 | 11000
      lowered in the middle of a hold: the hold ends                               | 11000 | 800 | true  | SETTLED    | 8 | 3 | 4       | 10000 |   -1 | 0@41000  | LOWERED |    -1 | 11000
      lowered even from a target the scheduler has not met yet                     | 11000 | 700 | true  | SETTLED    | 8 | 0 | 3       |    -1 |   -1 | 1@41000  | LOWERED |    -1 | 11000
      a demand source did not answer: not raised, the hold ends                    | 11000 | 100 | false | SETTLED    | 8 | 0 | 0       | 10000 |   -1 | 0        | KEPT    |    -1 |    -1
      a demand source did not answer: still lowered on the sources that did        | 11000 | 800 | false | SETTLED    | 8 | 2 | 2       |    -1 |   -1 | 0@41000  | LOWERED |    -1 | 11000
      the scheduler recovers: not raised                                           | 11000 | 100 | true  | RECOVERING | 8 | 0 | 0       | 10000 |   -1 | 0        | KEPT    |    -1 |    -1
      the scheduler recovers: not lowered either, its counts may miss nodes        | 11000 | 800 | true  | RECOVERING | 3 | 2 | 2       |    -1 |   -1 | 2        | KEPT    |    -1 |    -1
      no target in force yet: lowered from what is on loan                         | 11000 | 650 | true  | SETTLED    | 8 | 2 | -       |    -1 |   -1 | 1@41000  | LOWERED |    -1 | 11000
      no target in force yet, within the band: what is on loan stands             | 11000 | 650 | true  | SETTLED    | 8 | 1 | -       |    -1 |   -1 | 1        | KEPT    |    -1 |    -1
      a lowered target's deadline is sent again while it stands                    | 11000 | 650 | true  | SETTLED    | 8 | 1 | 1@20000 |    -1 | 9000 | 1@20000  | KEPT    |    -1 |  9000
      a deadline that has passed is not sent again                                 | 11000 | 650 | true  | SETTLED    | 8 | 1 | 1@5000  |    -1 | 4000 | 1        | KEPT    |    -1 |  4000
      """)
  void decides(
      String name,
      long now,
      double rate,
      boolean complete,
      SchedulerState scheduler,
      int servers,
      int onLoan,
      String inForce,
      long since,
      long lowered,
      String expected,
      Change change,
      long sinceAfter,
      long loweredAfter) {
    Decision d =
        DECIDER.decide(
            new Observation(now, rate, complete, scheduler, servers, onLoan, target(inForce)),
            new Memory(since, lowered, null));
    assertThat(d.target()).as("target: %s (%s)", name, d.reason()).isEqualTo(target(expected));
    assertThat(d.change()).as("change: %s (%s)", name, d.reason()).isEqualTo(change);
    assertThat(d.memory().lendableSinceMs())
        .as("demand allowing more since: %s", name)
        .isEqualTo(sinceAfter);
    assertThat(d.memory().lastLoweredMs()).as("last lowered: %s", name).isEqualTo(loweredAfter);
    assertThat(d.memory().last()).as("the target remembered: %s", name).isEqualTo(d.target());
  }

  @Test
  @DisplayName("demand unknown: the target stands, the hold ends, and the reason says so")
  void demandUnknownKeepsTheTarget() {
    Decision d =
        DECIDER.decide(
            new Observation(
                20000, Double.NaN, false, SchedulerState.SETTLED, 8, 3, new Target(3, 0)),
            new Memory(10000, -1, new Target(3, 0)));
    assertThat(d.target()).isEqualTo(new Target(3, 0));
    assertThat(d.change()).isEqualTo(Change.KEPT);
    assertThat(d.needed()).isEqualTo(-1);
    assertThat(d.reason()).contains("demand unknown").contains("stands");
    assertThat(d.memory().lendableSinceMs()).isEqualTo(-1);
  }

  @Test
  @DisplayName(
      "the scheduler cannot be reached: nothing to send, the last target stands, and the reason says so")
  void unreachableSchedulerSendsNothing() {
    Decision d =
        DECIDER.decide(
            new Observation(20000, 100, true, SchedulerState.UNREACHABLE, 0, 0, null),
            new Memory(10000, 5000, new Target(2, 0)));
    assertThat(d.target()).isNull();
    assertThat(d.change()).isEqualTo(Change.NONE);
    assertThat(d.reason())
        .isEqualTo("the scheduler cannot be reached: the last target (2 on loan) stands");
    assertThat(d.memory()).isEqualTo(new Memory(-1, 5000, new Target(2, 0)));
    Decision first =
        DECIDER.decide(
            new Observation(20000, 100, true, SchedulerState.UNREACHABLE, 0, 0, null), Memory.NONE);
    assertThat(first.reason()).isEqualTo("the scheduler cannot be reached: no target sent yet");
  }

  @Test
  @DisplayName(
      "a scheduler whose state was reset shows no target: the leader's last target is sent again")
  void aSchedulerWithoutTargetGetsTheLastOneAgain() {
    Decision d =
        DECIDER.decide(
            new Observation(20000, 650, true, SchedulerState.SETTLED, 8, 0, null),
            new Memory(-1, -1, new Target(1, 0)));
    assertThat(d.target()).isEqualTo(new Target(1, 0));
    assertThat(d.change()).isEqualTo(Change.KEPT);
  }

  @Test
  @DisplayName(
      "the target in force wins over the leader's memory: a successor, or a reclaim by hand, lowered it")
  void theTargetInForceIsTheBase() {
    Decision d =
        DECIDER.decide(
            new Observation(20000, 650, true, SchedulerState.SETTLED, 8, 0, new Target(0, 0)),
            new Memory(-1, -1, new Target(1, 0)));
    assertThat(d.target()).isEqualTo(new Target(0, 0));
    assertThat(d.change()).isEqualTo(Change.KEPT);
  }

  @Test
  @DisplayName("demand oscillating inside the margin band moves the target once and never back")
  void hysteresisDoesNotFlapAroundAThreshold() {
    // Demand oscillating between 550 and 650 rps: needs 6 or 7 of 8, margin 1.
    Memory m = Memory.NONE;
    Target inForce = new Target(0, 0);
    int changes = 0;
    int lowered = 0;
    for (int t = 0; t < 100; t++) {
      double rate = t % 2 == 0 ? 550 : 650;
      // The rate changes every 500 ms, within the 1000 ms hold: never raised.
      Decision d =
          DECIDER.decide(
              new Observation(
                  t * 500L, rate, true, SchedulerState.SETTLED, 8, inForce.maxOnLoan(), inForce),
              m);
      changes += d.change() == Change.KEPT ? 0 : 1;
      lowered += d.change() == Change.LOWERED ? 1 : 0;
      inForce = d.target();
      m = d.memory();
    }
    assertThat(lowered).isZero();
    assertThat(changes).isZero();
    assertThat(inForce.maxOnLoan()).isZero();
  }

  @Test
  @DisplayName("bad settings and observations are refused naming the field and the value")
  void preconditionsNameFieldAndValue() {
    assertThatThrownBy(() -> new Observation(0, -1, true, SchedulerState.SETTLED, 8, 0, null))
        .hasMessageContaining("rate")
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> new Observation(0, 1, true, SchedulerState.SETTLED, 2, 3, null))
        .hasMessageContaining("onLoan=3")
        .hasMessageContaining("inferenceServers=2");
    assertThatThrownBy(() -> new LoanDecider.Settings(new LoanPolicy(1, 0, 0), -5, 0, 1, 1))
        .hasMessageContaining("loanHoldMs")
        .hasMessageContaining("-5");
    assertThatThrownBy(() -> new LoanDecider.Settings(new LoanPolicy(1, 0, 0), 0, 0, 0, 1))
        .hasMessageContaining("loanMaxStep");
    assertThatThrownBy(() -> new LoanDecider.Settings(new LoanPolicy(1, 0, 0), 0, 0, 1, 0))
        .hasMessageContaining("returnWithinMs")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> new Target(-1, 0)).hasMessageContaining("maxOnLoan");
  }
}
