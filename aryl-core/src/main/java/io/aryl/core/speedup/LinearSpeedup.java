package io.aryl.core.speedup;

import io.aryl.core.model.Checks;

/** Perfect scaling: n workers run n times as fast as one. An upper bound, rarely met. */
public final class LinearSpeedup implements SpeedupModel {
  static final LinearSpeedup INSTANCE = new LinearSpeedup();

  private LinearSpeedup() {}

  @Override
  public double throughput(int workers) {
    Checks.positive("workers", workers);
    return workers;
  }

  @Override
  public String toString() {
    return "linear";
  }
}
