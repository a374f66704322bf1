/*
 * Licensed under the Apache License, Version 2.0 (the "License"); you may not use this file except in compliance
 * with the License. You may obtain a copy of the License at http://www.apache.org/licenses/LICENSE-2.0
 */
package org.apache.hadoop.yarn.sls.scheduler;

import java.util.concurrent.TimeUnit;

/**
 * Aryl: the package-private steps of {@link SLSSchedulerCommons} and {@link SchedulerMetrics} that
 * a scheduler wrapper needs. SLS's own wrappers live in this package and call them directly; {@code
 * io.aryl.sls.SLSArylScheduler} calls them through this class.
 */
public final class SchedulerCommonsAccess {
  private SchedulerCommonsAccess() {}

  /** Flushes and closes SLS's metric writers (output/metrics, realtimetrack.json). */
  public static void stopMetrics(SLSSchedulerCommons commons) {
    commons.stopMetrics();
  }

  /** Counts a commit of a proposal and times it, as SLSCapacityScheduler.tryCommit does. */
  public static void recordCommit(SLSSchedulerCommons commons, boolean committed, long elapsedNs) {
    SchedulerMetrics metrics = commons.getSchedulerMetrics();
    if (committed) {
      metrics.getSchedulerCommitSuccessTimer().update(elapsedNs, TimeUnit.NANOSECONDS);
      metrics.increaseSchedulerCommitSuccessCounter();
    } else {
      metrics.getSchedulerCommitFailureTimer().update(elapsedNs, TimeUnit.NANOSECONDS);
      metrics.increaseSchedulerCommitFailureCounter();
    }
  }
}
