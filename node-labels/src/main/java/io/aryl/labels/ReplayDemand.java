package io.aryl.labels;

import io.aryl.core.model.Checks;
import java.util.function.LongSupplier;

/**
 * Demand replayed from a {@link RateTrace}, {@code timeScale} trace seconds per wall-clock second
 * from {@code startS}, each rate multiplied by {@code rateScale}.
 */
public final class ReplayDemand implements DemandSource {
  private final RateTrace trace;
  private final double timeScale;
  private final double startS;
  private final double rateScale;
  private final LongSupplier clockMs;
  private final long startedMs;

  public ReplayDemand(
      RateTrace trace, double timeScale, double startS, double rateScale, LongSupplier clockMs) {
    this.trace = Checks.notNull("trace", trace);
    this.timeScale = Checks.positive("timeScale", timeScale);
    this.startS = Checks.nonNegative("startS", startS);
    this.rateScale = Checks.nonNegative("rateScale", rateScale);
    this.clockMs = Checks.notNull("clockMs", clockMs);
    this.startedMs = clockMs.getAsLong();
  }

  /** Trace time now, seconds. */
  public double traceTimeS() {
    return startS + (clockMs.getAsLong() - startedMs) / 1000.0 * timeScale;
  }

  @Override
  public double rate() {
    return trace.rateAt(traceTimeS()) * rateScale;
  }

  @Override
  public String name() {
    return "replay";
  }
}
