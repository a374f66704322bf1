package io.aryl.core;

import io.aryl.core.admission.CheckpointPreemption;
import io.aryl.core.elastic.ElasticValue;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Aryl's policies by the names operators, reports and command lines use: the scheduler's {@code
 * aryl.scheduler.policy}, the simulator's {@code --policies}, the demo's {@code --runs}. Each is a
 * way of configuring aryl-core's round ({@link #applyTo}), so the scheduler and the simulator
 * running a policy of one name run the same round.
 */
public enum ArylPolicy {
  /**
   * The paper's: loaning, elastic scaling, least-cost reclaim; extra workers valued by the JCT they
   * save.
   */
  ARYL(Name.ARYL, false, ElasticValue.JCT_REDUCTION, CheckpointPreemption.OFF),
  /**
   * Beyond the paper: speed-aware (a gang on one GPU speed, extra workers never on slower GPUs than
   * the job's base, whole-job moves between speeds), spare GPUs to the jobs closest to finishing,
   * and a long job stopped after its checkpoint to start a much shorter one ({@link
   * CheckpointPreemption#DEFAULT}).
   */
  ARYL_PLUS(
      Name.ARYL_PLUS, true, ElasticValue.SHORTEST_REMAINING_FIRST, CheckpointPreemption.DEFAULT);

  /**
   * The names as compile-time constants, for what must be one (annotations: command-line defaults).
   */
  public static final class Name {
    public static final String ARYL = "aryl";
    public static final String ARYL_PLUS = "aryl+";

    private Name() {}
  }

  private final String policyName;
  private final boolean speedAware;
  private final ElasticValue elasticValue;
  // The rule's numbers rather than the record, so that the enum holds only immutable fields.
  private final double preemptionFactor;
  private final int preemptionBudget;
  private final double preemptionAgedAfterS;
  private final double preemptionServedS;

  ArylPolicy(
      String policyName,
      boolean speedAware,
      ElasticValue elasticValue,
      CheckpointPreemption preemption) {
    this.policyName = policyName;
    this.speedAware = speedAware;
    this.elasticValue = elasticValue;
    this.preemptionFactor = preemption.factor();
    this.preemptionBudget = preemption.budget();
    this.preemptionAgedAfterS = preemption.agedAfterS();
    this.preemptionServedS = preemption.servedS();
  }

  /** Its name: {@code aryl}, {@code aryl+}. */
  public String policyName() {
    return policyName;
  }

  /** Whether its round keeps each job at one GPU speed ({@link PolicyConfig#speedAware()}). */
  public boolean speedAware() {
    return speedAware;
  }

  /** What its phase 2 counts as the worth of extra workers, unless an operator chose otherwise. */
  public ElasticValue elasticValue() {
    return elasticValue;
  }

  /**
   * When its round stops a running job to start a much shorter one ({@link
   * PolicyConfig#preemption()}).
   */
  public CheckpointPreemption preemption() {
    return new CheckpointPreemption(
        preemptionFactor, preemptionBudget, preemptionAgedAfterS, preemptionServedS);
  }

  /**
   * {@code base} with this policy's switches set: its speed awareness, its worth of extra workers
   * and its preemption for shorter jobs.
   */
  public PolicyConfig applyTo(PolicyConfig base) {
    return base.withSpeedAware(speedAware)
        .withElasticValue(elasticValue)
        .withPreemption(preemption());
  }

  /** The policy of this name, exactly as written; empty for any other. */
  public static Optional<ArylPolicy> named(String name) {
    return Arrays.stream(values()).filter(p -> p.policyName.equals(name)).findFirst();
  }

  /** Every name, in declaration order. */
  public static List<String> names() {
    return Arrays.stream(values()).map(ArylPolicy::policyName).toList();
  }

  /** The names for a message: {@code aryl or aryl+}. */
  public static String namesInWords() {
    List<String> n = names();
    return n.size() == 1
        ? n.get(0)
        : String.join(", ", n.subList(0, n.size() - 1)) + " or " + n.get(n.size() - 1);
  }
}
