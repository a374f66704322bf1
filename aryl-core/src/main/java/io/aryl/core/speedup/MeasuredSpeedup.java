package io.aryl.core.speedup;

import java.util.Arrays;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Throughput read from measurements: a table of relative throughput by worker count, linearly
 * interpolated between measured counts and held flat beyond the largest one (no gain is assumed
 * that was not measured).
 */
public final class MeasuredSpeedup implements SpeedupModel {
  private final String name;
  private final int[] workers;
  private final double[] throughput;

  /**
   * @param name where the table came from, for messages and reports
   * @param throughputByWorkers measured throughput (any unit) by worker count; must contain 1
   *     worker
   */
  public MeasuredSpeedup(String name, Map<Integer, Double> throughputByWorkers) {
    this.name = name;
    SortedMap<Integer, Double> sorted = new TreeMap<>(throughputByWorkers);
    Double one = sorted.get(1);
    if (one == null || !(one > 0)) {
      throw new IllegalArgumentException(
          "speedup table '"
              + name
              + "' must have a positive throughput at 1 worker, has "
              + sorted.keySet());
    }
    workers = new int[sorted.size()];
    throughput = new double[sorted.size()];
    int i = 0;
    for (Map.Entry<Integer, Double> e : sorted.entrySet()) {
      if (e.getKey() < 1 || !(e.getValue() > 0) || e.getValue().isInfinite()) {
        throw new IllegalArgumentException(
            "speedup table '"
                + name
                + "' has a bad point: workers="
                + e.getKey()
                + ", throughput="
                + e.getValue());
      }
      workers[i] = e.getKey();
      throughput[i] = e.getValue() / one;
      i++;
    }
  }

  @Override
  public double throughput(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("workers must be > 0, was " + n);
    }
    int at = Arrays.binarySearch(workers, n);
    if (at >= 0) {
      return throughput[at];
    }
    int hi = -at - 1;
    if (hi >= workers.length) {
      return throughput[workers.length - 1];
    }
    int lo = hi - 1; // exists: workers[0] == 1 <= n
    double t = (double) (n - workers[lo]) / (workers[hi] - workers[lo]);
    return throughput[lo] + t * (throughput[hi] - throughput[lo]);
  }

  /** The largest measured worker count. */
  public int maxMeasuredWorkers() {
    return workers[workers.length - 1];
  }

  public String name() {
    return name;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MeasuredSpeedup m
        && name.equals(m.name)
        && Arrays.equals(workers, m.workers)
        && Arrays.equals(throughput, m.throughput);
  }

  @Override
  public int hashCode() {
    return name.hashCode() * 31 + Arrays.hashCode(throughput);
  }

  @Override
  public String toString() {
    return "measured(" + name + ")";
  }
}
