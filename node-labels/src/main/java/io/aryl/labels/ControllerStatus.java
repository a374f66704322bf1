package io.aryl.labels;

import io.aryl.api.status.LoanTargetStatus;
import io.aryl.core.model.Checks;
import io.aryl.labels.LoanDecider.Decision;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Everything the status endpoint shows, as one immutable snapshot of a controller; {@link #toMap()}
 * gives it the shape of the JSON that {@code GET /status} answers.
 *
 * @param epoch the epoch held, -1 when not acting
 * @param demand the last demand reading, null before the first
 * @param scheduler the scheduler as the last decision found it, null before the first
 * @param decision the last decision, null before the first
 * @param sent the last target sent and the scheduler's answer, null before the first
 * @param lastError the last error, null until the first
 */
record ControllerStatus(
    String instance,
    LoanController.Role role,
    boolean acting,
    long epoch,
    boolean zooKeeperConnected,
    long lastTickMs,
    long ticks,
    DemandReading demand,
    SchedulerSeen scheduler,
    Taken decision,
    Sent sent,
    LoanCounters.Snapshot counters,
    ErrorNote lastError) {

  /**
   * The scheduler as a decision found it.
   *
   * @param view what it showed; null when it could not be reached
   */
  record SchedulerSeen(long atMs, String address, SchedulerLink.SchedulerView view) {
    boolean reachable() {
      return view != null;
    }
  }

  /**
   * A decision, when it was taken (epoch ms), and what it planned for.
   *
   * @param plan the rate, its forecast one time to serve ahead and that time; null when unknown
   */
  record Taken(Decision decision, long atMs, LeadPlanner.Plan plan) {}

  /** What became of a target sent. */
  enum Answer {
    /** Stored and in force ({@code 200}). */
    ACCEPTED,
    /** Not taken: a value it refuses ({@code 400}) or not now ({@code 503}). */
    REFUSED,
    /** A target of a newer epoch is in force ({@code 409}): this instance stood down. */
    STALE,
    /** No answer, or not the scheduler's. */
    FAILED
  }

  /**
   * A target sent and the scheduler's answer.
   *
   * @param inForce the target in force as the scheduler answered it (with what it had on loan);
   *     null unless ACCEPTED
   * @param inferenceNodes the scheduler's inference nodes, as it answered; -1 unless ACCEPTED
   * @param detail the refusal's or the failure's reason; null when ACCEPTED
   */
  record Sent(
      long atMs,
      long epoch,
      int maxOnLoan,
      long returnByMs,
      Answer answer,
      LoanTargetStatus inForce,
      int inferenceNodes,
      boolean recovering,
      String detail) {
    Sent {
      Checks.notNull("answer", answer);
    }
  }

  /** An error with when it happened (epoch ms); kept until a newer one replaces it. */
  record ErrorNote(String message, long atMs) {}

  ControllerStatus {
    Checks.notNull("role", role);
    Checks.notNull("counters", counters);
  }

  /** A new map each time, in a fixed key order; absent parts are null. */
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
    out.put("scheduler", scheduler == null ? null : schedulerStatus(scheduler));
    out.put("decision", decision == null ? null : decisionStatus(decision));
    out.put("lastTarget", sent == null ? null : sentStatus(sent));
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("decisions", counters.decisions());
    c.put("raised", counters.raised());
    c.put("lowered", counters.lowered());
    c.put("targetsSent", counters.targetsSent());
    c.put("targetsAccepted", counters.targetsAccepted());
    c.put("targetsRefused", counters.targetsRefused());
    c.put("targetsStale", counters.targetsStale());
    c.put("sendFailures", counters.sendFailures());
    c.put("epochsClaimed", counters.epochsClaimed());
    c.put("standDowns", counters.standDowns());
    out.put("counters", c);
    out.put("lastError", lastError == null ? null : lastError.message());
    out.put("lastErrorMs", lastError == null ? null : lastError.atMs());
    return out;
  }

  private static Map<String, Object> schedulerStatus(SchedulerSeen s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("atMs", s.atMs());
    m.put("reachable", s.reachable());
    m.put("recovering", s.reachable() && s.view().recovering());
    m.put("address", s.address());
    m.put("inferenceNodes", s.reachable() ? s.view().inferenceNodes() : null);
    m.put("onLoan", s.reachable() ? s.view().onLoan() : null);
    m.put("target", s.reachable() ? targetStatus(s.view().target()) : null);
    return m;
  }

  private static Map<String, Object> decisionStatus(Taken t) {
    Decision d = t.decision();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("atMs", t.atMs());
    m.put("needed", d.needed());
    m.put("change", d.change().name());
    m.put("maxOnLoan", d.target() == null ? null : d.target().maxOnLoan());
    m.put("returnByMs", d.target() == null ? null : d.target().returnByMs());
    m.put("reason", d.reason());
    LeadPlanner.Plan p = t.plan();
    m.put("rate", p == null ? null : finite(p.rate()));
    m.put("forecastRate", p == null ? null : finite(p.forecastRate()));
    Map<String, Object> tts = new LinkedHashMap<>();
    tts.put("usedMs", p == null ? null : p.leadMs());
    tts.put("reclaim", p == null ? null : partStatus(p.reclaim()));
    tts.put("startup", p == null ? null : partStatus(p.startup()));
    m.put("timeToServe", tts);
    return m;
  }

  /** One part of the lead: what it counts, on how many measures, the latest (null before one). */
  private static Map<String, Object> partStatus(LeadPlanner.Part part) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("usedMs", part.usedMs());
    m.put("measured", part.measured());
    m.put("lastMs", part.lastMs() < 0 ? null : part.lastMs());
    return m;
  }

  /** A rate for the JSON: null when unknown (NaN is no JSON number). */
  private static Double finite(double rate) {
    return Double.isNaN(rate) ? null : rate;
  }

  private static Map<String, Object> sentStatus(Sent s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("atMs", s.atMs());
    m.put("epoch", s.epoch());
    m.put("maxOnLoan", s.maxOnLoan());
    m.put("returnByMs", s.returnByMs());
    m.put("answer", s.answer().name());
    m.put("detail", s.detail());
    m.put("inForce", targetStatus(s.inForce()));
    m.put("inferenceNodes", s.answer() == Answer.ACCEPTED ? s.inferenceNodes() : null);
    m.put("recovering", s.answer() == Answer.ACCEPTED ? s.recovering() : null);
    return m;
  }

  /** The scheduler's target in force, with what it had on loan; null when none. */
  private static Map<String, Object> targetStatus(LoanTargetStatus t) {
    if (t == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("epoch", t.epoch());
    m.put("controller", t.controller());
    m.put("maxOnLoan", t.maxOnLoan());
    m.put("returnByMs", t.returnByMs());
    m.put("onLoan", t.onLoan());
    m.put("receivedMs", t.receivedMs());
    m.put("reason", t.reason());
    return m;
  }
}
