package io.aryl.core.reclaim;

import io.aryl.core.model.Checks;
import io.aryl.core.model.Job;
import io.aryl.core.victim.Fate;

/**
 * What taking workers away from a job costs, in GPU-seconds of training work thrown away.
 *
 * <ul>
 *   <li><b>Job preemption cost</b>: a job left with fewer than its minimum workers stops and
 *       restarts later from its last checkpoint. It loses the progress since that checkpoint on
 *       every GPU it held, plus the restart: {@code gpus * (sinceCheckpointS + restartOverheadS)}.
 *   <li><b>Shrink cost</b>: a job that keeps at least its minimum only re-forms its group, pausing
 *       every GPU it held for the re-scale: {@code gpus * rescaleOverheadS}. With a re-scale of
 *       seconds and checkpoints tens of minutes apart, shrinking costs one or two orders of
 *       magnitude less than preempting.
 *   <li><b>Server preemption cost</b>: for a set of servers to return, the sum over jobs of the
 *       cost of what the set takes from each job; the cost of one more server is what it adds to
 *       that sum. A job preempted for one server frees its workers on every other server too, so
 *       those servers get cheaper.
 * </ul>
 */
public record ReclaimCostModel(double restartOverheadS, double rescaleOverheadS) {
  public ReclaimCostModel {
    Checks.nonNegative("reclaim.restartOverheadS", restartOverheadS);
    Checks.nonNegative("reclaim.rescaleOverheadS", rescaleOverheadS);
  }

  public static ReclaimCostModel defaults() {
    return new ReclaimCostModel(120, 30);
  }

  public double preemptCost(Job job, int workers) {
    return (double) workers * job.gpusPerWorker() * (job.sinceCheckpointS() + restartOverheadS);
  }

  public double shrinkCost(Job job, int workers) {
    return (double) workers * job.gpusPerWorker() * rescaleOverheadS;
  }

  /**
   * Cost of removing {@code removed} of the job's {@code workers} workers: nothing, or a shrink or
   * a preemption as {@link Fate#of} decides.
   */
  public double jobCost(Job job, int workers, int removed) {
    if (removed <= 0) {
      return 0;
    }
    return Fate.of(workers, removed, job.minWorkers()) == Fate.SHRINK
        ? shrinkCost(job, workers)
        : preemptCost(job, workers);
  }
}
