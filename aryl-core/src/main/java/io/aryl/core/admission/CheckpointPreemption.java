package io.aryl.core.admission;

import io.aryl.core.model.Job;
import io.aryl.core.reclaim.ReclaimCostModel;

/**
 * aryl+'s rule for stopping a running job to start a much shorter waiting one (shortest remaining
 * work first, as Tiresias and SRPT do, but priced by what the checkpoint leaves to lose).
 *
 * <p>Running jobs to completion costs most under overload: a job of minutes waits behind jobs of
 * days. A running job (the victim) may be preempted for a waiting job when
 *
 * <pre>
 *   victim's remaining work >= factor x (waiting job's remaining work + victim's lost work)
 * </pre>
 *
 * all in GPU-seconds: remaining work is the predicted remaining runtime at the job's minimum
 * workers times its base GPUs; the lost work is what {@link ReclaimCostModel#preemptCost} prices,
 * every GPU the victim holds times (its progress since its last checkpoint + the restart). So a
 * victim that checkpointed a moment ago is cheap to stop, and one that checkpointed long ago is
 * stopped only for a gain that outweighs what it throws away. The factor keeps the rule to the
 * clear cases, where a prediction off by as much as the factor still orders the two jobs rightly.
 *
 * <p>Bounded so that it cannot thrash: a job that has been preempted {@code budget} times ({@link
 * Job#preemptions()}, every preemption counted, reclaims too) is never preempted for a shorter job
 * again, and keeps its GPUs until it ends. A preempted job keeps its progress up to its checkpoint
 * and goes back to the queue.
 *
 * @param factor how many times more remaining work the victim must have than the waiting job and
 *     its own lost work together; {@code >= 1}, or infinite for {@link #OFF}
 * @param budget how many preemptions a job may have had and still be preempted for a shorter one;
 *     {@code >= 0}
 */
public record CheckpointPreemption(double factor, int budget) {
  /** Never preempts for a shorter job: the paper's policy runs every job to completion. */
  public static final CheckpointPreemption OFF =
      new CheckpointPreemption(Double.POSITIVE_INFINITY, 0);

  /**
   * aryl+'s: a victim with twice the work (the waiting job's and the lost work together), each job
   * stopped for shorter ones while it has been preempted fewer than 10 times. Chosen on the
   * overloaded ITP and Philly slices (docs/evaluation.md, "aryl+ under overload"): a larger factor
   * or a smaller budget left most of the gain of shortest-remaining-first unused.
   */
  public static final CheckpointPreemption DEFAULT =
      new CheckpointPreemption(
          CheckpointPreemption.DEFAULT_FACTOR, CheckpointPreemption.DEFAULT_BUDGET);

  /** {@link #DEFAULT}'s factor, a constant for command-line defaults. */
  public static final double DEFAULT_FACTOR = 2;

  /** {@link #DEFAULT}'s budget, a constant for command-line defaults. */
  public static final int DEFAULT_BUDGET = 10;

  /**
   * @throws IllegalArgumentException naming the field and the value when the factor is below 1 or
   *     NaN, or the budget is negative
   */
  public CheckpointPreemption {
    if (!(factor >= 1)) {
      throw new IllegalArgumentException(
          "policy.preemption.factor must be >= 1 (or infinite: off), was " + factor);
    }
    if (budget < 0) {
      throw new IllegalArgumentException("policy.preemption.budget must be >= 0, was " + budget);
    }
  }

  /** Whether any job may ever be preempted for a shorter one. */
  public boolean enabled() {
    return !Double.isInfinite(factor) && budget > 0;
  }

  /** Whether {@code job} may still be preempted for a shorter one: it is within its budget. */
  public boolean mayStop(Job job) {
    return enabled() && job.preemptions() < budget;
  }

  /**
   * A job's remaining work, GPU-seconds: predicted remaining runtime at its minimum x base GPUs.
   */
  public static double remainingWork(Job job) {
    return job.predictedRemainingS() * job.baseGpus();
  }

  /**
   * Whether stopping {@code victim}, running {@code victimWorkers} workers, pays for starting
   * {@code waiting}: the victim may still be stopped and its remaining work is at least the factor
   * times the waiting job's plus the work the stop throws away ({@code cost}'s preemption price).
   */
  public boolean pays(Job victim, int victimWorkers, Job waiting, ReclaimCostModel cost) {
    if (!mayStop(victim)) {
      return false;
    }
    double lost = cost.preemptCost(victim, victimWorkers);
    return remainingWork(victim) >= factor * (remainingWork(waiting) + lost);
  }
}
