package io.aryl.serve.loadgen;

import io.aryl.sim.trace.InferenceCurve;
import java.util.Arrays;

/**
 * A request-rate curve as the load generator plays it: in wall-clock seconds, one constant rate per
 * step. Made from a ServeGen curve by taking a slice of it, compressing its time ({@code compress
 * 60}: one trace minute a second) and scaling its rates; the rates stay requests per wall-clock
 * second, so a compressed curve keeps its levels and passes faster.
 */
public final class RateCurve {
  private final double stepS;
  private final double[] rps;

  /**
   * @param stepS each step's length, wall-clock seconds
   * @param rps each step's rate, requests per wall-clock second
   */
  public RateCurve(double stepS, double[] rps) {
    if (!(stepS > 0) || Double.isInfinite(stepS)) {
      throw new IllegalArgumentException("step must be > 0 s, was " + stepS);
    }
    for (double r : rps) {
      if (!(r >= 0) || Double.isInfinite(r)) {
        throw new IllegalArgumentException("a rate must be a number >= 0, was " + r);
      }
    }
    this.stepS = stepS;
    this.rps = rps.clone();
  }

  /** Each step's length, wall-clock seconds. */
  public double stepS() {
    return stepS;
  }

  /** Each step's rate, requests per wall-clock second (a copy). */
  public double[] rps() {
    return rps.clone();
  }

  /**
   * The part of {@code curve} from {@code fromS} for {@code durationS} trace seconds (to its end
   * when {@code durationS} is 0), each window's time divided by {@code compress} and its rate
   * multiplied by {@code rateScale}. The slice is cut at window bounds: it starts with the window
   * holding {@code fromS}.
   */
  public static RateCurve of(
      InferenceCurve curve, double fromS, double durationS, double compress, double rateScale) {
    if (!(compress > 0) || Double.isInfinite(compress)) {
      throw new IllegalArgumentException("--compress must be a number > 0, was " + compress);
    }
    if (!(rateScale >= 0) || Double.isInfinite(rateScale)) {
      throw new IllegalArgumentException("--rate-scale must be a number >= 0, was " + rateScale);
    }
    if (!(fromS >= 0) || fromS >= curve.durationS()) {
      throw new IllegalArgumentException(
          "--from-s must be within the trace (0 to " + curve.durationS() + " s), was " + fromS);
    }
    if (!(durationS >= 0)) {
      throw new IllegalArgumentException("--duration-s must be >= 0, was " + durationS);
    }
    double[] all = curve.rates();
    int first = (int) Math.floor(fromS / curve.windowS());
    int count =
        durationS == 0
            ? all.length - first
            : Math.max(1, (int) Math.ceil(durationS / curve.windowS()));
    int last = Math.min(all.length, first + count);
    double[] slice = Arrays.copyOfRange(all, first, last);
    for (int i = 0; i < slice.length; i++) {
      slice[i] *= rateScale;
    }
    return new RateCurve(curve.windowS() / compress, slice);
  }

  /** How long the curve plays, seconds. */
  public double durationS() {
    return stepS * rps.length;
  }

  /** The requests the curve offers on average. */
  public double expectedRequests() {
    return Arrays.stream(rps).sum() * stepS;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RateCurve c && c.stepS == stepS && Arrays.equals(c.rps, rps);
  }

  @Override
  public int hashCode() {
    return Double.hashCode(stepS) * 31 + Arrays.hashCode(rps);
  }

  @Override
  public String toString() {
    return "RateCurve[stepS=" + stepS + ", rps=" + Arrays.toString(rps) + "]";
  }
}
