package io.aryl.core.loan;

import io.aryl.core.model.Checks;
import java.util.function.DoubleUnaryOperator;

/**
 * A seasonal-naive forecast of inference demand: the peak over the next {@code horizonS} is taken
 * to be the peak over the same hours one period (a day) earlier. Inference traffic follows the
 * clock, so yesterday's evening rise says today's is coming: lending against the forecast peak
 * instead of the current rate keeps servers from being lent at 17:00 only to be taken back, with
 * the training work on them, at 18:00.
 *
 * <p>Reads only the past: the horizon must be shorter than the period.
 */
public record DemandForecast(double horizonS, double periodS, double stepS) {
  public DemandForecast {
    Checks.positive("forecast.horizonS", horizonS);
    Checks.positive("forecast.periodS", periodS);
    Checks.positive("forecast.stepS", stepS);
    if (horizonS >= periodS) {
      throw new IllegalArgumentException(
          "forecast.horizonS must be < forecast.periodS (the forecast reads only the "
              + "past), was horizonS="
              + horizonS
              + ", periodS="
              + periodS);
    }
  }

  /** A day-periodic forecast over {@code horizonS}, sampled every 10 minutes. */
  public static DemandForecast daily(double horizonS) {
    return new DemandForecast(horizonS, 86400, 600);
  }

  /**
   * The demand to plan loans for at time {@code t}: the larger of the current rate and the forecast
   * peak. Before one period of history exists, the current rate.
   *
   * @param rateAt the observed rate at a time (only times <= t are read)
   */
  public double planningRate(DoubleUnaryOperator rateAt, double t) {
    double rate = rateAt.applyAsDouble(t);
    if (t < periodS) {
      return rate;
    }
    for (double dt = 0; dt <= horizonS; dt += stepS) {
      rate = Math.max(rate, rateAt.applyAsDouble(t + dt - periodS));
    }
    return rate;
  }
}
