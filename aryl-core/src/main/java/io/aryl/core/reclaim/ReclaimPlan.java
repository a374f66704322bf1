package io.aryl.core.reclaim;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Plan;
import io.aryl.core.victim.Fate;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which loaned servers go back to inference, and what that does to training jobs. Either feasible
 * (exactly the servers asked for) or infeasible with the reason.
 */
public final class ReclaimPlan {
  /**
   * What the reclaim does to one training job.
   *
   * @param action shrink or preempt ({@link Fate#of})
   * @param workersRemoved workers taken away, by server id: for a shrink only those on returned
   *     servers, for a preemption every worker of the job
   * @param costGpuS GPU-seconds of work this costs the job
   */
  public record JobImpact(Fate action, Map<String, Integer> workersRemoved, double costGpuS) {}

  private final List<String> servers;
  private final Map<String, JobImpact> impacts;
  private final double costGpuS;
  private final String infeasibleReason;

  private ReclaimPlan(
      List<String> servers, Map<String, JobImpact> impacts, double costGpuS, String reason) {
    this.servers = servers;
    this.impacts = impacts;
    this.costGpuS = costGpuS;
    this.infeasibleReason = reason;
  }

  static ReclaimPlan feasible(List<String> servers, Map<String, JobImpact> impacts) {
    double cost = 0;
    for (JobImpact i : impacts.values()) {
      cost += i.costGpuS();
    }
    return new ReclaimPlan(
        List.copyOf(servers), Collections.unmodifiableMap(new TreeMap<>(impacts)), cost, null);
  }

  static ReclaimPlan infeasible(String reason) {
    return new ReclaimPlan(List.of(), Map.of(), 0, reason);
  }

  public boolean isFeasible() {
    return infeasibleReason == null;
  }

  /** Why no plan could be made, if none could. */
  public Optional<String> infeasibleReason() {
    return Optional.ofNullable(infeasibleReason);
  }

  /** The servers to return, in the order they were chosen. */
  public List<String> servers() {
    return servers;
  }

  /** Affected jobs by id. */
  public Map<String, JobImpact> impacts() {
    return impacts;
  }

  /** Total server preemption cost, GPU-seconds. */
  public double costGpuS() {
    return costGpuS;
  }

  public List<String> jobsWith(Fate action) {
    return impacts.entrySet().stream()
        .filter(e -> e.getValue().action() == action)
        .map(Map.Entry::getKey)
        .toList();
  }

  /**
   * The allocations after the reclaim: preempted jobs gone, shrunk jobs without their workers on
   * the servers.
   */
  public Plan toPlan(ClusterState state) {
    Map<String, Allocation> targets = new TreeMap<>();
    for (Map.Entry<String, Allocation> e : state.allocations().entrySet()) {
      JobImpact impact = impacts.get(e.getKey());
      if (impact == null) {
        targets.put(e.getKey(), e.getValue());
      } else if (impact.action() == Fate.SHRINK) {
        Map<String, Integer> left = new HashMap<>(e.getValue().workersByServer());
        impact.workersRemoved().forEach((s, w) -> left.merge(s, -w, Integer::sum));
        targets.put(e.getKey(), Allocation.of(left));
      }
    }
    return Plan.between(state, targets);
  }

  @Override
  public String toString() {
    return isFeasible()
        ? "ReclaimPlan["
            + servers
            + ", cost "
            + Math.round(costGpuS)
            + " GPU-s, "
            + impacts.size()
            + " jobs]"
        : "ReclaimPlan[infeasible: " + infeasibleReason + "]";
  }
}
