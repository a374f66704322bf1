package io.aryl.core.elastic;

import io.aryl.core.model.Job;

/** What phase 2 counts as the worth of a job's extra workers, the value of its knapsack items. */
public enum ElasticValue {
  /**
   * The paper: the predicted JCT reduction, in seconds. A long job saves the most seconds from one
   * more worker, so long jobs win spare GPUs over short ones.
   */
  JCT_REDUCTION {
    @Override
    public double weight(Job job) {
      return 1;
    }
  },
  /**
   * The predicted JCT reduction weighted by (1 h / the job's predicted remaining time at its
   * minimum)^2: spare GPUs go to the jobs closest to finishing first. For the sum of completion
   * times of jobs with sub-linear speed-up, the optimal allocation favours the jobs with the least
   * work left (shortest remaining first, as heSRPT shows for malleable jobs): a short job sped up
   * leaves soon and hands its GPUs on, a long one holds them for hours.
   */
  SHORTEST_REMAINING_FIRST {
    @Override
    public double weight(Job job) {
      double hours = Math.max(MIN_REMAINING_S, job.predictedRuntimeAt(job.minWorkers())) / 3600.0;
      return 1 / (hours * hours);
    }
  };

  /**
   * Remaining times below a minute weigh as a minute: a job about to end gains nothing from a
   * re-scale anyway.
   */
  private static final double MIN_REMAINING_S = 60;

  /**
   * The factor every item value of this job, and any time it saves elsewhere in the round, is
   * multiplied by.
   */
  public abstract double weight(Job job);
}
