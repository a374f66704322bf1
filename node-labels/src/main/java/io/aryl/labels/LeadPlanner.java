package io.aryl.labels;

import io.aryl.core.loan.RateTrend;
import io.aryl.core.loan.TimeToServe;
import io.aryl.core.model.Checks;
import io.aryl.labels.SchedulerLink.SchedulerView;
import java.util.ArrayList;
import java.util.List;

/**
 * What the leader plans for beyond the rate now: the time a server asked back takes to serve again,
 * and the rate that time ahead ({@link RateTrend}). That time to serve is two measured figures
 * added, each the p90 of its own window ({@link TimeToServe} twice):
 *
 * <ul>
 *   <li>the <b>reclaim</b>, measured on the reclaims this instance drove: from the decision that
 *       lowered the target below what was on loan to the first status in which the scheduler has
 *       nothing on loan above that target and nothing on its way home; its end is the scheduler's
 *       latest reclaim's {@code finishedMs} when that falls in between, else the status's time (so
 *       at worst one decision interval late). The configured seed until the first;
 *   <li>the replica's <b>start-up</b> once a server is home, measured on the inference services'
 *       own replicas (from a container's grant to its health check answered, {@link
 *       ReplicaStartups}), by the demand sources that see them ({@code serve}). 0 until the first,
 *       and with any other source: not measured, and said so in the status.
 * </ul>
 *
 * <p>Not thread-safe: the decision thread's, as {@link DecisionRound}'s memory is. Times are the
 * controller's clock and the scheduler's epoch ms alike: the two hosts' clocks are assumed
 * synchronized (NTP), as the targets' deadlines already assume.
 */
final class LeadPlanner {
  private final RateTrend trend;
  private final boolean forecasting;
  private final List<RateTrend.Sample> rates = new ArrayList<>();
  private TimeToServe reclaim;
  private TimeToServe startup;

  /** The reclaim this instance asked for and has not seen end; null when none. */
  private Pending pending;

  private record Pending(long decidedMs, int maxOnLoan) {}

  /**
   * What the next decision plans for.
   *
   * @param rate the demanded rate now, requests/s; NaN when unknown
   * @param forecastRate the rate one lead ahead, never below {@code rate}; NaN when it is
   * @param reclaim the reclaim's part of the lead
   * @param startup the replica's start-up's part of the lead
   */
  record Plan(double rate, double forecastRate, Part reclaim, Part startup) {
    /** The time to serve the forecast looks ahead by: the reclaim plus the start-up, ms. */
    long leadMs() {
      return reclaim.usedMs() + startup.usedMs();
    }
  }

  /**
   * One part of the lead.
   *
   * @param usedMs the part the lead counts, milliseconds: the p90 of the measures, or the seed
   * @param measured how many measures it stands on; 0: it is the seed (the configured one for the
   *     reclaim, 0 for the start-up)
   * @param lastMs the latest measure, milliseconds; -1 before the first
   */
  record Part(long usedMs, int measured, long lastMs) {
    static Part of(TimeToServe t) {
      int n = t.samplesMs().size();
      return new Part(t.figureMs(), n, n == 0 ? -1 : t.samplesMs().get(n - 1));
    }
  }

  /**
   * @param seedMs the reclaim's time to serve before one was measured
   * @param window how many of the latest reclaims, and of the latest replica start-ups, each part
   *     of the time to serve is the p90 of
   * @param trendMs how far back the rate's trend reads; 0: no forecast, the rate now is planned for
   */
  LeadPlanner(long seedMs, int window, long trendMs) {
    this.reclaim = TimeToServe.seeded(seedMs, window);
    // No seed for the start-up: a guess added to the reclaim's seed would be counted twice.
    this.startup = TimeToServe.seeded(0, window);
    if (trendMs < 0) {
      throw new IllegalArgumentException("trendMs must be >= 0, was " + trendMs);
    }
    this.forecasting = trendMs > 0;
    this.trend = new RateTrend(Math.max(1, trendMs));
  }

  /** Notes the rate seen at {@code nowMs} and answers what to plan for. */
  Plan plan(long nowMs, double rate) {
    Part r = Part.of(reclaim);
    Part s = Part.of(startup);
    if (Double.isNaN(rate)) {
      return new Plan(rate, rate, r, s);
    }
    rates.removeIf(x -> x.atMs() < nowMs - trend.windowMs() || x.atMs() > nowMs);
    rates.add(new RateTrend.Sample(nowMs, rate));
    long lead = r.usedMs() + s.usedMs();
    double forecast = forecasting ? trend.forecast(rates, nowMs, lead) : rate;
    return new Plan(rate, forecast, r, s);
  }

  /**
   * A replica started in {@code startupMs} (its container granted to its health check answered), as
   * a demand source measured it.
   */
  void replicaStarted(long startupMs) {
    startup = startup.with(startupMs);
  }

  /**
   * The scheduler took a target of {@code maxOnLoan} decided at {@code decidedMs} while {@code
   * onLoan} were on loan: if that asks servers back, their time to serve is measured from then. A
   * reclaim already under way keeps its start: its servers were asked back first.
   */
  void lowered(long decidedMs, int maxOnLoan, int onLoan) {
    Checks.nonNegative("maxOnLoan", maxOnLoan);
    if (onLoan <= maxOnLoan) {
      return;
    }
    pending =
        pending == null
            ? new Pending(decidedMs, maxOnLoan)
            : new Pending(pending.decidedMs(), Math.min(pending.maxOnLoan(), maxOnLoan));
  }

  /**
   * The scheduler as seen at {@code nowMs}: ends the measure of the pending reclaim once nothing is
   * on loan above its target and nothing on its way home. A recovering scheduler's counts may miss
   * nodes, so they end nothing.
   */
  void seen(long nowMs, SchedulerView view) {
    if (pending == null || view == null || view.recovering()) {
      return;
    }
    if (view.onLoan() > pending.maxOnLoan() || view.returning() > 0) {
      return;
    }
    long end =
        view.reclaimFinishedMs() >= pending.decidedMs() && view.reclaimFinishedMs() <= nowMs
            ? view.reclaimFinishedMs()
            : nowMs;
    reclaim = reclaim.with(Math.max(0, end - pending.decidedMs()));
    pending = null;
  }

  /**
   * A new leader did not drive the reclaim under way: it is not measured. The measures and the
   * rates seen stay, they are the cluster's.
   */
  void forgetPending() {
    pending = null;
  }

  /** The reclaim's time to serve and its measures. */
  TimeToServe reclaim() {
    return reclaim;
  }

  /** The replicas' start-up and its measures. */
  TimeToServe startup() {
    return startup;
  }
}
