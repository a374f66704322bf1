package io.aryl.labels;

import io.aryl.core.loan.RateTrend;
import io.aryl.core.loan.TimeToServe;
import io.aryl.core.model.Checks;
import io.aryl.labels.SchedulerLink.SchedulerView;
import java.util.ArrayList;
import java.util.List;

/**
 * What the leader plans for beyond the rate now: the time a server asked back takes to serve again,
 * measured on the reclaims this instance drove ({@link TimeToServe}), and the rate that time ahead
 * ({@link RateTrend}). A reclaim is measured from the decision that lowered the target below what
 * was on loan to the first status in which the scheduler has nothing on loan above that target and
 * nothing on its way home; its end is the scheduler's latest reclaim's {@code finishedMs} when that
 * falls in between, else the status's time (so at worst one decision interval late).
 *
 * <p>Not thread-safe: the decision thread's, as {@link DecisionRound}'s memory is. Times are the
 * controller's clock and the scheduler's epoch ms alike: the two hosts' clocks are assumed
 * synchronized (NTP), as the targets' deadlines already assume.
 */
final class LeadPlanner {
  private final RateTrend trend;
  private final boolean forecasting;
  private final List<RateTrend.Sample> rates = new ArrayList<>();
  private TimeToServe timeToServe;

  /** The reclaim this instance asked for and has not seen end; null when none. */
  private Pending pending;

  private record Pending(long decidedMs, int maxOnLoan) {}

  /**
   * What the next decision plans for.
   *
   * @param rate the demanded rate now, requests/s; NaN when unknown
   * @param forecastRate the rate one lead ahead, never below {@code rate}; NaN when it is
   * @param leadMs the time to serve the forecast looks ahead by, milliseconds
   * @param measured how many reclaims the lead is measured on; 0: it is the configured seed
   * @param lastMeasuredMs the latest reclaim's time to serve, milliseconds; -1 before the first
   */
  record Plan(double rate, double forecastRate, long leadMs, int measured, long lastMeasuredMs) {}

  /**
   * @param seedMs the time to serve before one was measured
   * @param window how many of the latest reclaims the time to serve is the p90 of
   * @param trendMs how far back the rate's trend reads; 0: no forecast, the rate now is planned for
   */
  LeadPlanner(long seedMs, int window, long trendMs) {
    this.timeToServe = TimeToServe.seeded(seedMs, window);
    if (trendMs < 0) {
      throw new IllegalArgumentException("trendMs must be >= 0, was " + trendMs);
    }
    this.forecasting = trendMs > 0;
    this.trend = new RateTrend(Math.max(1, trendMs));
  }

  /** Notes the rate seen at {@code nowMs} and answers what to plan for. */
  Plan plan(long nowMs, double rate) {
    long lead = timeToServe.figureMs();
    int measured = timeToServe.samplesMs().size();
    long last = measured == 0 ? -1 : timeToServe.samplesMs().get(measured - 1);
    if (Double.isNaN(rate)) {
      return new Plan(rate, rate, lead, measured, last);
    }
    rates.removeIf(s -> s.atMs() < nowMs - trend.windowMs() || s.atMs() > nowMs);
    rates.add(new RateTrend.Sample(nowMs, rate));
    double forecast = forecasting ? trend.forecast(rates, nowMs, lead) : rate;
    return new Plan(rate, forecast, lead, measured, last);
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
    timeToServe = timeToServe.with(Math.max(0, end - pending.decidedMs()));
    pending = null;
  }

  /**
   * A new leader did not drive the reclaim under way: it is not measured. The measures and the
   * rates seen stay, they are the cluster's.
   */
  void forgetPending() {
    pending = null;
  }

  /** The time to serve figure and its measures. */
  TimeToServe timeToServe() {
    return timeToServe;
  }
}
