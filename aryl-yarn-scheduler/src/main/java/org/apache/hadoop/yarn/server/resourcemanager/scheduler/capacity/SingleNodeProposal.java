package org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity;

import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.SimpleCandidateNodeSet;

/**
 * Aryl: one step of the Capacity Scheduler's asynchronous walk, on one node, at a time Aryl
 * chooses. The step is package-private; {@code io.aryl.yarn.rm.PromisedNodeAllocation} calls it
 * through this class.
 */
public final class SingleNodeProposal {
  private SingleNodeProposal() {}

  /**
   * Proposes at most one container on the node, as the asynchronous scheduling thread does when it
   * reaches it; the proposal is committed (or refused) as that thread's are.
   *
   * @return true if a container was proposed
   */
  public static boolean proposeOn(CapacityScheduler scheduler, FiCaSchedulerNode node) {
    CSAssignment a = scheduler.allocateContainersToNode(new SimpleCandidateNodeSet<>(node), false);
    return a != null && a.getAssignmentInformation().getNumAllocations() > 0;
  }
}
