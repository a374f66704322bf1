package io.aryl.core.predict;

import io.aryl.core.model.Job;

/**
 * Knows the truth: the upper bound on what better prediction can buy. Only a simulator can run it.
 */
public final class OraclePredictor implements RuntimePredictor {
  @Override
  public double predictRemainingS(Job job) {
    return job.remainingS();
  }

  @Override
  public String toString() {
    return "oracle";
  }
}
