package io.aryl.labels;

import io.aryl.core.model.Checks;

/**
 * One node's line in the loan ledger.
 *
 * @param node node name as the ResourceManager reports it (host:port)
 * @param state where the node is
 * @param epoch epoch of the leader that wrote this line
 * @param sinceMs when the node entered this state, epoch ms
 * @param reason why, in words
 * @param reclaimId the scheduler's id of the reclaim bringing the node back; 0 unless RECLAIMING
 * @param deadlineMs when the node must be back, epoch ms; 0 unless RECLAIMING
 */
public record LoanEntry(String node, LoanState state, long epoch, long sinceMs, String reason, long reclaimId,
    long deadlineMs) {
  public LoanEntry {
    Checks.notBlank("node", node);
    Checks.notNull("state", state);
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0, was " + epoch);
    }
    if (sinceMs < 0) {
      throw new IllegalArgumentException("sinceMs must be >= 0, was " + sinceMs);
    }
    Checks.notNull("reason", reason);
    if (state == LoanState.RECLAIMING && (reclaimId <= 0 || deadlineMs <= 0)) {
      throw new IllegalArgumentException("a RECLAIMING entry needs reclaimId > 0 and deadlineMs > 0, was reclaimId="
          + reclaimId + ", deadlineMs=" + deadlineMs + " for node " + node);
    }
    if (state != LoanState.RECLAIMING && (reclaimId != 0 || deadlineMs != 0)) {
      throw new IllegalArgumentException("only a RECLAIMING entry has a reclaimId or deadlineMs, was state=" + state
          + ", reclaimId=" + reclaimId + ", deadlineMs=" + deadlineMs + " for node " + node);
    }
  }

  public static LoanEntry home(String node, long epoch, long sinceMs, String reason) {
    return new LoanEntry(node, LoanState.HOME, epoch, sinceMs, reason, 0, 0);
  }

  public static LoanEntry loaned(String node, long epoch, long sinceMs, String reason) {
    return new LoanEntry(node, LoanState.LOANED, epoch, sinceMs, reason, 0, 0);
  }

  public static LoanEntry reclaiming(String node, long epoch, long sinceMs, String reason, long reclaimId,
      long deadlineMs) {
    return new LoanEntry(node, LoanState.RECLAIMING, epoch, sinceMs, reason, reclaimId, deadlineMs);
  }
}
