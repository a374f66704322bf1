package io.aryl.yarn.state;

/**
 * The loan controller's last target the scheduler accepted: how many inference nodes may be on
 * loan, and by when the ones above that must be back. Written before it is acknowledged; a target
 * of an older epoch is refused.
 *
 * @param epoch the controller leader's epoch (its ZooKeeper fencing epoch, from 1); -1 before any
 *     target
 * @param controller the leader's instance name
 * @param maxOnLoan how many inference nodes may be on loan (lent or being lent); -1: no target yet,
 *     nothing is lent or asked back by the scheduler on its own
 * @param returnByMs by when the nodes above the target must be back, epoch ms; 0: the scheduler's
 *     default deadline
 * @param decidedMs when the controller decided it, epoch ms
 * @param reason the controller's reason, in words
 * @param receivedMs when the scheduler accepted it, epoch ms
 */
public record LoanTargetRecord(
    long epoch,
    String controller,
    int maxOnLoan,
    long returnByMs,
    long decidedMs,
    String reason,
    long receivedMs) {
  public static final LoanTargetRecord NONE = new LoanTargetRecord(-1, "", -1, 0, 0, "", 0);

  /** Whether a controller set a target. */
  public boolean set() {
    return maxOnLoan >= 0;
  }
}
