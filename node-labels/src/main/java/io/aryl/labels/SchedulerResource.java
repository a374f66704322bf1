package io.aryl.labels;

import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.ErrorBody;
import io.aryl.api.loan.LoanTarget;
import io.aryl.api.loan.LoanTargetAccepted;
import io.aryl.api.loan.StaleTarget;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.core.model.Checks;
import io.aryl.labels.ActiveRmWebApp.Answer;
import java.io.IOException;

/**
 * ArylScheduler's REST resource on the active ResourceManager: {@code GET /ws/v1/cluster/aryl} (the
 * inference nodes' places, the target in force, whether it is recovering) and {@code PUT
 * /ws/v1/cluster/aryl/loan-target}, with aryl-api's paths and records ({@link ArylPaths}, {@link
 * SchedulerStatus}, {@link LoanTarget}, {@link LoanTargetAccepted}, {@link StaleTarget}, {@link
 * ErrorBody}), read leniently. Every call goes through {@link ActiveRmWebApp}, so after a failover
 * the next one reaches the new active RM.
 */
public final class SchedulerResource implements SchedulerLink {
  private final ActiveRmWebApp web;

  public SchedulerResource(ActiveRmWebApp web) {
    this.web = Checks.notNull("web", web);
  }

  public ActiveRmWebApp web() {
    return web;
  }

  /**
   * The inference nodes (those with a place), those lent or being lent, {@code recovery.recovering}
   * (absent: false) and {@code loanTarget}.
   *
   * @throws IOException also when Aryl does not run in the active ResourceManager ({@code
   *     "enabled": false})
   */
  @Override
  public SchedulerView view() throws IOException {
    Answer a = web.get(ArylPaths.STATUS);
    if (a.status() != 200) {
      throw new IOException(
          "GET "
              + ArylPaths.STATUS
              + " on "
              + a.rm()
              + " answered "
              + a.status()
              + ": "
              + a.body());
    }
    SchedulerStatus status = ArylJson.readStatus(a.body());
    if (!status.enabled()) {
      throw new IOException(
          "Aryl does not run in the ResourceManager at " + a.rm() + " (aryl.scheduler.enabled)");
    }
    return view(status);
  }

  static SchedulerView view(SchedulerStatus status) {
    int inference = 0;
    int onLoan = 0;
    int returning = 0;
    for (NodeStatus n : status.nodes() == null ? java.util.List.<NodeStatus>of() : status.nodes()) {
      if (n.place() == null) {
        continue; // the training pool's own node, or a place this version does not know
      }
      inference++;
      if (n.place() == NodeStatus.Place.LENDING || n.place() == NodeStatus.Place.LENT) {
        onLoan++;
      } else if (n.place() == NodeStatus.Place.RETURNING) {
        returning++;
      }
    }
    long finished = -1;
    for (ReclaimStatus r :
        status.reclaimsDone() == null
            ? java.util.List.<ReclaimStatus>of()
            : status.reclaimsDone()) {
      finished = Math.max(finished, r.finishedMs());
    }
    return new SchedulerView(
        status.recovery() != null && status.recovery().recovering(),
        inference,
        onLoan,
        status.loanTarget(),
        returning,
        finished);
  }

  @Override
  public LoanTargetAccepted send(LoanTarget target)
      throws IOException, TargetRefusedException, StaleTargetException {
    Answer a = web.send("PUT", ArylPaths.LOAN_TARGET, ArylJson.write(target));
    switch (a.status()) {
      case 200 -> {
        return ArylJson.read(a.body(), LoanTargetAccepted.class);
      }
      case 409 -> {
        StaleTarget stale = readOrNull(a.body(), StaleTarget.class);
        throw new StaleTargetException(
            stale != null && stale.error() != null
                ? stale
                : new StaleTarget(a.body(), target.epoch(), -1));
      }
      case 400, 503 -> throw new TargetRefusedException(a.status(), error(a.body()));
      default ->
          throw new IOException(
              "PUT "
                  + ArylPaths.LOAN_TARGET
                  + " on "
                  + a.rm()
                  + " answered "
                  + a.status()
                  + ": "
                  + a.body());
    }
  }

  @Override
  public String address() {
    return web.active().map(Object::toString).orElse("");
  }

  /** A refusal's {@code error}, or the body as it came when it is not an {@link ErrorBody}. */
  private static String error(String body) {
    ErrorBody e = readOrNull(body, ErrorBody.class);
    return e == null || e.error() == null ? body : e.error();
  }

  private static <T> T readOrNull(String body, Class<T> type) {
    try {
      return ArylJson.read(body, type);
    } catch (IOException | RuntimeException notJson) {
      return null;
    }
  }
}
