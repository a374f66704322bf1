package io.aryl.labels;

import io.aryl.core.model.Checks;
import io.aryl.labels.LedgerReconciler.Unlisted;
import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanDecisions.Taken;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the status endpoint shows, as one immutable snapshot of a controller; {@link #toMap()} gives it the
 * shape of the JSON that {@code GET /status} answers and that the leader shows the scheduler.
 *
 * @param epoch the epoch held, -1 when not acting
 * @param demand the last demand reading, null before the first
 * @param scheduler the scheduler as the last decision found it, null before the first
 * @param decision the last decision, null before the first
 * @param ledger the ledger as last read
 * @param unlisted RECLAIMING nodes whose reclaim the scheduler did not list, by node
 * @param pendingReclaimRequest a reclaim request on its way, null when none
 * @param reportedToSchedulerMs when the status last reached the scheduler, epoch ms; 0 never
 * @param lastError the last error, null until the first
 */
record ControllerStatus(String instance, LoanController.Role role, boolean acting, long epoch,
    boolean zooKeeperConnected, long lastTickMs, long ticks, DemandReading demand, SchedulerSeen scheduler,
    Taken decision, List<LoanEntry> ledger, Map<String, Unlisted> unlisted, ReclaimIntent pendingReclaimRequest,
    ReclaimBackoff backoff, LoanCounters.Snapshot counters, long reportedToSchedulerMs, ErrorNote lastError) {

  /** The scheduler as a decision found it. */
  record SchedulerSeen(long atMs, boolean reachable, boolean recovering, String address) {}

  /** An error with when it happened (epoch ms); kept until a newer one replaces it. */
  record ErrorNote(String message, long atMs) {}

  ControllerStatus {
    Checks.notNull("role", role);
    ledger = List.copyOf(ledger);
    unlisted = Map.copyOf(unlisted);
    Checks.notNull("backoff", backoff);
    Checks.notNull("counters", counters);
  }

  /** A new map each time, in a fixed key order; absent parts are null, or left out where the JSON leaves them out. */
  Map<String, Object> toMap() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("instance", instance);
    out.put("role", role.name());
    out.put("acting", acting);
    out.put("epoch", epoch);
    out.put("zooKeeperConnected", zooKeeperConnected);
    out.put("lastTickMs", lastTickMs);
    out.put("ticks", ticks);
    out.put("demand", demand == null ? Map.of() : demand.toStatus());
    if (scheduler != null) {
      Map<String, Object> sm = new LinkedHashMap<>();
      sm.put("atMs", scheduler.atMs());
      sm.put("reachable", scheduler.reachable());
      sm.put("recovering", scheduler.recovering());
      sm.put("address", scheduler.address());
      out.put("scheduler", sm);
    }
    if (decision != null) {
      Decision d = decision.decision();
      Map<String, Object> dm = new LinkedHashMap<>();
      dm.put("atMs", decision.atMs());
      dm.put("needed", d.needed());
      dm.put("loan", d.loan());
      dm.put("reclaim", d.reclaim());
      dm.put("reason", d.reason());
      out.put("decision", dm);
    }
    List<Map<String, Object>> entries = new ArrayList<>();
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (LoanState s : LoanState.values()) {
      counts.put(s.name(), 0);
    }
    for (LoanEntry e : ledger) {
      counts.merge(e.state().name(), 1, Integer::sum);
      entries.add(entryStatus(e));
    }
    out.put("counts", counts);
    out.put("ledger", entries);
    out.put("pendingReclaimRequest", pendingReclaimRequest);
    out.put("reclaimBackoff", backoff.refusals() > 0 ? backoffStatus(backoff) : null);
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("nodesLoaned", counters.nodesLoaned());
    c.put("reclaimsRequested", counters.reclaimsRequested());
    c.put("reclaimsAdopted", counters.reclaimsAdopted());
    c.put("reclaimsRefused", counters.reclaimsRefused());
    c.put("nodesReturned", counters.nodesReturned());
    c.put("fencedWrites", counters.fencedWrites());
    c.put("epochsClaimed", counters.epochsClaimed());
    out.put("counters", c);
    out.put("reportedToSchedulerMs", reportedToSchedulerMs);
    out.put("lastError", lastError == null ? null : lastError.message());
    out.put("lastErrorMs", lastError == null ? null : lastError.atMs());
    return out;
  }

  private Map<String, Object> entryStatus(LoanEntry e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("node", e.node());
    m.put("state", e.state().name());
    m.put("epoch", e.epoch());
    m.put("sinceMs", e.sinceMs());
    m.put("reason", e.reason());
    if (e.state() == LoanState.RECLAIMING) {
      m.put("reclaimId", e.reclaimId());
      m.put("deadlineMs", e.deadlineMs());
      Unlisted u = unlisted.get(e.node());
      // Only for the reclaim the node is under now: a period of an earlier reclaim says nothing about this one.
      if (u != null && u.reclaimId() == e.reclaimId()) {
        m.put("unlistedSinceMs", u.sinceMs());
      }
    }
    return m;
  }

  private static Map<String, Object> backoffStatus(ReclaimBackoff b) {
    Map<String, Object> bm = new LinkedHashMap<>();
    bm.put("refusals", b.refusals());
    bm.put("lastRefusal", b.lastRefusal());
    bm.put("nextAttemptMs", b.nextAttemptMs());
    return bm;
  }
}
