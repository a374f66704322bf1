package io.aryl.labels;

import io.aryl.api.status.ReclaimStatus;
import io.aryl.core.model.Checks;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the loan controller needs from YARN: the nodes and their labels, relabelling, and the scheduler's view of its
 * reclaims.
 */
public interface Pools {
  /** The running nodes, their labels and how many containers each runs. */
  List<PoolNode> nodes() throws IOException;

  /** Replaces the labels of {@code node} with {@code label} (centralized node labels, RM admin protocol). */
  void relabel(String node, String label) throws IOException;

  /**
   * Asks the scheduler for {@code nodes} loaned nodes back by {@code deadlineMs}; it chooses which, drains and
   * relabels them.
   *
   * @throws ReclaimRefusedException when the scheduler answers it cannot (e.g. fewer nodes on loan)
   */
  SchedulerReclaim requestReclaim(int nodes, long deadlineMs) throws IOException, ReclaimRefusedException;

  /** Shows the controller's state in the scheduler's Aryl REST resource; a pool that cannot show it ignores it. */
  default void reportStatus(Map<String, Object> status) throws IOException {}

  /** The scheduler's reclaims, in flight and recently done, and whether it is recovering. */
  SchedulerView scheduler() throws IOException;

  /** Where the scheduler was last reached (the active ResourceManager's web app), for the status; "" if unknown. */
  default String schedulerAddress() {
    return "";
  }

  /**
   * What the scheduler knows now.
   *
   * @param reclaims its reclaims, in flight and recently done
   * @param recovering true while a newly active scheduler waits for the NodeManagers to re-register after a restart
   *     or failover: what it does not list then, it may simply not know yet
   */
  record SchedulerView(List<SchedulerReclaim> reclaims, boolean recovering) {
    public SchedulerView {
      reclaims = List.copyOf(Checks.notNull("reclaims", reclaims));
    }

    /** True when reclaim {@code id} is listed with {@code node} among its nodes. */
    public boolean lists(long id, String node) {
      return reclaims.stream().anyMatch(r -> r.id() == id && r.nodes().contains(node));
    }
  }

  /** A node as YARN reports it. */
  record PoolNode(String name, Set<String> labels, int containers) {
    public PoolNode {
      Checks.notBlank("name", name);
      labels = Set.copyOf(labels);
      Checks.nonNegative("containers", containers);
    }

    public boolean labelled(String label) {
      return labels.contains(label);
    }
  }

  /**
   * A reclaim as the scheduler reports it, narrowed to what the controller reads of a {@link ReclaimStatus}.
   *
   * @param phase where it is; null when the scheduler names a phase this version does not know (not done)
   */
  record SchedulerReclaim(long id, ReclaimStatus.Phase phase, List<String> nodes, long requestedMs,
      long deadlineMs) {
    public SchedulerReclaim {
      nodes = List.copyOf(nodes);
    }

    /** What the controller reads of a reclaim the scheduler lists or answers. */
    public static SchedulerReclaim of(ReclaimStatus r) {
      return new SchedulerReclaim(r.id(), r.phase(), r.nodes(), r.requestedMs(), r.deadlineMs());
    }

    public boolean done() {
      return phase == ReclaimStatus.Phase.DONE;
    }
  }

  /** The scheduler refused a reclaim, with its reason. */
  final class ReclaimRefusedException extends Exception {
    private static final long serialVersionUID = 1L;

    public ReclaimRefusedException(String message) {
      super(message);
    }
  }
}
