package io.aryl.am;

/**
 * How many worker failures a job survives: each failure spends one restart; one past the budget
 * fails the job.
 */
public final class RestartBudget {
  private final int maxRestarts;
  private int used;

  public RestartBudget(int maxRestarts) {
    if (maxRestarts < 0) {
      throw new IllegalArgumentException("max restarts must be >= 0, was " + maxRestarts);
    }
    this.maxRestarts = maxRestarts;
  }

  /** Records a failure; true if the job may restart the worker, false if the budget is spent. */
  public boolean spend() {
    used++;
    return used <= maxRestarts;
  }

  public int used() {
    return used;
  }

  public int max() {
    return maxRestarts;
  }
}
