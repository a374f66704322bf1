package io.aryl.sls;

/**
 * What became of one simulated elastic job, in milliseconds of the simulation's clock: when it was
 * submitted, when its ApplicationMaster started, when its base gang was first whole, when it
 * finished (each -1 if not yet), and how it was grown and shrunk.
 */
public record SlsJobRecord(
    String appId,
    String traceJobId,
    int minWorkers,
    int maxWorkers,
    int gpusPerWorker,
    long submittedMs,
    long amStartedMs,
    long baseStartedMs,
    long finishedMs,
    int mostWorkersHeld,
    int workersGivenBack) {

  /**
   * Submission to a running ApplicationMaster: the part of the queue time spent before the job
   * could ask.
   */
  public long amWaitMs() {
    return amStartedMs < 0 ? -1 : amStartedMs - submittedMs;
  }

  /** Submission to a whole base gang: the job's queue time; -1 if it never started. */
  public long queueMs() {
    return baseStartedMs < 0 ? -1 : baseStartedMs - submittedMs;
  }

  public boolean finished() {
    return finishedMs >= 0;
  }

  /** Held more than its base at some time. */
  public boolean grew() {
    return mostWorkersHeld > minWorkers;
  }
}
