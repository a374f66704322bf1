package io.aryl.core.elastic;

import io.aryl.core.model.Checks;
import io.aryl.core.model.Job;
import java.util.List;

/**
 * Phase 2 of a round: share the GPUs that base demand left over among elastic jobs.
 *
 * <p>It is a multiple-choice knapsack: one group per elastic job, item k = k extra workers weighing
 * {@code k * gpusPerWorker} GPUs, worth the job's predicted JCT reduction at that width. Solved
 * exactly by dynamic programming while that costs at most {@code exactOpsLimit} operations, and by
 * {@link GreedyKnapsack} above that.
 */
public final class ElasticAllocator {
  /**
   * Default DP budget, about a tenth of a millisecond on one core. A simulator replays tens of
   * thousands of rounds, and above this size the greedy path is within a few thousandths of a
   * percent of the optimum (measured in its tests).
   */
  public static final long DEFAULT_EXACT_OPS_LIMIT = 100_000L;

  private final long exactOpsLimit;

  public ElasticAllocator(long exactOpsLimit) {
    if (exactOpsLimit < 0) {
      throw new IllegalArgumentException(
          "elastic.exactOpsLimit must be >= 0, was " + exactOpsLimit);
    }
    this.exactOpsLimit = exactOpsLimit;
  }

  public ElasticAllocator() {
    this(DEFAULT_EXACT_OPS_LIMIT);
  }

  /** The chosen item (extra workers) per group, in group order. */
  public int[] allocate(List<KnapsackGroup> groups, int capacityGpus) {
    Checks.nonNegative("capacityGpus", capacityGpus);
    if (ExactKnapsack.cost(groups, capacityGpus) <= exactOpsLimit) {
      return ExactKnapsack.solve(groups, capacityGpus);
    }
    return GreedyKnapsack.solve(groups, capacityGpus);
  }

  /** Total value of a choice. */
  public static double value(List<KnapsackGroup> groups, int[] choice) {
    double v = 0;
    for (int i = 0; i < groups.size(); i++) {
      v += groups.get(i).value(choice[i]);
    }
    return v;
  }

  /**
   * The knapsack group of one elastic job: item k is worth the predicted JCT reduction of running
   * at {@code min + k} workers instead of {@code min}, less the re-scale pause a running job pays
   * whenever its width changes (so that a round does not resize a job for a negligible gain).
   *
   * @param maxExtra extra workers that could be placed at most (at most {@code max - min})
   * @param currentExtra extra workers the job runs with now (0 for a job being started)
   * @param running true if the job runs now; a starting job pays no re-scale pause
   */
  public static KnapsackGroup groupFor(
      Job job, int maxExtra, int currentExtra, boolean running, double rescaleOverheadS) {
    return groupFor(
        job, maxExtra, currentExtra, running, rescaleOverheadS, ElasticValue.JCT_REDUCTION);
  }

  /**
   * As {@link #groupFor(Job, int, int, boolean, double)}, every value weighted as {@code value}
   * says.
   */
  public static KnapsackGroup groupFor(
      Job job,
      int maxExtra,
      int currentExtra,
      boolean running,
      double rescaleOverheadS,
      ElasticValue value) {
    int k = Math.max(0, Math.min(maxExtra, job.maxWorkers() - job.minWorkers()));
    double[] values = new double[k + 1];
    double base = job.predictedRuntimeAt(job.minWorkers());
    double weight = value.weight(job);
    for (int i = 0; i <= k; i++) {
      double reduction = base - job.predictedRuntimeAt(job.minWorkers() + i);
      values[i] = weight * (reduction - (running && i != currentExtra ? rescaleOverheadS : 0));
    }
    return KnapsackGroup.owning(job.gpusPerWorker(), values);
  }
}
