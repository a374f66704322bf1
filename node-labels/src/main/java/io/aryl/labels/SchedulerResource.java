package io.aryl.labels;

import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.ErrorBody;
import io.aryl.api.reclaim.ReclaimRequest;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.core.model.Checks;
import io.aryl.labels.ActiveRmWebApp.Answer;
import io.aryl.labels.Pools.ReclaimRefusedException;
import io.aryl.labels.Pools.SchedulerReclaim;
import io.aryl.labels.Pools.SchedulerView;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * ArylScheduler's REST resource on the active ResourceManager: {@code GET /ws/v1/cluster/aryl} (its reclaims and
 * whether it is recovering), {@code POST /ws/v1/cluster/aryl/reclaims} and {@code PUT
 * /ws/v1/cluster/aryl/loan-controller}, with aryl-api's paths and records ({@link ArylPaths}, {@link SchedulerStatus},
 * {@link ReclaimRequest}, {@link ReclaimStatus}, {@link ErrorBody}), read leniently. Every call goes through
 * {@link ActiveRmWebApp}, so after a failover the next one reaches the new active RM.
 */
public final class SchedulerResource {
  private final ActiveRmWebApp web;

  public SchedulerResource(ActiveRmWebApp web) {
    this.web = Checks.notNull("web", web);
  }

  public ActiveRmWebApp web() {
    return web;
  }

  /** The reclaims in flight and recently done, and {@code recovery.recovering} (absent: an older scheduler, false). */
  public SchedulerView view() throws IOException {
    Answer a = web.get(ArylPaths.STATUS);
    if (a.status() != 200) {
      throw new IOException("GET " + ArylPaths.STATUS + " on " + a.rm() + " answered " + a.status() + ": " + a.body());
    }
    return view(ArylJson.readStatus(a.body()));
  }

  static SchedulerView view(SchedulerStatus status) {
    List<SchedulerReclaim> out = new ArrayList<>();
    status.reclaimsInFlight().forEach(r -> out.add(SchedulerReclaim.of(r)));
    status.reclaimsDone().forEach(r -> out.add(SchedulerReclaim.of(r)));
    return new SchedulerView(out, status.recovery() != null && status.recovery().recovering());
  }

  /**
   * @throws ReclaimRefusedException the scheduler did not take the reclaim, with its reason: 400 (it cannot be done),
   *     or 503 (not now: the scheduler is recovering, or cannot store the reclaim)
   */
  public SchedulerReclaim requestReclaim(int nodes, long deadlineMs) throws IOException, ReclaimRefusedException {
    Answer a = web.send("POST", ArylPaths.RECLAIMS, ArylJson.write(new ReclaimRequest(nodes, deadlineMs, null)));
    if (a.status() == 201) {
      return SchedulerReclaim.of(ArylJson.read(a.body(), ReclaimStatus.class));
    }
    if (a.status() == 400 || a.status() == 503) {
      String reason = error(a.body());
      throw new ReclaimRefusedException(a.status() == 503 ? "unavailable: " + reason : reason);
    }
    throw new IOException("POST " + ArylPaths.RECLAIMS + " on " + a.rm() + " answered " + a.status() + ": "
        + a.body());
  }

  /** The scheduler refused a report because a leader of a newer epoch has reported: this instance was deposed. */
  public static final class StaleReportException extends IOException {
    private static final long serialVersionUID = 1L;

    StaleReportException(String message) {
      super(message);
    }
  }

  /**
   * Sends the controller's status as its report ({@link io.aryl.api.loan.LoanControllerReport}: the scheduler checks
   * its epoch, instance and role and shows the rest as it came).
   *
   * @throws StaleReportException (409) when the scheduler has heard from a leader of a newer epoch
   */
  public void report(Map<String, Object> status) throws IOException {
    Answer a = web.send("PUT", ArylPaths.LOAN_CONTROLLER, ArylJson.write(status));
    if (a.status() == 409) {
      throw new StaleReportException(error(a.body()));
    }
    if (a.status() != 200) {
      throw new IOException("PUT " + ArylPaths.LOAN_CONTROLLER + " on " + a.rm() + " answered " + a.status() + ": "
          + a.body());
    }
  }

  /** A refusal's {@code error}, or the body as it came when it is not an {@link ErrorBody}. */
  private static String error(String body) {
    try {
      ErrorBody e = ArylJson.read(body, ErrorBody.class);
      return e == null || e.error() == null ? body : e.error();
    } catch (IOException notJson) {
      return body;
    }
  }
}
