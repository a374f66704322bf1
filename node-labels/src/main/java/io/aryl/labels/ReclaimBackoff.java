package io.aryl.labels;

import io.aryl.core.model.Checks;

/**
 * How long the leader waits before asking again for a reclaim the scheduler refused: the decision interval after the
 * first refusal, twice as long after each further refusal in a row, at most {@link #MAX_DELAY_MS}. An accepted
 * reclaim starts it again ({@link #NONE}). Without it, a scheduler that refuses (for instance a new one that does not
 * know the loans yet) would be asked every decision.
 *
 * @param refusals refusals in a row; 0: none, a reclaim may be asked for at once
 * @param nextAttemptMs the earliest time of the next request, epoch ms; 0 when {@code refusals} is 0
 * @param lastRefusal the scheduler's last reason; null when {@code refusals} is 0
 */
public record ReclaimBackoff(int refusals, long nextAttemptMs, String lastRefusal) {
  /** The longest wait between two requests, in milliseconds. */
  public static final long MAX_DELAY_MS = 60_000;
  public static final ReclaimBackoff NONE = new ReclaimBackoff(0, 0, null);

  public ReclaimBackoff {
    Checks.nonNegative("refusals", refusals);
    if (refusals == 0 && (nextAttemptMs != 0 || lastRefusal != null)) {
      throw new IllegalArgumentException("with no refusal nextAttemptMs must be 0 and lastRefusal null, was"
          + " nextAttemptMs=" + nextAttemptMs + ", lastRefusal=" + lastRefusal);
    }
    if (refusals > 0) {
      Checks.notNull("lastRefusal", lastRefusal);
    }
  }

  /** After one more refusal at {@code nowMs}. */
  public ReclaimBackoff refused(long nowMs, long intervalMs, String reason) {
    int n = refusals + 1;
    return new ReclaimBackoff(n, nowMs + delayMs(n, intervalMs), Checks.notNull("reason", reason));
  }

  /** The wait after {@code refusals} refusals in a row: {@code intervalMs * 2^(refusals - 1)}, at most 60 s. */
  public static long delayMs(int refusals, long intervalMs) {
    Checks.positive("refusals", refusals);
    if (intervalMs <= 0) {
      throw new IllegalArgumentException("intervalMs must be > 0, was " + intervalMs);
    }
    long d = Math.min(intervalMs, MAX_DELAY_MS);
    for (int i = 1; i < refusals && d < MAX_DELAY_MS; i++) {
      d = Math.min(d * 2, MAX_DELAY_MS);
    }
    return d;
  }

  /** True when a reclaim may be asked for at {@code nowMs}. */
  public boolean allows(long nowMs) {
    return refusals == 0 || nowMs >= nextAttemptMs;
  }
}
