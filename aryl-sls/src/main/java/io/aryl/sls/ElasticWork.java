package io.aryl.sls;

/**
 * The work of one simulated elastic job: {@code minWorkers x runtimeAtMin} worker-milliseconds,
 * done at a rate of one per worker held and per millisecond, from its minimum up to its maximum
 * workers; below its minimum it does nothing (a gang that is not whole does not train). Linear
 * speed-up is the simplest model that still rewards growth; SLS judges the scheduler's mechanics,
 * aryl-sim judges the policy with measured speed-up curves.
 */
final class ElasticWork {
  private final int minWorkers;
  private final int maxWorkers;
  private double remainingWorkerMs;

  ElasticWork(int minWorkers, int maxWorkers, long runtimeAtMinMs) {
    if (minWorkers < 1 || maxWorkers < minWorkers || runtimeAtMinMs < 0) {
      throw new IllegalArgumentException(
          "elastic work needs 1 <= min <= max and a runtime >= 0, was min "
              + minWorkers
              + ", max "
              + maxWorkers
              + ", runtime "
              + runtimeAtMinMs
              + " ms");
    }
    this.minWorkers = minWorkers;
    this.maxWorkers = maxWorkers;
    this.remainingWorkerMs = (double) minWorkers * runtimeAtMinMs;
  }

  /**
   * Workers that make progress when {@code held} are held: none below the minimum, at most the
   * maximum.
   */
  int working(int held) {
    return held < minWorkers ? 0 : Math.min(held, maxWorkers);
  }

  /** Runs {@code elapsedMs} with {@code held} workers. */
  void advance(long elapsedMs, int held) {
    remainingWorkerMs =
        Math.max(0, remainingWorkerMs - (double) working(held) * Math.max(0, elapsedMs));
  }

  boolean done() {
    return remainingWorkerMs <= 0;
  }

  double remainingWorkerMs() {
    return remainingWorkerMs;
  }
}
