package io.aryl.serve.loadgen;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Open-loop Poisson arrivals on a {@link RateCurve}: within each step, gaps drawn from the
 * exponential distribution of that step's rate; at a step's end the draw starts afresh from the
 * next step's start (the process is memoryless, so this is exact for a piecewise-constant rate).
 * The same curve and seed give the same times.
 */
public final class Arrivals {
  private Arrivals() {}

  /** Arrival times, seconds from the start, ascending. */
  public static double[] times(RateCurve curve, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] rps = curve.rps();
    double[] out = new double[Math.max(16, (int) (curve.expectedRequests() * 1.1) + 16)];
    int n = 0;
    for (int step = 0; step < rps.length; step++) {
      double start = step * curve.stepS();
      double end = start + curve.stepS();
      if (rps[step] <= 0) {
        continue;
      }
      double t = start;
      while (true) {
        // 1 - u is in (0, 1]: the log is finite.
        t += -Math.log(1 - random.nextDouble()) / rps[step];
        if (t >= end) {
          break;
        }
        if (n == out.length) {
          out = Arrays.copyOf(out, out.length * 2);
        }
        out[n++] = t;
      }
    }
    return Arrays.copyOf(out, n);
  }
}
