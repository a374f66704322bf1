package io.aryl.core.speedup;

import io.aryl.core.model.Checks;

/**
 * Diminishing returns: {@code throughput(n) = n^exponent} with {@code 0 < exponent <= 1}. An
 * exponent of 0.8 is a common fit for data-parallel training over a fast interconnect. Immutable.
 */
public final class PowerLawSpeedup implements SpeedupModel {
  /**
   * Widths whose throughput is worked out once, when the model is made: a round prices every width
   * of every elastic job, and a power is dear next to a table look-up. The table holds what {@code
   * Math.pow} gives, so the values are the same either way.
   */
  private static final int TABLED_WORKERS = 128;

  private final double exponent;
  private final double[] byWorkers; // [n] = n^exponent for 1 <= n <= TABLED_WORKERS

  public PowerLawSpeedup(double exponent) {
    if (!(exponent > 0 && exponent <= 1)) {
      throw new IllegalArgumentException("speedup.exponent must be within (0, 1], was " + exponent);
    }
    this.exponent = exponent;
    this.byWorkers = new double[TABLED_WORKERS + 1];
    for (int n = 1; n <= TABLED_WORKERS; n++) {
      byWorkers[n] = Math.pow(n, exponent);
    }
  }

  public double exponent() {
    return exponent;
  }

  @Override
  public double throughput(int workers) {
    Checks.positive("workers", workers);
    return workers <= TABLED_WORKERS ? byWorkers[workers] : Math.pow(workers, exponent);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PowerLawSpeedup p && Double.compare(exponent, p.exponent) == 0;
  }

  @Override
  public int hashCode() {
    return Double.hashCode(exponent);
  }

  @Override
  public String toString() {
    return "power-law(" + exponent + ")";
  }
}
