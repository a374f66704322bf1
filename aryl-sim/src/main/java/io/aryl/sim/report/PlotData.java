package io.aryl.sim.report;

import io.aryl.sim.engine.Sample;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * What the plots draw, reduced to at most a few thousand points: time series averaged over equal
 * buckets and empirical CDFs. Pure arithmetic on arrays; {@link Plots} styles and renders it.
 */
final class PlotData {
  private PlotData() {}

  /**
   * A time series in {@code unitS} units, averaged over equal time buckets when it has too many
   * points.
   */
  @SuppressWarnings("ArrayRecordComponent") // handed to JFreeChart as arrays, never compared
  record Series(double[] x, double[] y, double bucketS) {
    static Series ofSamples(List<Sample> samples, double unitS, ToDoubleFunction<Sample> f) {
      double[] t = new double[samples.size()];
      double[] v = new double[samples.size()];
      for (int i = 0; i < t.length; i++) {
        t[i] = samples.get(i).timeS();
        v[i] = f.applyAsDouble(samples.get(i));
      }
      Series s = bucketMeans(t, v, Plots.MAX_POINTS);
      double[] scaled = Arrays.stream(s.x).map(d -> d / unitS).toArray();
      return new Series(scaled, s.y, s.bucketS);
    }

    double[][] xy() {
      return new double[][] {x, y};
    }
  }

  /**
   * {@code (t, v)} unchanged if it has at most {@code max} points; otherwise the mean time and
   * value of the points in each of {@code max} equal time buckets (empty buckets dropped), with the
   * bucket length.
   */
  static Series bucketMeans(double[] t, double[] v, int max) {
    if (t.length <= max) {
      return new Series(t, v, 0);
    }
    double lo = Arrays.stream(t).min().orElse(0);
    double hi = Arrays.stream(t).max().orElse(0);
    double width = (hi - lo) / max;
    double[] sumT = new double[max];
    double[] sumV = new double[max];
    int[] count = new int[max];
    for (int i = 0; i < t.length; i++) {
      int b = width == 0 ? 0 : (int) Math.min(max - 1, (t[i] - lo) / width);
      sumT[b] += t[i];
      sumV[b] += v[i];
      count[b]++;
    }
    int n = (int) Arrays.stream(count).filter(c -> c > 0).count();
    double[] x = new double[n];
    double[] y = new double[n];
    int k = 0;
    for (int b = 0; b < max; b++) {
      if (count[b] > 0) {
        x[k] = sumT[b] / count[b];
        y[k] = sumV[b] / count[b];
        k++;
      }
    }
    return new Series(x, y, width);
  }

  /**
   * The empirical CDF of sorted values as step-plot points: a start at (min, 0), then (value, share
   * at or below it) for each distinct value, thinned to about {@code max} points by evenly spaced
   * ranks (the last always kept).
   */
  static double[][] ecdf(double[] sorted, int max) {
    int n = sorted.length;
    List<double[]> points = new ArrayList<>();
    points.add(new double[] {sorted[0], 0});
    for (int i = 0; i < n; i++) {
      if (i == n - 1 || sorted[i + 1] != sorted[i]) {
        points.add(new double[] {sorted[i], (i + 1.0) / n});
      }
    }
    if (points.size() > max) {
      List<double[]> thinned = new ArrayList<>(max);
      double step = (points.size() - 1.0) / (max - 1);
      for (int k = 0; k < max; k++) {
        thinned.add(points.get((int) Math.round(k * step)));
      }
      points = thinned;
    }
    double[][] xy = new double[2][points.size()];
    for (int i = 0; i < points.size(); i++) {
      xy[0][i] = points.get(i)[0];
      xy[1][i] = points.get(i)[1];
    }
    return xy;
  }
}
