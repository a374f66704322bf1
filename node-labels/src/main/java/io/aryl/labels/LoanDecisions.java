package io.aryl.labels;

import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanDecider.Memory;
import io.aryl.labels.LoanDecider.Observation;

/**
 * The leader's run of decisions: the {@link LoanDecider}'s memory from one decision to the next, the holds on a
 * decision that the decider does not see (an earlier reclaim request still unanswered, the refusal backoff), and the
 * last decision with its time.
 *
 * <p>The memory is the leader's: a new leader starts it afresh ({@link #forget()}). Decides on one thread;
 * {@link #last()} may be read from any.
 */
final class LoanDecisions {
  /** A decision and when it was taken, epoch ms. */
  record Taken(Decision decision, long atMs) {}

  private final LoanDecider decider;
  private Memory memory = Memory.NONE;
  private volatile Taken last;

  LoanDecisions(LoanDecider decider) {
    this.decider = decider;
  }

  /**
   * The decider's decision on {@code o}, held back when it must wait.
   *
   * @param requestInTransit an earlier reclaim request may still reach the scheduler: neither loan nor reclaim until
   *     its answer is known, or the same nodes could be asked for twice
   * @param backoff the scheduler's recent refusals: a reclaim waits for the next attempt's time
   */
  Decision decide(Observation o, boolean requestInTransit, ReclaimBackoff backoff) {
    long now = o.nowMs();
    Decision d = decider.decide(o, memory);
    if (requestInTransit && (d.loan() > 0 || d.reclaim() > 0)) {
      d = new Decision(0, 0, d.needed(), "waiting for the scheduler's answer to an earlier reclaim request",
          d.memory());
    }
    if (d.reclaim() > 0 && !backoff.allows(now)) {
      d = new Decision(0, 0, d.needed(), String.format("%s; held: the scheduler refused %d time(s) in a row (%s),"
          + " next attempt at %d (in %d ms)", d.reason(), backoff.refusals(), backoff.lastRefusal(),
          backoff.nextAttemptMs(), backoff.nextAttemptMs() - now), d.memory());
    }
    last = new Taken(d, now);
    memory = d.memory();
    return d;
  }

  /**
   * No loan and no reclaim now, and why. The loan hold starts afresh: demand was not judged while no decision was
   * taken, so it has not allowed a loan without a break. The last reclaim (the cooldown) stays.
   *
   * @param rate the demanded rate, for the servers needed; NaN when unknown
   */
  void none(long now, double rate, String why) {
    int needed = Double.isNaN(rate) ? -1 : decider.settings().policy().serversNeeded(rate);
    memory = new Memory(-1, memory.lastReclaimMs());
    last = new Taken(new Decision(0, 0, needed, "no decision: " + why, memory), now);
  }

  /** The last decision, or null before the first. */
  Taken last() {
    return last;
  }

  Memory memory() {
    return memory;
  }

  /** Starts afresh for a new leader: no hold under way, no reclaim remembered. */
  void forget() {
    memory = Memory.NONE;
  }
}
