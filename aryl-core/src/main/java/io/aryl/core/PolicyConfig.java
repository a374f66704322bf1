package io.aryl.core;

import io.aryl.core.admission.CheckpointPreemption;
import io.aryl.core.admission.JobOrder;
import io.aryl.core.admission.StarvationGuard;
import io.aryl.core.elastic.ElasticAllocator;
import io.aryl.core.elastic.ElasticValue;
import io.aryl.core.model.Checks;
import java.util.function.Consumer;

/**
 * The knobs of one scheduling round. Every field has a default in {@link #defaults()}.
 *
 * @param jobOrder the order queued jobs are offered their base gang (default: shortest predicted
 *     first)
 * @param starvationWaitS a job queued longer than this is starving: it may be served before shorter
 *     ones and reserve capacity, as {@code starvationShare} allows (default 12 h)
 * @param elastic whether phase 2 gives spare GPUs to elastic jobs; off, every job runs at its
 *     minimum (default on)
 * @param rescaleOverheadS seconds a running job loses each time its width changes (checkpoint,
 *     re-form the group, restore); prices re-scaling in phase 2 (default 30 s)
 * @param exactKnapsackOpsLimit the largest dynamic program phase 2 solves exactly, in operations;
 *     larger instances use the greedy path (default 100,000)
 * @param speedAware beyond the paper: keep each job at one GPU speed. Synchronous training runs at
 *     the pace of its slowest GPU, so a gang goes to the fastest GPUs it fits on as a whole, and a
 *     job's extra workers never go to GPUs slower than its base (a flexible worker on a slow loaned
 *     GPU would slow every other worker down); flexible workers on too-slow GPUs are dropped and
 *     re-placed on faster ones when there is room. Each round may also move a whole job to other
 *     GPUs: up to faster ones as they free up, or an elastic job that would run narrow on fast GPUs
 *     down to slower ones where it runs wide (default off: the paper)
 * @param elasticValue what phase 2 counts as the worth of extra workers (default: the paper's JCT
 *     reduction)
 * @param tenantReclaimDelayS with tenants ({@link io.aryl.core.model.Tenants}): how long a tenant's
 *     job, within its guarantee, must have been queued before other tenants' base workers on
 *     borrowed GPUs may be preempted for it, measured from its submission (default 60 s). Flexible
 *     workers are shed for it at once, as for any base gang
 * @param restartOverheadS seconds a preempted job needs to restart from its checkpoint; prices
 *     preempting a borrower's job for a tenant's guarantee by the {@link
 *     io.aryl.core.reclaim.ReclaimCostModel} rule (default 120 s)
 * @param starvationShare the share of the pool's GPUs the starvation guard's senior lane takes once
 *     the starving jobs need more GPUs than the pool has (at least half the pool before that):
 *     starving jobs among the oldest jobs holding the lane jump shortest-first, the rest of the
 *     pool stays shortest-first; 0 lets only the single oldest starving job jump ({@link
 *     StarvationGuard}; default 0.1)
 * @param starvationLightShare the lane's least share of the pool's GPUs while the starving jobs
 *     need no more GPUs than the pool has ({@link StarvationGuard}; default 0.5); at or below
 *     {@code starvationShare} the lane is a fixed {@code starvationShare}
 * @param preemption when a running job is stopped after its checkpoint to start a much shorter
 *     waiting one ({@link CheckpointPreemption}; default {@link CheckpointPreemption#OFF}: the
 *     paper runs every job to completion)
 */
public record PolicyConfig(
    JobOrder jobOrder,
    double starvationWaitS,
    boolean elastic,
    double rescaleOverheadS,
    long exactKnapsackOpsLimit,
    boolean speedAware,
    ElasticValue elasticValue,
    double tenantReclaimDelayS,
    double restartOverheadS,
    double starvationShare,
    double starvationLightShare,
    CheckpointPreemption preemption) {

  /** Default tenant reclaim delay: 60 s. */
  public static final double DEFAULT_TENANT_RECLAIM_DELAY_S = 60;

  /**
   * Default restart overhead of a preempted job: 120 s, as {@link
   * io.aryl.core.reclaim.ReclaimCostModel#defaults()}.
   */
  public static final double DEFAULT_RESTART_OVERHEAD_S = 120;

  public PolicyConfig {
    Checks.notNull("policy.preemption", preemption);
    Checks.notNull("policy.elasticValue", elasticValue);
    Checks.notNull("policy.jobOrder", jobOrder);
    Checks.positive("policy.starvationWaitS", starvationWaitS);
    Checks.nonNegative("policy.rescaleOverheadS", rescaleOverheadS);
    if (exactKnapsackOpsLimit < 0) {
      throw new IllegalArgumentException(
          "policy.exactKnapsackOpsLimit must be >= 0, was " + exactKnapsackOpsLimit);
    }
    Checks.nonNegative("policy.tenantReclaimDelayS", tenantReclaimDelayS);
    Checks.nonNegative("policy.restartOverheadS", restartOverheadS);
    new StarvationGuard(
        starvationWaitS, starvationShare, starvationLightShare); // checks the shares
  }

  /**
   * The starvation guard these knobs describe. With preemption for shorter jobs the senior lane is
   * its share alone, never the light share's wider lane: that half of the pool taken out of
   * shortest-first order is what kept the 95th percentile of queueing up, and with short jobs
   * starting by preemption, long ones no longer pile up behind them to need it (docs/evaluation.md,
   * "aryl+ under overload").
   */
  public StarvationGuard starvationGuard() {
    return new StarvationGuard(
        starvationWaitS,
        starvationShare,
        preemption.enabled()
            ? Math.min(starvationShare, starvationLightShare)
            : starvationLightShare);
  }

  public PolicyConfig withStarvationShare(double v) {
    return with(b -> b.starvationShare = v);
  }

  public PolicyConfig withStarvationLightShare(double v) {
    return with(b -> b.starvationLightShare = v);
  }

  public static PolicyConfig defaults() {
    return new PolicyConfig(
        JobOrder.SHORTEST_PREDICTED_FIRST,
        12 * 3600.0,
        true,
        30.0,
        ElasticAllocator.DEFAULT_EXACT_OPS_LIMIT,
        false,
        ElasticValue.JCT_REDUCTION,
        DEFAULT_TENANT_RECLAIM_DELAY_S,
        DEFAULT_RESTART_OVERHEAD_S,
        StarvationGuard.DEFAULT_SHARE,
        StarvationGuard.LIGHT_SHARE,
        CheckpointPreemption.OFF);
  }

  public PolicyConfig withJobOrder(JobOrder v) {
    return with(b -> b.jobOrder = v);
  }

  public PolicyConfig withStarvationWaitS(double v) {
    return with(b -> b.starvationWaitS = v);
  }

  public PolicyConfig withElastic(boolean v) {
    return with(b -> b.elastic = v);
  }

  public PolicyConfig withRescaleOverheadS(double v) {
    return with(b -> b.rescaleOverheadS = v);
  }

  public PolicyConfig withSpeedAware(boolean v) {
    return with(b -> b.speedAware = v);
  }

  /**
   * The policy named aryl+, beyond the paper's: speed-aware placement and moves ({@link
   * #withSpeedAware}), and spare GPUs to the jobs closest to finishing ({@link
   * ElasticValue#SHORTEST_REMAINING_FIRST}). One definition for the simulator that evaluates it and
   * the scheduler that runs it.
   */
  public PolicyConfig withArylPlus() {
    return ArylPolicy.ARYL_PLUS.applyTo(this);
  }

  public PolicyConfig withElasticValue(ElasticValue v) {
    return with(b -> b.elasticValue = v);
  }

  public PolicyConfig withExactKnapsackOpsLimit(long v) {
    return with(b -> b.exactKnapsackOpsLimit = v);
  }

  public PolicyConfig withTenantReclaimDelayS(double v) {
    return with(b -> b.tenantReclaimDelayS = v);
  }

  public PolicyConfig withRestartOverheadS(double v) {
    return with(b -> b.restartOverheadS = v);
  }

  /** These knobs with another rule for preempting running jobs for shorter ones. */
  public PolicyConfig withPreemption(CheckpointPreemption v) {
    return with(b -> b.preemption = v);
  }

  /**
   * These knobs with some changed: {@code change} sets them on a copy of every field, and the
   * result is checked as any other.
   */
  private PolicyConfig with(Consumer<Changes> change) {
    Changes b = new Changes(this);
    change.accept(b);
    return b.build();
  }

  /** The fields of knobs being changed: the one place that copies them all. */
  private static final class Changes {
    JobOrder jobOrder;
    double starvationWaitS;
    boolean elastic;
    double rescaleOverheadS;
    long exactKnapsackOpsLimit;
    boolean speedAware;
    ElasticValue elasticValue;
    double tenantReclaimDelayS;
    double restartOverheadS;
    double starvationShare;
    double starvationLightShare;
    CheckpointPreemption preemption;

    Changes(PolicyConfig c) {
      this.jobOrder = c.jobOrder;
      this.starvationWaitS = c.starvationWaitS;
      this.elastic = c.elastic;
      this.rescaleOverheadS = c.rescaleOverheadS;
      this.exactKnapsackOpsLimit = c.exactKnapsackOpsLimit;
      this.speedAware = c.speedAware;
      this.elasticValue = c.elasticValue;
      this.tenantReclaimDelayS = c.tenantReclaimDelayS;
      this.restartOverheadS = c.restartOverheadS;
      this.starvationShare = c.starvationShare;
      this.starvationLightShare = c.starvationLightShare;
      this.preemption = c.preemption;
    }

    PolicyConfig build() {
      return new PolicyConfig(
          jobOrder,
          starvationWaitS,
          elastic,
          rescaleOverheadS,
          exactKnapsackOpsLimit,
          speedAware,
          elasticValue,
          tenantReclaimDelayS,
          restartOverheadS,
          starvationShare,
          starvationLightShare,
          preemption);
    }
  }
}
