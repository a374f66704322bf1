package org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity;

import java.util.function.Supplier;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.CandidateNodeSet;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.CandidateNodeSetUtils;

/**
 * Aryl: the Capacity Scheduler with a hook around every attempt to allocate on one node — a node heartbeat's, each
 * step of the asynchronous scheduling thread's walk of the nodes, and those Aryl makes itself
 * ({@link SingleNodeProposal}) — so that a subclass knows which node is being offered while its queues choose the
 * applications to offer it to. The step it wraps is package-private; this class is how a scheduler outside this package
 * reaches it. The same hook lets a subclass pass over a node no application would be offered.
 */
public abstract class NodeScopedCapacityScheduler extends CapacityScheduler {
  @Override
  CSAssignment allocateContainersToNode(CandidateNodeSet<FiCaSchedulerNode> candidates, boolean withNodeHeartbeat) {
    FiCaSchedulerNode node = CandidateNodeSetUtils.getSingleNode(candidates);
    if (node == null) {
      return super.allocateContainersToNode(candidates, withNodeHeartbeat); // several nodes at once: no one node
    }
    if (node.getReservedContainer() == null && noOneToOffer(node)) {
      return null; // what the step itself returns for a node it passes over (full, or gone)
    }
    return allocatingOn(node, () -> super.allocateContainersToNode(candidates, withNodeHeartbeat));
  }

  /**
   * True when no application would be offered {@code node}: the attempt to allocate there is skipped before the
   * queues are walked (a node holding a reservation is never skipped: the step serves it first). This one: never.
   */
  protected boolean noOneToOffer(FiCaSchedulerNode node) {
    return false;
  }

  /**
   * Runs one attempt to allocate on {@code node} (at most one container under asynchronous scheduling, as many as the
   * heartbeat allows in a node heartbeat); this one runs it as it is.
   */
  protected <T> T allocatingOn(FiCaSchedulerNode node, Supplier<T> allocation) {
    return allocation.get();
  }
}
