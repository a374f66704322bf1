package io.aryl.yarn.rm;

import io.aryl.yarn.engine.ArylUnavailableException;
import io.aryl.yarn.engine.StaleEpochException;

import io.aryl.api.status.LoanControllerStatus;
import io.aryl.yarn.state.ControllerLeader;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.Section;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * The loan controller's reports, accepted only from its current leader. Each report carries the epoch its sender
 * leads under (the controller's ZooKeeper fencing epoch); a report of an older epoch than the newest accepted is
 * refused, so a deposed leader that still runs cannot overwrite what its successor shows. The newest epoch is stored
 * before a report under it is shown, so a newly active ResourceManager refuses the same stale leader.
 */
final class LoanControllerReports {
  /** What the loan controller's leader last reported of itself. */
  record Report(long receivedMs, long epoch, String instance, Map<String, Object> status) {
    /** {@code loanController} of the status. */
    LoanControllerStatus toStatus() {
      return new LoanControllerStatus(receivedMs, epoch, status);
    }
  }

  private final DurableState state;
  private volatile Report latest;

  LoanControllerReports(DurableState state) {
    this.state = Objects.requireNonNull(state, "state");
  }

  /**
   * Shows the report if its epoch is the one in force or newer; a newer epoch is stored first.
   *
   * @throws StaleEpochException when a newer leader has reported already
   * @throws ArylUnavailableException when a newer epoch cannot be stored
   */
  synchronized Report accept(long epoch, String instance, Map<String, Object> status, long nowMs) {
    ControllerLeader inForce = state.get(Section.CONTROLLER);
    if (epoch < inForce.epoch()) {
      throw new StaleEpochException(epoch, inForce.epoch(), inForce.instance(), "if the loan controller's ZooKeeper"
          + " path was deleted, its epochs start again from 1: stop the ResourceManagers, run `"
          + state.store().deleteCommand(Section.CONTROLLER.name()) + "`, and start them again");
    }
    if (epoch > inForce.epoch()) {
      try {
        state.save(Section.CONTROLLER, new ControllerLeader(epoch, instance, nowMs));
      } catch (IOException e) {
        throw new ArylUnavailableException("loan controller report not accepted: Aryl could not store its epoch ("
            + e.getMessage() + ")", e);
      }
    }
    Report r = new Report(nowMs, epoch, instance, status);
    latest = r;
    return r;
  }

  /** The last report accepted from this scheduler's start, or null. */
  Report latest() {
    return latest;
  }

  /** The leader in force, as stored. */
  ControllerLeader inForce() {
    return state.get(Section.CONTROLLER);
  }
}
