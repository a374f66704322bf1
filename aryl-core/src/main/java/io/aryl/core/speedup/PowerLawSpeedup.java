package io.aryl.core.speedup;

import io.aryl.core.model.Checks;

/**
 * Diminishing returns: {@code throughput(n) = n^exponent} with {@code 0 < exponent <= 1}. An exponent of 0.8 is a
 * common fit for data-parallel training over a fast interconnect.
 */
public record PowerLawSpeedup(double exponent) implements SpeedupModel {
  public PowerLawSpeedup {
    if (!(exponent > 0 && exponent <= 1)) {
      throw new IllegalArgumentException("speedup.exponent must be within (0, 1], was " + exponent);
    }
  }

  @Override
  public double throughput(int workers) {
    Checks.positive("workers", workers);
    return Math.pow(workers, exponent);
  }

  @Override
  public String toString() {
    return "power-law(" + exponent + ")";
  }
}
