package io.aryl.sim.engine;

import io.aryl.core.ArylPolicy;
import io.aryl.core.PolicyConfig;
import io.aryl.core.RoundPlanner;
import io.aryl.core.admission.JobOrder;
import io.aryl.core.loan.DemandForecast;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A policy the simulator can run: which of Aryl's mechanisms are on, and how loaned servers are
 * taken back. All policies run the same aryl-core round; they differ only in these switches.
 *
 * @param name the name used on the command line and in reports
 * @param loan whether idle inference servers are lent to training
 * @param elastic whether jobs marked elastic may run between min and max workers (off: at their
 *     requested size)
 * @param jobOrder the admission order
 * @param reclaim how loaned servers are chosen when inference takes them back
 * @param description one line for --help and the docs
 * @param planner builds the round planner
 * @param loanForecastS lend against the demand forecast this far ahead ({@link DemandForecast}); 0
 *     lends against the current demand (the paper)
 */
public record PolicySpec(
    String name,
    boolean loan,
    boolean elastic,
    JobOrder jobOrder,
    ReclaimChoice reclaim,
    String description,
    PlannerFactory planner,
    double loanForecastS) {

  public PolicySpec(
      String name,
      boolean loan,
      boolean elastic,
      JobOrder jobOrder,
      ReclaimChoice reclaim,
      String description,
      PlannerFactory planner) {
    this(name, loan, elastic, jobOrder, reclaim, description, planner, 0);
  }

  /** Builds the round planner of a policy for a simulated world. */
  @FunctionalInterface
  public interface PlannerFactory {
    Planner create(PolicySpec policy, SimConfig cfg);
  }

  /**
   * aryl-core's round, configured by the policy's switches: the paper's ({@link ArylPolicy#ARYL}).
   */
  public static final PlannerFactory ARYL_CORE =
      (p, cfg) -> Planner.of(new RoundPlanner(ArylPolicy.ARYL.applyTo(coreConfig(p, cfg))));

  /**
   * aryl-core's round beyond the paper ({@link ArylPolicy#ARYL_PLUS}): speed-aware placement and
   * moves, and spare GPUs to the jobs closest to finishing.
   */
  public static final PlannerFactory ARYL_CORE_PLUS =
      (p, cfg) -> Planner.of(new RoundPlanner(arylPlusConfig(p, cfg)));

  /** aryl+'s round as aryl-core configures it, with the scenario's preemption rule. */
  static PolicyConfig arylPlusConfig(PolicySpec p, SimConfig cfg) {
    return ArylPolicy.ARYL_PLUS.applyTo(coreConfig(p, cfg)).withPreemption(cfg.preemption());
  }

  private static PolicyConfig coreConfig(PolicySpec p, SimConfig cfg) {
    return PolicyConfig.defaults()
        .withJobOrder(p.jobOrder())
        .withElastic(p.elastic())
        .withRescaleOverheadS(cfg.rescaleOverheadS())
        .withStarvationWaitS(cfg.starvationWaitS())
        .withStarvationShare(cfg.starvationShare())
        .withStarvationLightShare(cfg.starvationLightShare())
        .withRestartOverheadS(cfg.restartOverheadS())
        .withTenantReclaimDelayS(cfg.tenantReclaimDelayS());
  }

  public PolicySpec(
      String name,
      boolean loan,
      boolean elastic,
      JobOrder jobOrder,
      ReclaimChoice reclaim,
      String description) {
    this(name, loan, elastic, jobOrder, reclaim, description, ARYL_CORE);
  }

  /** How a reclaim picks servers. */
  public enum ReclaimChoice {
    /** aryl-core's least-cost greedy. */
    LEAST_COST,
    /** Ablation: random servers. */
    RANDOM,
    /** Ablation: servers with the fewest busy GPUs. */
    FEWEST_BUSY_GPUS,
    /** Stock YARN: preempt the newest containers first, whatever they are. */
    NEWEST_FIRST
  }

  private static final Map<String, PolicySpec> KNOWN = new LinkedHashMap<>();

  static {
    register(
        new PolicySpec(
            "baseline",
            false,
            false,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.LEAST_COST,
            "the paper's comparison point: no loaning, no elasticity, same admission"));
    register(
        new PolicySpec(
            "loan-only",
            true,
            false,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.LEAST_COST,
            "capacity loaning without elasticity"));
    register(
        new PolicySpec(
            "elastic-only",
            false,
            true,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.LEAST_COST,
            "elastic scaling without loaning"));
    // The two policies the scheduler runs too (aryl.scheduler.policy): their names and their round
    // are aryl-core's.
    register(
        new PolicySpec(
            ArylPolicy.ARYL.policyName(),
            true,
            true,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.LEAST_COST,
            "loaning + elastic scaling + least-cost reclaim (the paper)"));
    register(
        new PolicySpec(
            ArylPolicy.ARYL_PLUS.policyName(),
            true,
            true,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.LEAST_COST,
            "aryl beyond the paper: each job on one GPU speed, moved between speeds as the round gains, spare GPUs to"
                + " the jobs closest to finishing",
            ARYL_CORE_PLUS));
    register(
        new PolicySpec(
            "yarn-nonexclusive",
            true,
            false,
            JobOrder.FIFO,
            ReclaimChoice.NEWEST_FIRST,
            "stock YARN: a non-exclusive inference label lends idle nodes, FIFO queue, newest-first preemption"));
    register(
        new PolicySpec(
            "aryl+forecast",
            true,
            true,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.LEAST_COST,
            "experiment: aryl+ lending only what a seasonal 2 h demand forecast allows",
            ARYL_CORE_PLUS,
            2 * 3600));
    register(
        new PolicySpec(
            "aryl-reclaim-random",
            true,
            true,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.RANDOM,
            "ablation: aryl reclaiming random loaned servers"));
    register(
        new PolicySpec(
            "aryl-reclaim-fewest-busy",
            true,
            true,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.FEWEST_BUSY_GPUS,
            "ablation: aryl reclaiming the loaned servers with fewest busy GPUs"));
    register(
        new PolicySpec(
            "optimus",
            true,
            true,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.LEAST_COST,
            "Optimus (EuroSys'18) marginal-gain elastic allocation, with Aryl's loaning",
            (p, cfg) -> new io.aryl.sim.baselines.OptimusPlanner()));
    // Jobs run at the GPUs they ask for (no elasticity); the admission order is Tiresias's own, the
    // switch is not read.
    register(
        new PolicySpec(
            "tiresias",
            true,
            false,
            JobOrder.FIFO,
            ReclaimChoice.LEAST_COST,
            "Tiresias (NSDI'19) two-dimensional least attained service: GPU-time queues, FIFO within,"
                + " preemption of lower queues; no runtime knowledge; with Aryl's loaning",
            (p, cfg) -> new io.aryl.sim.baselines.TiresiasPlanner()));
    register(
        new PolicySpec(
            "afs",
            true,
            true,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.LEAST_COST,
            "AFS (NSDI'21) elastic sharing: every job its minimum, each next GPU to the highest"
                + " throughput gain per remaining work; with Aryl's loaning",
            (p, cfg) -> new io.aryl.sim.baselines.AfsPlanner()));
    register(
        new PolicySpec(
            "goodput",
            true,
            true,
            JobOrder.SHORTEST_PREDICTED_FIRST,
            ReclaimChoice.LEAST_COST,
            "Pollux (OSDI'21) / Sia (SOSP'23) style: GPUs to the power mean (p=-1) of each job's own"
                + " speedup, Pollux's restart penalty, one GPU speed per job; with Aryl's loaning",
            (p, cfg) ->
                new io.aryl.sim.baselines.GoodputPlanner(
                    io.aryl.sim.baselines.GoodputPlanner.POLLUX_P,
                    cfg.rescaleOverheadS(),
                    cfg.jobSpeedups().neverFalls())));
  }

  private static void register(PolicySpec p) {
    KNOWN.put(p.name(), p);
  }

  /** Every known policy, in report order. */
  public static List<PolicySpec> all() {
    return List.copyOf(KNOWN.values());
  }

  public static PolicySpec named(String name) {
    PolicySpec p = KNOWN.get(name);
    if (p == null) {
      throw new IllegalArgumentException(
          "unknown policy '" + name + "'; known: " + String.join(", ", KNOWN.keySet()));
    }
    return p;
  }
}
