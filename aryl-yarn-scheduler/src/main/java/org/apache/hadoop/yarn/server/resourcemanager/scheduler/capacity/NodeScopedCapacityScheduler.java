package org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity;

import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.CandidateNodeSet;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.CandidateNodeSetUtils;

/**
 * Aryl: the Capacity Scheduler with a hook around every attempt to allocate on one node — a node
 * heartbeat's, each step of the asynchronous scheduling thread's walk of the nodes, and those Aryl
 * makes itself ({@link SingleNodeProposal}) — so that a subclass knows which node is being offered
 * while its queues choose the applications to offer it to. The step it wraps is package-private;
 * this class is how a scheduler outside this package reaches it. The same hook lets a subclass pass
 * over a node no application would be offered, and slow the asynchronous thread's walk of the nodes
 * while nothing is pending.
 */
public abstract class NodeScopedCapacityScheduler extends CapacityScheduler {
  @Override
  CSAssignment allocateContainersToNode(
      CandidateNodeSet<FiCaSchedulerNode> candidates, boolean withNodeHeartbeat) {
    FiCaSchedulerNode node = CandidateNodeSetUtils.getSingleNode(candidates);
    if (node == null) {
      return super.allocateContainersToNode(
          candidates, withNodeHeartbeat); // several nodes at once: no one node
    }
    if (idleWalkStep(withNodeHeartbeat)
        || (node.getReservedContainer() == null && noOneToOffer(node))) {
      return null; // what the step itself returns for a node it passes over (full, or gone)
    }
    return allocatingOn(node, () -> super.allocateContainersToNode(candidates, withNodeHeartbeat));
  }

  /**
   * On the asynchronous scheduling thread, when {@link #pausesIdleWalk} and no queue has anything
   * pending: waits {@link #IDLE_STEP_WAIT_MS} and returns true if still nothing is pending (the
   * step is skipped).
   *
   * <p>Why: that thread walks every node without end, sleeping only between walks, whether or not
   * anything waits to be allocated; at thousands of nodes it keeps a core busy on an idle cluster.
   * With nothing pending, no step can allocate (a reservation keeps its request pending), so the
   * walk may as well go slowly until something is asked for; it is back to full speed within one
   * wait of the first ask.
   */
  private boolean idleWalkStep(boolean withNodeHeartbeat) {
    if (withNodeHeartbeat
        || !pausesIdleWalk()
        || !(Thread.currentThread() instanceof AsyncScheduleThread)
        || anythingPending()) {
      return false;
    }
    try {
      Thread.sleep(IDLE_STEP_WAIT_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the thread is being stopped: its loop sees the flag
      return true;
    }
    return !anythingPending();
  }

  /** How long each step of an idle walk waits ({@link #idleWalkStep}). */
  static final long IDLE_STEP_WAIT_MS = 10;

  private boolean anythingPending() {
    return !zero(getRootQueue().getQueueResourceUsage().getAllPending());
  }

  /**
   * Whether every amount of {@code r} is 0. Not {@code Resources.isNone}: that compares with a
   * constant whose resource types are those known when it was made, unequal to any resource once
   * more types are registered.
   */
  protected static boolean zero(Resource r) {
    for (ResourceInformation ri : r.getResources()) {
      if (ri.getValue() != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the asynchronous scheduling thread's walk slows down while nothing is pending. This
   * one: no.
   */
  protected boolean pausesIdleWalk() {
    return false;
  }

  /**
   * True when no application would be offered {@code node}: the attempt to allocate there is
   * skipped before the queues are walked (a node holding a reservation is never skipped: the step
   * serves it first). This one: never.
   */
  protected boolean noOneToOffer(FiCaSchedulerNode node) {
    return false;
  }

  /**
   * Runs one attempt to allocate on {@code node} (at most one container under asynchronous
   * scheduling, as many as the heartbeat allows in a node heartbeat); this one runs it as it is.
   */
  protected <T> T allocatingOn(FiCaSchedulerNode node, Supplier<T> allocation) {
    return allocation.get();
  }
}
