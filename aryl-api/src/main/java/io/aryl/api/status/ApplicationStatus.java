package io.aryl.api.status;

import java.util.Map;

/**
 * One elastic application of the status's {@link SchedulerStatus#applications()}: its shape, the
 * last round's target against the workers it runs, and what a preemption would cost it.
 *
 * @param application the application id
 * @param minWorkers its base gang ({@code aryl.min-workers})
 * @param maxWorkers its most workers ({@code aryl.max-workers})
 * @param gpusPerWorker GPUs of each worker
 * @param predictedRuntimeS its predicted runtime at one worker, seconds
 * @param targetWorkers the workers the plan gives it
 * @param targetByNode the plan's workers by node
 * @param actualWorkers the workers the last round saw running
 * @param askedWorkers the workers it asks for (held, asked for, or being committed)
 * @param change the last round's decision for it
 * @param sinceCheckpointS the work, in seconds, a preemption would lose on each of its GPUs as the
 *     last round priced it; null when the last round did not plan it
 * @param team the child queue of the training queue it runs in ({@code ""} without teams); null
 *     when the last round did not plan it
 * @param belowMaxBecause why the last round runs it below its {@code maxWorkers}, in words (the
 *     round's reason, or its ApplicationMaster asking for fewer); null when the round runs it at
 *     its maximum or does not run it
 * @param preemptions times the scheduler stopped it as a whole (for a shorter job, a reclaim or a
 *     team's guarantee), as stored with the job: aryl+ stops it for a shorter job only while this
 *     is below its budget
 */
public record ApplicationStatus(
    String application,
    int minWorkers,
    int maxWorkers,
    int gpusPerWorker,
    double predictedRuntimeS,
    int targetWorkers,
    Map<String, Integer> targetByNode,
    int actualWorkers,
    int askedWorkers,
    Change change,
    Double sinceCheckpointS,
    String team,
    String belowMaxBecause,
    int preemptions) {
  public ApplicationStatus {
    targetByNode = Copies.map(targetByNode);
  }

  /** An application never preempted. */
  public ApplicationStatus(
      String application,
      int minWorkers,
      int maxWorkers,
      int gpusPerWorker,
      double predictedRuntimeS,
      int targetWorkers,
      Map<String, Integer> targetByNode,
      int actualWorkers,
      int askedWorkers,
      Change change,
      Double sinceCheckpointS,
      String team,
      String belowMaxBecause) {
    this(
        application,
        minWorkers,
        maxWorkers,
        gpusPerWorker,
        predictedRuntimeS,
        targetWorkers,
        targetByNode,
        actualWorkers,
        askedWorkers,
        change,
        sinceCheckpointS,
        team,
        belowMaxBecause,
        0);
  }

  /**
   * An application never preempted, which the last round runs at its maximum, or does not run: no
   * reason to give.
   */
  public ApplicationStatus(
      String application,
      int minWorkers,
      int maxWorkers,
      int gpusPerWorker,
      double predictedRuntimeS,
      int targetWorkers,
      Map<String, Integer> targetByNode,
      int actualWorkers,
      int askedWorkers,
      Change change,
      Double sinceCheckpointS,
      String team) {
    this(
        application,
        minWorkers,
        maxWorkers,
        gpusPerWorker,
        predictedRuntimeS,
        targetWorkers,
        targetByNode,
        actualWorkers,
        askedWorkers,
        change,
        sinceCheckpointS,
        team,
        null);
  }

  /** How a round changed a job's allocation; {@link #NONE} when it did not. */
  public enum Change {
    NONE,
    /** Queued, runs next. */
    START,
    /** Runs with more workers. */
    GROW,
    /** Runs with fewer workers: flexible workers are released, the job keeps running. */
    SHRINK,
    /** As many workers, some on other nodes. */
    MOVE,
    /** Stops and goes back to the queue. */
    PREEMPT
  }
}
