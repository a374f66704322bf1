package io.aryl.core.speedup;

/**
 * How a data-parallel job's throughput grows with its number of workers.
 *
 * <p>{@link #throughput(int)} is relative to one worker: {@code throughput(1) == 1}. A job's time
 * to finish a fixed amount of work at {@code n} workers is proportional to {@code 1 /
 * throughput(n)}.
 */
public interface SpeedupModel {
  /** Relative throughput at {@code workers} workers (>= 1); {@code throughput(1) == 1}. */
  double throughput(int workers);

  /**
   * Ratio of the time at {@code from} workers to the time at {@code to} workers (> 1 means faster).
   */
  default double speedup(int from, int to) {
    return throughput(to) / throughput(from);
  }

  static SpeedupModel linear() {
    return LinearSpeedup.INSTANCE;
  }

  static SpeedupModel powerLaw(double exponent) {
    return new PowerLawSpeedup(exponent);
  }
}
