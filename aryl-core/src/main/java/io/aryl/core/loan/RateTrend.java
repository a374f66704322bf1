package io.aryl.core.loan;

import io.aryl.core.model.Checks;
import java.util.List;

/**
 * A short forecast of inference demand: the rate's trend over the last {@code windowMs} (the
 * least-squares slope of the rates seen) carried forward by {@code leadMs}, never below the rate
 * now. A server asked back serves only after its time to serve ({@link TimeToServe}); planning for
 * the rate one lead ahead asks it back that much earlier on a rise, so its replica is up when the
 * load arrives. On a flat or falling rate the forecast is the rate now: a fall never lends sooner
 * than the controller's hold allows.
 *
 * <p>Unlike the seasonal {@link DemandForecast}, it needs no day of history: a minute of rates is
 * enough, which a newly elected controller has after a minute.
 *
 * @param windowMs how far back the trend reads, milliseconds
 */
public record RateTrend(long windowMs) {
  public RateTrend {
    if (windowMs <= 0) {
      throw new IllegalArgumentException("rateTrend.windowMs must be > 0, was " + windowMs);
    }
  }

  /**
   * A rate seen at a time.
   *
   * @param atMs when, milliseconds (any epoch, the same for all samples and {@code nowMs})
   * @param rate requests per second, >= 0
   */
  public record Sample(long atMs, double rate) {
    public Sample {
      Checks.nonNegative("rateTrend.sample.rate", rate);
    }
  }

  /**
   * The rate to plan for at {@code nowMs}, {@code leadMs} ahead: the last sample's rate plus the
   * trend's slope times the lead, if the slope rises; else the last sample's rate. Samples older
   * than the window or later than now are not read; with fewer than two samples in the window, or
   * all at one instant, there is no trend and the forecast is the last rate.
   *
   * @param samples the rates seen, oldest first; the last is the rate now
   * @throws IllegalArgumentException with no sample, or a negative lead
   */
  public double forecast(List<Sample> samples, long nowMs, long leadMs) {
    Checks.notNull("rateTrend.samples", samples);
    if (samples.isEmpty()) {
      throw new IllegalArgumentException("rateTrend.samples must hold the rate now, was empty");
    }
    if (leadMs < 0) {
      throw new IllegalArgumentException("rateTrend.leadMs must be >= 0, was " + leadMs);
    }
    double now = samples.get(samples.size() - 1).rate();
    int n = 0;
    double sumT = 0;
    double sumR = 0;
    for (Sample s : samples) {
      if (inWindow(s, nowMs)) {
        n++;
        sumT += (s.atMs() - nowMs) / 1000.0;
        sumR += s.rate();
      }
    }
    if (n < 2) {
      return now;
    }
    double meanT = sumT / n;
    double meanR = sumR / n;
    double cov = 0;
    double var = 0;
    for (Sample s : samples) {
      if (inWindow(s, nowMs)) {
        double dt = (s.atMs() - nowMs) / 1000.0 - meanT;
        cov += dt * (s.rate() - meanR);
        var += dt * dt;
      }
    }
    if (var == 0) {
      return now;
    }
    double slopePerS = cov / var;
    return slopePerS <= 0 ? now : now + slopePerS * leadMs / 1000.0;
  }

  private boolean inWindow(Sample s, long nowMs) {
    return s.atMs() <= nowMs && s.atMs() >= nowMs - windowMs;
  }
}
