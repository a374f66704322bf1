package io.aryl.demo;

/**
 * Time integrals of the pools, from samples: each sample's values hold until the next one.
 * GPU-seconds used on the training partition (the training pool's own nodes plus loaned ones),
 * GPU-seconds of that partition's capacity, and GPU-seconds on loan.
 */
public final class PoolMeter {
  private long lastMs = -1;
  private long used;
  private long capacity;
  private long loaned;
  private double usedGpuS;
  private double capacityGpuS;
  private double loanedGpuS;
  private int peakLoanedGpus;

  /**
   * Records the state at {@code nowMs}.
   *
   * @param trainingUsedGpus GPUs allocated on nodes labelled training
   * @param trainingGpus GPUs of nodes labelled training (own and loaned)
   * @param gpusOnLoan GPUs of inference nodes labelled training
   */
  public void sample(long nowMs, long trainingUsedGpus, long trainingGpus, long gpusOnLoan) {
    close(nowMs);
    used = trainingUsedGpus;
    capacity = trainingGpus;
    loaned = gpusOnLoan;
    peakLoanedGpus = (int) Math.max(peakLoanedGpus, gpusOnLoan);
  }

  /** Accounts the last sample's values up to {@code nowMs}. */
  public void close(long nowMs) {
    if (lastMs >= 0 && nowMs > lastMs) {
      double dt = (nowMs - lastMs) / 1000.0;
      usedGpuS += used * dt;
      capacityGpuS += capacity * dt;
      loanedGpuS += loaned * dt;
    }
    lastMs = Math.max(lastMs, nowMs);
  }

  public double usedGpuSeconds() {
    return usedGpuS;
  }

  public double capacityGpuSeconds() {
    return capacityGpuS;
  }

  public double loanedGpuSeconds() {
    return loanedGpuS;
  }

  public int peakLoanedGpus() {
    return peakLoanedGpus;
  }

  /** Used over capacity, 0..1; 0 with no capacity. */
  public double utilization() {
    return capacityGpuS <= 0 ? 0 : usedGpuS / capacityGpuS;
  }
}
