package io.aryl.labels;

import io.aryl.api.loan.LoanTarget;
import io.aryl.api.loan.LoanTargetAccepted;
import io.aryl.api.loan.StaleTarget;
import io.aryl.api.status.LoanTargetStatus;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * The scheduler in memory, as the loan controller meets it: inference nodes of which some are busy,
 * a target in force that it fences by epoch as ArylScheduler does (an older epoch is a 409),
 * lending idle nodes up to the target at once and taking back at once what is above it. The test
 * can make it unreachable, recovering or refusing (400, 503), and can set the target in force as a
 * successor would.
 */
final class FakeScheduler implements SchedulerLink {
  private final int inference;

  /** Nodes something runs on: never lent. */
  volatile int busy;

  /** Does not answer at all. */
  volatile boolean down;

  /** Says it is recovering. */
  volatile boolean recovering;

  /** Refuses every target with this status (400 or 503); 0: takes them. */
  volatile int refusesWith;

  volatile LongSupplier clock = System::currentTimeMillis;

  /** Every target it was sent, accepted or not, in order. */
  final List<LoanTarget> received = new CopyOnWriteArrayList<>();

  private int onLoan;
  private LoanTargetStatus target;

  FakeScheduler(int inference) {
    this.inference = inference;
  }

  @Override
  public synchronized SchedulerView view() throws IOException {
    if (down) {
      throw new IOException("Connection refused");
    }
    return new SchedulerView(
        recovering, inference, onLoan, target == null ? null : withOnLoan(target));
  }

  @Override
  public synchronized LoanTargetAccepted send(LoanTarget t)
      throws IOException, TargetRefusedException, StaleTargetException {
    if (down) {
      throw new IOException("Connection refused");
    }
    received.add(t);
    if (target != null && t.epoch() < target.epoch()) {
      throw new StaleTargetException(
          new StaleTarget(
              "loan target of epoch "
                  + t.epoch()
                  + " refused: the loan"
                  + " controller "
                  + target.controller()
                  + " set the one in force with epoch "
                  + target.epoch(),
              t.epoch(),
              target.epoch()));
    }
    if (refusesWith != 0) {
      throw new TargetRefusedException(
          refusesWith, "Aryl is recovering after the ResourceManager became active");
    }
    onLoan = t.maxOnLoan() < onLoan ? t.maxOnLoan() : Math.min(t.maxOnLoan(), inference - busy);
    target =
        new LoanTargetStatus(
            t.epoch(),
            t.controller(),
            t.maxOnLoan(),
            t.returnByMs(),
            t.decidedMs(),
            t.reason(),
            clock.getAsLong(),
            onLoan);
    return new LoanTargetAccepted(target, inference, recovering);
  }

  /** Puts a target in force as another controller would have sent it. */
  synchronized void inForce(long epoch, String controller, int maxOnLoan) {
    target =
        new LoanTargetStatus(
            epoch,
            controller,
            maxOnLoan,
            0,
            clock.getAsLong(),
            "set by " + controller,
            clock.getAsLong(),
            onLoan);
  }

  synchronized int onLoan() {
    return onLoan;
  }

  /** The target in force, or null. */
  synchronized LoanTargetStatus target() {
    return target;
  }

  private LoanTargetStatus withOnLoan(LoanTargetStatus t) {
    return new LoanTargetStatus(
        t.epoch(),
        t.controller(),
        t.maxOnLoan(),
        t.returnByMs(),
        t.decidedMs(),
        t.reason(),
        t.receivedMs(),
        onLoan);
  }
}
