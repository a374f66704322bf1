package io.aryl.core.model;

/**
 * Where phase 1 put a queued job that the round left waiting, as admission decided it: recorded by
 * the round in its {@link Plan#waiting()}, so that whoever tells the job why it waits reads the
 * decision rather than recomputing it.
 *
 * @param waitingAhead jobs offered their gang before this one that the round left waiting too: its
 *     place in the queue of the waiting, 0 for the first
 * @param offeredBefore every job offered its gang before this one, admitted or not
 * @param standing where it stands with the starvation guard
 * @param reserved whether the round held servers back for it (the first job offered, starving, that
 *     did not fit): no other gang is placed on them unless it is predicted to end before they drain
 */
public record QueuePlace(int waitingAhead, int offeredBefore, Standing standing, boolean reserved) {
  public QueuePlace {
    Checks.nonNegative("queuePlace.waitingAhead", waitingAhead);
    if (offeredBefore < waitingAhead) {
      throw new IllegalArgumentException(
          "queuePlace.offeredBefore must be >= waitingAhead ("
              + waitingAhead
              + "), was "
              + offeredBefore);
    }
    Checks.notNull("queuePlace.standing", standing);
  }

  /**
   * Where a waiting job stands with the starvation guard ({@link
   * io.aryl.core.admission.StarvationGuard}).
   */
  public enum Standing {
    /** It has not waited past the guard's wait: its place is the job order's. */
    NOT_STARVING,
    /**
     * Starving, and among the oldest jobs the senior lane holds: offered before shorter jobs,
     * oldest first.
     */
    IN_THE_LANE,
    /** Starving, but older jobs fill the senior lane: it keeps its place in the job order. */
    OUTSIDE_THE_LANE
  }
}
