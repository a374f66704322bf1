package io.aryl.demo;

import io.aryl.core.ArylPolicy;

/**
 * What one run of the demo schedules with: the speed-aware policy, the paper's, or the stock
 * Capacity Scheduler.
 */
public enum RunMode {
  /** ArylScheduler with {@code aryl.scheduler.policy=aryl+}, and the loan controller. */
  ARYL_PLUS(ArylPolicy.ARYL_PLUS.policyName(), "Aryl+ on", "arylPlusOn"),
  /**
   * ArylScheduler with the paper's policy ({@code aryl.scheduler.policy=aryl}), and the loan
   * controller.
   */
  ARYL(ArylPolicy.ARYL.policyName(), "Aryl on", "arylOn"),
  /** {@code aryl.scheduler.enabled=false}: the stock Capacity Scheduler, no loans. */
  OFF("off", "Aryl off", "arylOff");

  private final String option;
  private final String label;
  private final String jsonKey;

  RunMode(String option, String label, String jsonKey) {
    this.option = option;
    this.label = label;
    this.jsonKey = jsonKey;
  }

  /** Its name in {@code --runs}. */
  public String option() {
    return option;
  }

  /** Its column in the table and its name in the progress lines. */
  public String label() {
    return label;
  }

  /** Its key under {@code runs} in the JSON file. */
  public String jsonKey() {
    return jsonKey;
  }

  /** Whether Aryl schedules (and the loan controller lends). */
  public boolean aryl() {
    return this != OFF;
  }

  /** {@code aryl.scheduler.policy} of the run; null when Aryl is off. */
  public String policy() {
    return aryl() ? option : null;
  }
}
