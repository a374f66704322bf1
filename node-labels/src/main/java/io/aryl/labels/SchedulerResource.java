package io.aryl.labels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * /ws/v1/cluster/aryl/loan-controller}. Every call goes through {@link ActiveRmWebApp}, so after a failover the next
 * one reaches the new active RM.
 */
public final class SchedulerResource {
  static final String STATUS = "/ws/v1/cluster/aryl";
  static final String RECLAIMS = STATUS + "/reclaims";
  static final String LOAN_CONTROLLER = STATUS + "/loan-controller";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ActiveRmWebApp web;

  public SchedulerResource(ActiveRmWebApp web) {
    this.web = Checks.notNull("web", web);
  }

  public ActiveRmWebApp web() {
    return web;
  }

  /** The reclaims in flight and recently done, and {@code recovery.recovering} (absent: an older scheduler, false). */
  public SchedulerView view() throws IOException {
    Answer a = web.get(STATUS);
    if (a.status() != 200) {
      throw new IOException("GET " + STATUS + " on " + a.rm() + " answered " + a.status() + ": " + a.body());
    }
    return view(JSON.readTree(a.body()));
  }

  static SchedulerView view(JsonNode status) {
    List<SchedulerReclaim> out = new ArrayList<>();
    for (String field : List.of("reclaimsInFlight", "reclaimsDone")) {
      for (JsonNode n : status.path(field)) {
        out.add(reclaim(n));
      }
    }
    return new SchedulerView(out, status.path("recovery").path("recovering").asBoolean(false));
  }

  /**
   * @throws ReclaimRefusedException the scheduler did not take the reclaim, with its reason: 400 (it cannot be done),
   *     or 503 (not now: the scheduler is recovering, or cannot store the reclaim)
   */
  public SchedulerReclaim requestReclaim(int nodes, long deadlineMs) throws IOException, ReclaimRefusedException {
    Answer a = web.send("POST", RECLAIMS, JSON.writeValueAsString(Map.of("nodes", nodes, "deadlineMs", deadlineMs)));
    if (a.status() == 201) {
      return reclaim(JSON.readTree(a.body()));
    }
    if (a.status() == 400 || a.status() == 503) {
      JsonNode error = readOrNull(a.body()).path("error");
      String reason = error.isMissingNode() ? a.body() : error.asText();
      throw new ReclaimRefusedException(a.status() == 503 ? "unavailable: " + reason : reason);
    }
    throw new IOException("POST " + RECLAIMS + " on " + a.rm() + " answered " + a.status() + ": " + a.body());
  }

  /** The scheduler refused a report because a leader of a newer epoch has reported: this instance was deposed. */
  public static final class StaleReportException extends IOException {
    private static final long serialVersionUID = 1L;

    StaleReportException(String message) {
      super(message);
    }
  }

  /** @throws StaleReportException (409) when the scheduler has heard from a leader of a newer epoch */
  public void report(Map<String, Object> status) throws IOException {
    Answer a = web.send("PUT", LOAN_CONTROLLER, JSON.writeValueAsString(status));
    if (a.status() == 409) {
      JsonNode error = readOrNull(a.body()).path("error");
      throw new StaleReportException(error.isMissingNode() ? a.body() : error.asText());
    }
    if (a.status() != 200) {
      throw new IOException("PUT " + LOAN_CONTROLLER + " on " + a.rm() + " answered " + a.status() + ": " + a.body());
    }
  }

  private static JsonNode readOrNull(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return JSON.missingNode();
    }
  }

  private static SchedulerReclaim reclaim(JsonNode n) {
    List<String> nodes = new ArrayList<>();
    n.path("nodes").forEach(x -> nodes.add(x.asText()));
    return new SchedulerReclaim(n.path("id").asLong(), n.path("phase").asText(), nodes, n.path("requestedMs").asLong(),
        n.path("deadlineMs").asLong());
  }
}
