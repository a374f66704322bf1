package io.aryl.sim.engine;

import io.aryl.core.model.Checks;

/**
 * The simulated world's constants. Every field is stated in the report, so a result can be reproduced.
 *
 * @param trainingServers servers of the training pool
 * @param inferenceServers servers of the inference pool, provisioned for the inference curve's peak
 * @param gpusPerServer GPUs on every server
 * @param inferenceGpuSpeed training speed of an inference GPU relative to a training GPU (e.g. 0.5)
 * @param roundIntervalS seconds between scheduling rounds (a round runs only if something changed)
 * @param sampleIntervalS seconds between time-series samples
 * @param checkpointIntervalS seconds of running between a job's checkpoints; a preemption loses the progress since
 *     the last one
 * @param rescaleOverheadS seconds a job pauses when its width changes (it checkpoints, re-forms, restores)
 * @param restartOverheadS seconds a preempted job needs to restart from its checkpoint
 * @param reclaimGraceS seconds between asking a loaned server back and taking it
 * @param headroom inference capacity kept above the demand, as a fraction
 * @param loanMarginServers inference servers kept back beyond the need before any is lent
 * @param speedupExponent throughput of n workers is n^exponent
 * @param starvationWaitS queued longer than this, a job is served first and reserves capacity
 */
public record SimConfig(
    int trainingServers,
    int inferenceServers,
    int gpusPerServer,
    double inferenceGpuSpeed,
    double roundIntervalS,
    double sampleIntervalS,
    double checkpointIntervalS,
    double rescaleOverheadS,
    double restartOverheadS,
    double reclaimGraceS,
    double headroom,
    int loanMarginServers,
    double speedupExponent,
    double starvationWaitS) {

  public SimConfig {
    Checks.positive("trainingServers", trainingServers);
    Checks.nonNegative("inferenceServers", inferenceServers);
    Checks.positive("gpusPerServer", gpusPerServer);
    Checks.positive("inferenceGpuSpeed", inferenceGpuSpeed);
    Checks.positive("roundIntervalS", roundIntervalS);
    Checks.positive("sampleIntervalS", sampleIntervalS);
    Checks.positive("checkpointIntervalS", checkpointIntervalS);
    Checks.nonNegative("rescaleOverheadS", rescaleOverheadS);
    Checks.nonNegative("restartOverheadS", restartOverheadS);
    Checks.nonNegative("reclaimGraceS", reclaimGraceS);
    Checks.nonNegative("headroom", headroom);
    Checks.nonNegative("loanMarginServers", loanMarginServers);
    if (!(speedupExponent > 0 && speedupExponent <= 1)) {
      throw new IllegalArgumentException("speedupExponent must be within (0, 1], was " + speedupExponent);
    }
    Checks.positive("starvationWaitS", starvationWaitS);
  }

  /** Defaults for a cluster of the given pool sizes. */
  public static SimConfig defaults(int trainingServers, int inferenceServers) {
    return new SimConfig(trainingServers, inferenceServers, 8, 1.0, 60, 600, 1800, 30, 120, 60, 0.2, 1, 0.8,
        12 * 3600);
  }

  public SimConfig withInferenceGpuSpeed(double v) {
    return new SimConfig(trainingServers, inferenceServers, gpusPerServer, v, roundIntervalS, sampleIntervalS,
        checkpointIntervalS, rescaleOverheadS, restartOverheadS, reclaimGraceS, headroom, loanMarginServers,
        speedupExponent, starvationWaitS);
  }

  public SimConfig withGpusPerServer(int v) {
    return new SimConfig(trainingServers, inferenceServers, v, inferenceGpuSpeed, roundIntervalS, sampleIntervalS,
        checkpointIntervalS, rescaleOverheadS, restartOverheadS, reclaimGraceS, headroom, loanMarginServers,
        speedupExponent, starvationWaitS);
  }

  public SimConfig withRoundIntervalS(double v) {
    return new SimConfig(trainingServers, inferenceServers, gpusPerServer, inferenceGpuSpeed, v, sampleIntervalS,
        checkpointIntervalS, rescaleOverheadS, restartOverheadS, reclaimGraceS, headroom, loanMarginServers,
        speedupExponent, starvationWaitS);
  }

  public int trainingGpus() {
    return trainingServers * gpusPerServer;
  }

  public int inferenceGpus() {
    return inferenceServers * gpusPerServer;
  }
}
