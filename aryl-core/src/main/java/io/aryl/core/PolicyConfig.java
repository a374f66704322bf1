package io.aryl.core;

import io.aryl.core.admission.JobOrder;
import io.aryl.core.elastic.ElasticAllocator;
import io.aryl.core.elastic.ElasticValue;
import io.aryl.core.model.Checks;

/**
 * The knobs of one scheduling round. Every field has a default in {@link #defaults()}.
 *
 * @param jobOrder the order queued jobs are offered their base gang (default: shortest predicted first)
 * @param starvationWaitS a job queued longer than this is served before shorter ones and reserves capacity
 *     (default 12 h)
 * @param elastic whether phase 2 gives spare GPUs to elastic jobs; off, every job runs at its minimum
 *     (default on)
 * @param rescaleOverheadS seconds a running job loses each time its width changes (checkpoint, re-form the
 *     group, restore); prices re-scaling in phase 2 (default 30 s)
 * @param exactKnapsackOpsLimit the largest dynamic program phase 2 solves exactly, in operations; larger instances
 *     use the greedy path (default 100,000)
 * @param speedAware beyond the paper: keep each job at one GPU speed. Synchronous training runs at the pace of its
 *     slowest GPU, so a gang goes to the fastest GPUs it fits on as a whole, and a job's extra workers never go to
 *     GPUs slower than its base (a flexible worker on a slow loaned GPU would slow every other worker down); flexible
 *     workers on too-slow GPUs are dropped and re-placed on faster ones when there is room. Each round may also move
 *     a whole job to other GPUs: up to faster ones as they free up, or an elastic job that would run narrow on fast
 *     GPUs down to slower ones where it runs wide (default off: the paper)
 * @param elasticValue what phase 2 counts as the worth of extra workers (default: the paper's JCT reduction)
 */
public record PolicyConfig(
    JobOrder jobOrder,
    double starvationWaitS,
    boolean elastic,
    double rescaleOverheadS,
    long exactKnapsackOpsLimit,
    boolean speedAware,
    ElasticValue elasticValue) {

  public PolicyConfig {
    Checks.notNull("policy.elasticValue", elasticValue);
    Checks.notNull("policy.jobOrder", jobOrder);
    Checks.positive("policy.starvationWaitS", starvationWaitS);
    Checks.nonNegative("policy.rescaleOverheadS", rescaleOverheadS);
    if (exactKnapsackOpsLimit < 0) {
      throw new IllegalArgumentException("policy.exactKnapsackOpsLimit must be >= 0, was " + exactKnapsackOpsLimit);
    }
  }

  public static PolicyConfig defaults() {
    return new PolicyConfig(
        JobOrder.SHORTEST_PREDICTED_FIRST, 12 * 3600.0, true, 30.0, ElasticAllocator.DEFAULT_EXACT_OPS_LIMIT, false,
        ElasticValue.JCT_REDUCTION);
  }

  public PolicyConfig withJobOrder(JobOrder v) {
    return new PolicyConfig(
        v, starvationWaitS, elastic, rescaleOverheadS, exactKnapsackOpsLimit, speedAware, elasticValue);
  }

  public PolicyConfig withStarvationWaitS(double v) {
    return new PolicyConfig(
        jobOrder, v, elastic, rescaleOverheadS, exactKnapsackOpsLimit, speedAware, elasticValue);
  }

  public PolicyConfig withElastic(boolean v) {
    return new PolicyConfig(
        jobOrder, starvationWaitS, v, rescaleOverheadS, exactKnapsackOpsLimit, speedAware, elasticValue);
  }

  public PolicyConfig withRescaleOverheadS(double v) {
    return new PolicyConfig(
        jobOrder, starvationWaitS, elastic, v, exactKnapsackOpsLimit, speedAware, elasticValue);
  }

  public PolicyConfig withSpeedAware(boolean v) {
    return new PolicyConfig(
        jobOrder, starvationWaitS, elastic, rescaleOverheadS, exactKnapsackOpsLimit, v, elasticValue);
  }

  public PolicyConfig withElasticValue(ElasticValue v) {
    return new PolicyConfig(
        jobOrder, starvationWaitS, elastic, rescaleOverheadS, exactKnapsackOpsLimit, speedAware, v);
  }

  public PolicyConfig withExactKnapsackOpsLimit(long v) {
    return new PolicyConfig(
        jobOrder, starvationWaitS, elastic, rescaleOverheadS, v, speedAware, elasticValue);
  }
}
