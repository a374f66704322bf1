package io.aryl.sim.trace;

import java.util.Arrays;

/**
 * An inference request-rate curve: one rate per window of equal length, window {@code i} covering
 * {@code [i * windowS, (i + 1) * windowS)} seconds from the curve's start. The curve is piecewise
 * constant and, past its end, repeats from its start, so a 14-day curve drives a simulation of any
 * length with its daily cycle intact (when the curve covers whole days).
 *
 * <p>The array is copied in and out; the record compares by content.
 *
 * @param model the model the rates are for
 * @param windowS window length, seconds, {@code > 0}
 * @param rates requests per second in each window, finite and {@code >= 0}, at least one
 */
@SuppressWarnings("ArrayRecordComponent") // copied in and out; equals and hashCode compare content
public record InferenceCurve(String model, double windowS, double[] rates) {

  public InferenceCurve {
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException(
          "inference curve model must not be blank, was "
              + (model == null ? "null" : "'" + model + "'"));
    }
    if (!(windowS > 0) || Double.isInfinite(windowS)) {
      throw new IllegalArgumentException(
          "inference curve(" + model + ").windowS must be a finite number > 0, was " + windowS);
    }
    if (rates == null || rates.length == 0) {
      throw new IllegalArgumentException(
          "inference curve(" + model + ").rates must hold at least one window");
    }
    rates = rates.clone();
    for (int i = 0; i < rates.length; i++) {
      if (!(rates[i] >= 0) || Double.isInfinite(rates[i])) {
        throw new IllegalArgumentException(
            "inference curve("
                + model
                + ").rates["
                + i
                + "] must be a finite number >= 0, was "
                + rates[i]);
      }
    }
  }

  /** A copy of the rates, one per window. */
  @Override
  public double[] rates() {
    return rates.clone();
  }

  /**
   * The curve with its gaps bridged: a run of zero-rate windows between two non-zero ones is a hole
   * in the released data (ServeGen m-small has 37 such windows, 02:00-09:10 on days 7-13, between
   * windows of 1,000+ rps), not an idle fleet, so it is replaced by a straight line between its
   * neighbours. Zeros at either end are kept.
   */
  public InferenceCurve bridgeGaps() {
    double[] r = rates.clone();
    int i = 0;
    while (i < r.length) {
      if (r[i] != 0) {
        i++;
        continue;
      }
      int end = i;
      while (end < r.length && r[end] == 0) {
        end++;
      }
      if (i > 0 && end < r.length) {
        double from = r[i - 1];
        double to = r[end];
        int span = end - i + 1;
        for (int k = i; k < end; k++) {
          r[k] = from + (to - from) * (k - i + 1) / span;
        }
      }
      i = end;
    }
    return new InferenceCurve(model, windowS, r);
  }

  /** Windows with a zero rate. */
  public int zeroWindows() {
    int n = 0;
    for (double r : rates) {
      if (r == 0) {
        n++;
      }
    }
    return n;
  }

  /** Number of windows. */
  public int windows() {
    return rates.length;
  }

  /**
   * The rate at {@code tS} seconds from the curve's start: that of the window holding {@code tS},
   * the curve being repeated past its end ({@code rateAt(t) == rateAt(t + durationS())}).
   */
  public double rateAt(double tS) {
    if (!(tS >= 0) || Double.isInfinite(tS)) {
      throw new IllegalArgumentException(
          "inference curve(" + model + ").rateAt: time must be a finite number >= 0, was " + tS);
    }
    long window = (long) Math.floor(tS / windowS);
    return rates[(int) (window % rates.length)];
  }

  /** The highest rate. */
  public double peak() {
    return Arrays.stream(rates).max().orElseThrow();
  }

  /** The time-weighted mean rate over one period (all windows are equally long). */
  public double mean() {
    return Arrays.stream(rates).sum() / rates.length;
  }

  /** The length of one period of the curve: {@code windows() * windowS}. */
  public double durationS() {
    return rates.length * windowS;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InferenceCurve c
        && model.equals(c.model)
        && Double.compare(windowS, c.windowS) == 0
        && Arrays.equals(rates, c.rates);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * model.hashCode() + Double.hashCode(windowS)) + Arrays.hashCode(rates);
  }

  @Override
  public String toString() {
    return "InferenceCurve[model="
        + model
        + ", windowS="
        + windowS
        + ", windows="
        + rates.length
        + ", mean="
        + mean()
        + ", peak="
        + peak()
        + "]";
  }
}
