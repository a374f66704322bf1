package io.aryl.yarn.engine;

import io.aryl.api.loan.LoanDemand;
import io.aryl.yarn.state.LoanTargetRecord;

/**
 * The loan controller's target in force: how many inference nodes may be on loan now, and by when
 * the ones above that must be back. The controller decides the number from inference demand; the
 * scheduler alone lends nodes and takes them back to meet it. A target carries the epoch its
 * controller leads under (its ZooKeeper fencing epoch): one older than the target in force is
 * refused, so a deposed leader that still runs cannot undo its successor's.
 *
 * <p>Not thread-safe: the engine reads and changes it under its lock.
 */
final class LoanTargets {
  private LoanTargetRecord target = LoanTargetRecord.NONE;

  /**
   * The inference demand the target in force was decided on, as its controller sent it; null when
   * it did not say. Kept beside the target for the status only, not stored: the controller sends it
   * with every decision, so a newly active scheduler shows it again at the next one.
   */
  private LoanDemand demand;

  LoanTargetRecord current() {
    return target;
  }

  /**
   * The target as it is to be stored and then put in force ({@link #accepted}); nothing changes
   * yet.
   *
   * @param resetHint what an operator does when the controller's epochs started again from 1
   * @throws StaleEpochException when a controller of a newer epoch set the target in force
   * @throws IllegalArgumentException for a negative {@code maxOnLoan} or a blank controller name
   */
  LoanTargetRecord check(
      long epoch,
      String controller,
      int maxOnLoan,
      long returnByMs,
      long decidedMs,
      String reason,
      long nowMs,
      String resetHint) {
    if (epoch < target.epoch()) {
      throw new StaleEpochException(
          "loan target", epoch, target.epoch(), target.controller(), resetHint);
    }
    if (epoch < 1) {
      throw new IllegalArgumentException("epoch must be >= 1, was " + epoch);
    }
    if (controller == null || controller.isBlank()) {
      throw new IllegalArgumentException(
          "controller must name the loan controller instance, was '" + controller + "'");
    }
    if (maxOnLoan < 0) {
      throw new IllegalArgumentException("maxOnLoan must be >= 0, was " + maxOnLoan);
    }
    if (returnByMs < 0) {
      throw new IllegalArgumentException(
          "returnByMs must be >= 0 (0: the scheduler's default deadline), was " + returnByMs);
    }
    return new LoanTargetRecord(
        epoch, controller, maxOnLoan, returnByMs, decidedMs, reason == null ? "" : reason, nowMs);
  }

  /** Puts a stored target in force, with the demand it was decided on (null: not said). */
  void accepted(LoanTargetRecord stored, LoanDemand decidedOn) {
    target = stored;
    demand = decidedOn;
  }

  /** The demand the target in force was decided on; null when not known. */
  LoanDemand demand() {
    return demand;
  }

  /**
   * An operator asked nodes back by hand while a target was in force: the target is lowered to what
   * stays on loan, so that the nodes are not lent again before the controller's next decision.
   *
   * @return the lowered target, to be stored; the same one when none is in force or it is already
   *     as low
   */
  LoanTargetRecord loweredTo(int onLoan) {
    if (!target.set() || target.maxOnLoan() <= onLoan) {
      return target;
    }
    return new LoanTargetRecord(
        target.epoch(),
        target.controller(),
        Math.max(0, onLoan),
        target.returnByMs(),
        target.decidedMs(),
        target.reason() + "; lowered to " + Math.max(0, onLoan) + " by a reclaim asked by hand",
        target.receivedMs());
  }

  void restore(LoanTargetRecord stored) {
    demand = null;
    if (stored.maxOnLoan() < -1) {
      throw new IllegalArgumentException("maxOnLoan must be >= -1, was " + stored.maxOnLoan());
    }
    target = stored;
  }
}
