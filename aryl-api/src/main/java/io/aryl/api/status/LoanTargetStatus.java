package io.aryl.api.status;

/**
 * {@code loanTarget} of the status, present once a loan controller set one ({@link
 * io.aryl.api.loan.LoanTarget}): the target in force, who set it, and what is on loan now.
 *
 * @param epoch the controller leader's epoch that set it
 * @param controller its instance name
 * @param maxOnLoan how many inference nodes may be on loan
 * @param returnByMs by when the nodes above it must be back, epoch ms; 0 for the scheduler's
 *     default deadline
 * @param decidedMs when the controller decided it, epoch ms
 * @param reason the controller's reason, or a reclaim by hand that lowered it
 * @param receivedMs when the scheduler accepted it, epoch ms
 * @param onLoan inference nodes on loan now (lent or being lent), but for those a reclaim returns
 */
public record LoanTargetStatus(
    long epoch,
    String controller,
    int maxOnLoan,
    long returnByMs,
    long decidedMs,
    String reason,
    long receivedMs,
    int onLoan) {}
