package io.aryl.demo;

import java.util.List;

/**
 * One run's results: what the summary table shows in one column.
 *
 * @param label the column's title
 * @param jobs jobs in the stream
 * @param submitted jobs submitted before the run ended
 * @param finished jobs that succeeded
 * @param failed jobs that failed or were killed by YARN
 * @param avgQueuingS mean queuing time of submitted jobs, seconds (jobs still queued count until
 *     the end)
 * @param avgJctS mean completion time of submitted jobs, seconds (jobs not ended count until the
 *     end)
 * @param censored whether some submitted job had not ended, making the two means lower bounds
 * @param runS length of the run, seconds
 * @param trainingUtilization GPU-seconds used over GPU-seconds of the training partition (own nodes
 *     + loaned)
 * @param trainingGpuHours GPU-hours used on the training partition (demo time)
 * @param loanedGpuHours GPU-hours of inference nodes on loan (demo time)
 * @param reclaims reclaims the scheduler started
 * @param preemptedContainers worker containers killed by the ResourceManager (exit status -102)
 * @param shrunkWorkers workers Aryl asked back gracefully (PreemptionMessage, then released by the
 *     job)
 * @param outcomes every job's outcome
 * @param inference the inference service's requests and replicas; null in a run without inference
 *     nodes
 */
public record RunSummary(
    String label,
    int jobs,
    int submitted,
    int finished,
    int failed,
    double avgQueuingS,
    double avgJctS,
    boolean censored,
    double runS,
    double trainingUtilization,
    double trainingGpuHours,
    double loanedGpuHours,
    long reclaims,
    long preemptedContainers,
    long shrunkWorkers,
    List<JobOutcome> outcomes,
    InferenceSummary inference) {

  public RunSummary {
    outcomes = List.copyOf(outcomes);
  }

  /** This summary with the run's inference side. */
  public RunSummary withInference(InferenceSummary measured) {
    return new RunSummary(
        label,
        jobs,
        submitted,
        finished,
        failed,
        avgQueuingS,
        avgJctS,
        censored,
        runS,
        trainingUtilization,
        trainingGpuHours,
        loanedGpuHours,
        reclaims,
        preemptedContainers,
        shrunkWorkers,
        outcomes,
        measured);
  }

  /**
   * Training work per hour of the run: the GPUs allocated to training, on average (GPU-hours per
   * hour).
   */
  public double trainingGpusAverage() {
    return runS <= 0 ? 0 : trainingGpuHours * 3600 / runS;
  }

  /** The inference GPUs lent to training, on average over the run. */
  public double loanedGpusAverage() {
    return runS <= 0 ? 0 : loanedGpuHours * 3600 / runS;
  }

  /**
   * Computes a run's summary.
   *
   * @param cutoffMs when the run ended, ms from its start: jobs not started or ended by then count
   *     until then
   */
  public static RunSummary of(
      String label,
      int jobs,
      List<JobOutcome> outcomes,
      long cutoffMs,
      PoolMeter meter,
      long reclaims,
      long preemptedContainers,
      long shrunkWorkers) {
    int submitted = 0;
    int finished = 0;
    int failed = 0;
    long queuing = 0;
    long jct = 0;
    boolean censored = false;
    for (JobOutcome o : outcomes) {
      if (o.submitMs() < 0) {
        continue;
      }
      submitted++;
      if (o.succeeded()) {
        finished++;
      } else if (o.ended()) {
        failed++;
      }
      censored |= !o.ended();
      queuing += o.queuingMs(cutoffMs);
      jct += o.jctMs(cutoffMs);
    }
    double avgQ = submitted == 0 ? 0 : queuing / 1000.0 / submitted;
    double avgJ = submitted == 0 ? 0 : jct / 1000.0 / submitted;
    return new RunSummary(
        label,
        jobs,
        submitted,
        finished,
        failed,
        avgQ,
        avgJ,
        censored,
        cutoffMs / 1000.0,
        meter.utilization(),
        meter.usedGpuSeconds() / 3600,
        meter.loanedGpuSeconds() / 3600,
        reclaims,
        preemptedContainers,
        shrunkWorkers,
        outcomes,
        null);
  }
}
