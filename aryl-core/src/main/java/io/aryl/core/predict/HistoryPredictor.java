package io.aryl.core.predict;

import io.aryl.core.model.Checks;
import io.aryl.core.model.Job;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Predicts from finished jobs: a job is expected to need as much total work as the median of recent
 * jobs of its {@link Job#kind() kind}, less what it has already done. This is what a real cluster
 * can do without asking users for estimates; the median rather than the mean keeps one runaway job
 * from skewing a kind.
 *
 * <p>The prediction is {@code max(median - attained, floorS)}: a job that has outlived its history
 * is expected to need a little more, not nothing, so it is neither treated as finished nor given
 * unbounded priority. Where the median comes from, first match wins:
 *
 * <ol>
 *   <li>the last {@code window} totals of the job's kind, if there are at least {@code minSamples}
 *       of them;
 *   <li>the last {@code window} totals over all kinds, if there are any (jobs with an empty kind
 *       always use this);
 *   <li>{@code defaultTotalS}, a prior for a cluster with no history yet.
 * </ol>
 *
 * <p>Memory is bounded per kind by {@code window}. Deterministic: the same observations in the same
 * order give the same predictions. <strong>Not thread-safe</strong>: the scheduler observes and
 * predicts from one thread; guard it externally otherwise.
 */
public final class HistoryPredictor implements RuntimePredictor {
  public static final int DEFAULT_WINDOW = 1000;
  public static final int DEFAULT_MIN_SAMPLES = 3;
  public static final double DEFAULT_FLOOR_S = 60;
  public static final double DEFAULT_TOTAL_S = 3600;

  private final int window;
  private final int minSamples;
  private final double floorS;
  private final double defaultTotalS;

  private final Map<String, Samples> byKind = new HashMap<>();
  private final Samples all;

  /** Window 1000, 3 samples per kind, 60 s floor, 3600 s with no history. */
  public HistoryPredictor() {
    this(DEFAULT_WINDOW, DEFAULT_MIN_SAMPLES, DEFAULT_FLOOR_S, DEFAULT_TOTAL_S);
  }

  /**
   * @param window how many recent totals to keep per kind, and over all kinds
   * @param minSamples how many totals a kind needs before its own median is trusted; at most {@code
   *     window}
   * @param floorS the least remaining work ever predicted, in base-seconds
   * @param defaultTotalS the total work assumed while nothing has been observed, in base-seconds
   */
  public HistoryPredictor(int window, int minSamples, double floorS, double defaultTotalS) {
    this.window = Checks.positive("history.window", window);
    this.minSamples = Checks.positive("history.minSamples", minSamples);
    if (minSamples > window) {
      throw new IllegalArgumentException(
          "history.minSamples must be <= history.window, was minSamples="
              + minSamples
              + ", window="
              + window);
    }
    this.floorS = Checks.nonNegative("history.floorS", floorS);
    this.defaultTotalS = Checks.nonNegative("history.defaultTotalS", defaultTotalS);
    this.all = new Samples(window);
  }

  /**
   * Records a finished job's total work in base-seconds; an empty kind counts only towards all
   * kinds.
   */
  public void observe(String kind, double totalBaseSeconds) {
    Checks.notNull("history.kind", kind);
    Checks.nonNegative("history.totalBaseSeconds", totalBaseSeconds);
    if (!kind.isEmpty()) {
      byKind.computeIfAbsent(kind, k -> new Samples(window)).add(totalBaseSeconds);
    }
    all.add(totalBaseSeconds);
  }

  @Override
  public double predictRemainingS(Job job) {
    return Math.max(expectedTotalS(job.kind()) - job.attainedS(), floorS);
  }

  /** The total work a job of this kind is expected to need, before subtracting what it has done. */
  public double expectedTotalS(String kind) {
    Samples own = byKind.get(kind);
    if (own != null && own.size() >= minSamples) {
      return own.median();
    }
    if (all.size() > 0) {
      return all.median();
    }
    return defaultTotalS;
  }

  /** How many totals are kept for this kind (at most {@code window}). */
  public int samples(String kind) {
    Samples own = byKind.get(kind);
    return own == null ? 0 : own.size();
  }

  @Override
  public String toString() {
    return "history(window="
        + window
        + ", minSamples="
        + minSamples
        + ", floor="
        + floorS
        + "s, "
        + byKind.size()
        + " kinds, "
        + all.size()
        + " recent jobs)";
  }

  /** The last {@code capacity} values, with the median cached until the next one arrives. */
  private static final class Samples {
    private final int capacity;
    private final ArrayDeque<Double> values = new ArrayDeque<>();
    private double median = Double.NaN;

    Samples(int capacity) {
      this.capacity = capacity;
    }

    void add(double v) {
      if (values.size() == capacity) {
        values.removeFirst();
      }
      values.addLast(v);
      median = Double.NaN;
    }

    int size() {
      return values.size();
    }

    double median() {
      if (Double.isNaN(median)) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        median = sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
      }
      return median;
    }
  }
}
