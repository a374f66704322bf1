package io.aryl.sim.engine;

import java.util.List;

/**
 * Everything one policy's run produced: finished jobs, samples over time, and the counters that
 * cannot be derived from them.
 *
 * @param policy the policy's name
 * @param jobs finished jobs inside the measured window
 * @param samples the cluster over time (one per sampling interval)
 * @param windowS length of the measured window, seconds
 * @param trainingGpus GPUs of the training pool
 * @param inferenceGpus GPUs of the inference pool
 * @param trainingBusyGpuS GPU-seconds training workers ran on training-pool GPUs in the window
 * @param loanedBusyGpuS GPU-seconds training workers ran on loaned GPUs in the window
 * @param inferenceBusyGpuS GPU-seconds of inference demand served in the window (by servers not on
 *     loan)
 * @param loanedGpuS GPU-seconds inference GPUs spent on loan (busy or not)
 * @param workGpuS GPU-seconds of work the finished jobs represent at requested width on reference
 *     GPUs
 * @param preemptions jobs stopped and sent back to the queue
 * @param scaleIns times a running job lost workers and kept running
 * @param lostGpuS GPU-seconds of training work thrown away by preemptions (progress since the last
 *     checkpoint)
 * @param inferenceShortfallServerS server-seconds inference needed and did not have: servers on
 *     loan, and servers back from a reclaim until they serve (drain, relabel, replica start)
 * @param unfinishedJobs jobs submitted in the window that had not finished when the run ended
 * @param simWallS wall-clock seconds the run took
 * @param spentGpuS GPU-seconds the finished jobs held while running (pauses and lost work included)
 * @param capacityBoundS the finished jobs' mean JCT under SRPT on one machine as fast as every GPU
 *     of both pools ({@link CapacityBound}): no policy's mean JCT is lower; 0 when not computed
 * @param inferenceShortS seconds of the window in which inference had fewer servers serving than it
 *     needed (any number short)
 */
public record PolicyResult(
    String policy,
    List<JobRecord> jobs,
    List<Sample> samples,
    double windowS,
    int trainingGpus,
    int inferenceGpus,
    double trainingBusyGpuS,
    double loanedBusyGpuS,
    double inferenceBusyGpuS,
    double loanedGpuS,
    double workGpuS,
    long preemptions,
    long scaleIns,
    double lostGpuS,
    double inferenceShortfallServerS,
    int unfinishedJobs,
    double simWallS,
    double spentGpuS,
    double capacityBoundS,
    double inferenceShortS) {

  /** A result that does not track the GPU-seconds jobs spent ({@code gpu_s_per_work} reads 0). */
  public PolicyResult(
      String policy,
      List<JobRecord> jobs,
      List<Sample> samples,
      double windowS,
      int trainingGpus,
      int inferenceGpus,
      double trainingBusyGpuS,
      double loanedBusyGpuS,
      double inferenceBusyGpuS,
      double loanedGpuS,
      double workGpuS,
      long preemptions,
      long scaleIns,
      double lostGpuS,
      double inferenceShortfallServerS,
      int unfinishedJobs,
      double simWallS) {
    this(
        policy,
        jobs,
        samples,
        windowS,
        trainingGpus,
        inferenceGpus,
        trainingBusyGpuS,
        loanedBusyGpuS,
        inferenceBusyGpuS,
        loanedGpuS,
        workGpuS,
        preemptions,
        scaleIns,
        lostGpuS,
        inferenceShortfallServerS,
        unfinishedJobs,
        simWallS,
        0);
  }

  /**
   * A result with no capacity-aware bound ({@code jct_capacity_bound_s} is then the per-job bound).
   */
  public PolicyResult(
      String policy,
      List<JobRecord> jobs,
      List<Sample> samples,
      double windowS,
      int trainingGpus,
      int inferenceGpus,
      double trainingBusyGpuS,
      double loanedBusyGpuS,
      double inferenceBusyGpuS,
      double loanedGpuS,
      double workGpuS,
      long preemptions,
      long scaleIns,
      double lostGpuS,
      double inferenceShortfallServerS,
      int unfinishedJobs,
      double simWallS,
      double spentGpuS) {
    this(
        policy,
        jobs,
        samples,
        windowS,
        trainingGpus,
        inferenceGpus,
        trainingBusyGpuS,
        loanedBusyGpuS,
        inferenceBusyGpuS,
        loanedGpuS,
        workGpuS,
        preemptions,
        scaleIns,
        lostGpuS,
        inferenceShortfallServerS,
        unfinishedJobs,
        simWallS,
        spentGpuS,
        0);
  }

  /**
   * A result that does not track how long inference was short ({@code inference_short_share} 0).
   */
  public PolicyResult(
      String policy,
      List<JobRecord> jobs,
      List<Sample> samples,
      double windowS,
      int trainingGpus,
      int inferenceGpus,
      double trainingBusyGpuS,
      double loanedBusyGpuS,
      double inferenceBusyGpuS,
      double loanedGpuS,
      double workGpuS,
      long preemptions,
      long scaleIns,
      double lostGpuS,
      double inferenceShortfallServerS,
      int unfinishedJobs,
      double simWallS,
      double spentGpuS,
      double capacityBoundS) {
    this(
        policy,
        jobs,
        samples,
        windowS,
        trainingGpus,
        inferenceGpus,
        trainingBusyGpuS,
        loanedBusyGpuS,
        inferenceBusyGpuS,
        loanedGpuS,
        workGpuS,
        preemptions,
        scaleIns,
        lostGpuS,
        inferenceShortfallServerS,
        unfinishedJobs,
        simWallS,
        spentGpuS,
        capacityBoundS,
        0);
  }

  public PolicyResult {
    io.aryl.core.model.Checks.notBlank("policy", policy);
    jobs = List.copyOf(jobs);
    samples = List.copyOf(samples);
  }
}
