package io.aryl.labels;

import io.aryl.core.model.Checks;

/**
 * A reclaim the leader is about to ask the scheduler for, written to the ledger before the request: if the leader
 * dies between the request and recording its answer, its successor finds the scheduler's reclaim by this and adopts it
 * instead of asking twice.
 *
 * @param nodes how many nodes were asked back
 * @param deadlineMs the deadline asked for, epoch ms
 * @param requestedMs when the request was about to be sent, epoch ms
 * @param epoch epoch of the leader that asked
 */
public record ReclaimIntent(int nodes, long deadlineMs, long requestedMs, long epoch) {
  public ReclaimIntent {
    Checks.positive("nodes", nodes);
    if (deadlineMs <= 0) {
      throw new IllegalArgumentException("deadlineMs must be > 0, was " + deadlineMs);
    }
    if (requestedMs <= 0) {
      throw new IllegalArgumentException("requestedMs must be > 0, was " + requestedMs);
    }
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0, was " + epoch);
    }
  }
}
