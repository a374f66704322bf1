package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.loan.LoanPolicy;
import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanDecider.Memory;
import io.aryl.labels.LoanDecider.Observation;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("LoanDecisions: the decider's memory from one decision to the next, and the holds on a decision")
class LoanDecisionsTest {
  static final long NOW = 10_000;

  /** 100 rps per server, no headroom, no margin; no hold, no cooldown, at most 4 at once. */
  private final LoanDecisions decisions =
      new LoanDecisions(new LoanDecider(new LoanDecider.Settings(new LoanPolicy(100, 0, 0), 0, 0, 4)));

  /** 4 inference servers: 2 at home and idle, 2 on loan. */
  private static Observation at(double rate) {
    return new Observation(NOW, rate, true, 4, 2, 2, 0);
  }

  /** No refusal, a refusal whose backoff ends after {@link #NOW}, or one that ended at it. */
  enum Backoff {
    NONE(ReclaimBackoff.NONE),
    RUNNING(ReclaimBackoff.NONE.refused(NOW - 50, 100, "only 1 are loaned")),
    OVER(ReclaimBackoff.NONE.refused(NOW - 100, 100, "only 1 are loaned"));

    final ReclaimBackoff value;

    Backoff(ReclaimBackoff value) {
      this.value = value;
    }
  }

  @ParameterizedTest(name = "[{index}] {6}")
  @CsvSource(delimiter = '|', textBlock = """
      # rate | in transit | backoff | loan | reclaim | reason ends with          | case
        100  | false      | NONE    | 1    | 0       | loan 1                    | the decider's loan
        100  | true       | NONE    | 0    | 0       | earlier reclaim request   | no loan while a request is on its way
        100  | false      | RUNNING | 1    | 0       | loan 1                    | the backoff holds reclaims only
        400  | false      | NONE    | 0    | 2       | reclaim 2                 | the decider's reclaim
        400  | true       | NONE    | 0    | 0       | earlier reclaim request   | no reclaim while one is on its way
        400  | false      | RUNNING | 0    | 0       | at 10050 (in 50 ms)       | held until the backoff's end
        400  | false      | OVER    | 0    | 2       | reclaim 2                 | asked again at the backoff's end
        200  | true       | RUNNING | 0    | 0       | nothing to loan           | nothing to hold
      """)
  @DisplayName("holds what the decider cannot see")
  void holds(double rate, boolean inTransit, Backoff backoff, int loan, int reclaim, String reasonEnd, String why) {
    Decision d = decisions.decide(at(rate), inTransit, backoff.value);

    assertThat(d.loan()).as(why).isEqualTo(loan);
    assertThat(d.reclaim()).as(why).isEqualTo(reclaim);
    assertThat(d.reason()).as(why).endsWith(reasonEnd);
    assertThat(d.needed()).as(why).isEqualTo((int) Math.ceil(rate / 100));
    assertThat(decisions.last()).as(why).isEqualTo(new LoanDecisions.Taken(d, NOW));
  }

  @Test
  @DisplayName("a held reclaim says why, with the scheduler's last refusal")
  void heldReclaimSaysWhy() {
    Decision d = decisions.decide(at(400), false, Backoff.RUNNING.value);
    assertThat(d.reason()).isEqualTo("rate 400.0 rps needs 4 server(s), 2 at home, 0 coming back: reclaim 2; held:"
        + " the scheduler refused 1 time(s) in a row (only 1 are loaned), next attempt at 10050 (in 50 ms)");
  }

  @Test
  @DisplayName("the memory moves on even when the decision is held: a held reclaim still starts the cooldown")
  void memoryMovesOnWhenHeld() {
    decisions.decide(at(400), true, ReclaimBackoff.NONE);
    assertThat(decisions.memory()).isEqualTo(new Memory(-1, NOW));
  }

  @Test
  @DisplayName("no decision restarts the loan hold, keeps the cooldown, and shows the servers needed when known")
  void noDecision() {
    LoanDecisions held = new LoanDecisions(new LoanDecider(
        new LoanDecider.Settings(new LoanPolicy(100, 0, 0), 1_000, 0, 4)));
    held.decide(new Observation(NOW, 400, true, 4, 0, 2, 0), false, ReclaimBackoff.NONE);
    held.decide(new Observation(NOW + 100, 0, true, 4, 2, 0, 2), false, ReclaimBackoff.NONE);
    assertThat(held.memory()).as("the hold started").isEqualTo(new Memory(NOW + 100, NOW));

    held.none(NOW + 200, 150, "the scheduler is recovering");
    assertThat(held.memory()).isEqualTo(new Memory(-1, NOW));
    assertThat(held.last()).isEqualTo(new LoanDecisions.Taken(
        new Decision(0, 0, 2, "no decision: the scheduler is recovering", new Memory(-1, NOW)), NOW + 200));

    held.none(NOW + 300, Double.NaN, "the ResourceManager is unreachable: down");
    assertThat(held.last().decision().needed()).as("demand unknown").isEqualTo(-1);
  }

  @Test
  @DisplayName("a new leader starts without memory; there is no last decision before the first")
  void forget() {
    assertThat(decisions.last()).isNull();
    decisions.decide(at(400), false, ReclaimBackoff.NONE);
    decisions.forget();
    assertThat(decisions.memory()).isEqualTo(Memory.NONE);
  }
}
