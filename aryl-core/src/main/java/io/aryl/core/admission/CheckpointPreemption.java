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
 * <p><b>Aging.</b> Shortest-first alone lets a job of a few hours wait for days behind a stream of
 * shorter ones, and no running job is ever twice its length. So a job that has <em>never run</em>
 * and has waited longer than {@code agedAfterS} may also stop any running job that has had at least
 * {@code servedS} of service ({@link Job#attainedS()}), whatever their lengths: the
 * least-attained-service rule of Tiresias, for the first wait only and only past the threshold, so
 * that shortest-first decides everything else. Aged jobs are offered their gangs first, oldest
 * first. A job that ran before ages no more (its wait after a preemption is in its completion time,
 * and it keeps its progress): without that rule two long jobs would stop each other in turn.
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
 * @param agedAfterS how long a job that never ran waits before it may stop a served job, seconds;
 *     {@code > 0}, infinite for never
 * @param servedS the service a running job must have had before an aged job may stop it, seconds;
 *     {@code >= 0}
 */
public record CheckpointPreemption(double factor, int budget, double agedAfterS, double servedS) {
  /** Never preempts for a shorter job: the paper's policy runs every job to completion. */
  public static final CheckpointPreemption OFF =
      new CheckpointPreemption(Double.POSITIVE_INFINITY, 0, Double.POSITIVE_INFINITY, 0);

  /**
   * aryl+'s: a victim with twice the work (the waiting job's and the lost work together), each job
   * stopped for shorter ones while it has been preempted fewer than 10 times; a job that waited an
   * hour without running may stop one that has run an hour. Chosen on the overloaded ITP and Philly
   * slices (docs/evaluation.md, "aryl+ under overload"): a larger factor or a smaller budget left
   * most of the gain of shortest-remaining-first unused; aging sooner or for less service shortens
   * the waits further at a cost in average completion time (the curve is there).
   */
  public static final CheckpointPreemption DEFAULT =
      new CheckpointPreemption(
          CheckpointPreemption.DEFAULT_FACTOR,
          CheckpointPreemption.DEFAULT_BUDGET,
          CheckpointPreemption.DEFAULT_AGED_AFTER_S,
          CheckpointPreemption.DEFAULT_SERVED_S);

  /** {@link #DEFAULT}'s factor, a constant for command-line defaults. */
  public static final double DEFAULT_FACTOR = 2;

  /** {@link #DEFAULT}'s budget, a constant for command-line defaults. */
  public static final int DEFAULT_BUDGET = 10;

  /** {@link #DEFAULT}'s wait before a job that never ran ages: an hour. */
  public static final double DEFAULT_AGED_AFTER_S = 3600;

  /** {@link #DEFAULT}'s service a job must have had before an aged job may stop it: an hour. */
  public static final double DEFAULT_SERVED_S = 3600;

  /** Shortest-first preemption with {@code factor} and {@code budget}, no aging. */
  public static CheckpointPreemption shorterOnly(double factor, int budget) {
    return new CheckpointPreemption(factor, budget, Double.POSITIVE_INFINITY, 0);
  }

  /**
   * @throws IllegalArgumentException naming the field and the value when the factor is below 1 or
   *     NaN, the budget is negative, the aging wait is not positive or the service is negative
   */
  public CheckpointPreemption {
    if (!(factor >= 1)) {
      throw new IllegalArgumentException(
          "policy.preemption.factor must be >= 1 (or infinite: off), was " + factor);
    }
    if (budget < 0) {
      throw new IllegalArgumentException("policy.preemption.budget must be >= 0, was " + budget);
    }
    if (!(agedAfterS > 0)) {
      throw new IllegalArgumentException(
          "policy.preemption.agedAfterS must be > 0 (or infinite: never), was " + agedAfterS);
    }
    if (!(servedS >= 0) || Double.isInfinite(servedS)) {
      throw new IllegalArgumentException(
          "policy.preemption.servedS must be a finite number >= 0, was " + servedS);
    }
  }

  /** Whether any job may ever be preempted for a waiting one. */
  public boolean enabled() {
    return (!Double.isInfinite(factor) || !Double.isInfinite(agedAfterS)) && budget > 0;
  }

  /**
   * Whether {@code job} has aged at {@code nowS}: it never ran and has waited longer than {@code
   * agedAfterS}.
   */
  public boolean aged(Job job, double nowS) {
    return job.attainedS() == 0 && job.preemptions() == 0 && nowS - job.submitTimeS() > agedAfterS;
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
   * {@code waiting} at {@code nowS}: the victim may still be stopped, and either its remaining work
   * is at least the factor times the waiting job's plus the work the stop throws away ({@code
   * cost}'s preemption price), or the waiting job has {@link #aged} and the victim has had {@code
   * servedS} of service.
   */
  public boolean pays(
      Job victim, int victimWorkers, Job waiting, ReclaimCostModel cost, double nowS) {
    if (!mayStop(victim)) {
      return false;
    }
    if (aged(waiting, nowS) && victim.attainedS() >= servedS) {
      return true;
    }
    double lost = cost.preemptCost(victim, victimWorkers);
    return remainingWork(victim) >= factor * (remainingWork(waiting) + lost);
  }
}
