package io.aryl.yarn.rm;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ContainerAllocationProposal;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ResourceCommitRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.SchedulerContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * How many times each node's running containers changed: the scheduler counts a change once a
 * container was committed to the node, completed on it, removed by the node's report that it
 * finished, or recovered onto it, and a reader ({@link NodeViews}) reads a node's containers again
 * only when its count moved since it last looked. At thousands of nodes, copying every node's
 * container list each round (a lock per node, two per container) was most of what reading the
 * cluster cost, for nodes of which few change between two rounds.
 *
 * <p>A change is counted after it is made, and a reader takes the count before it reads the
 * containers: a count it saw moved is followed by a read that sees the change, and a change it did
 * not see counted moves the count again for its next look. Counts rather than a set of marks taken:
 * every reader (the planning loop's, a test's) sees each change.
 */
public final class NodeChangeCounts {
  private final ConcurrentHashMap<NodeId, AtomicLong> counts = new ConcurrentHashMap<>();
  private final AtomicLong nodesChanged = new AtomicLong();

  /** Called on the scheduler's threads, after the node's containers changed. */
  public void changed(NodeId node) {
    if (node != null) {
      of(node).incrementAndGet();
    }
  }

  /**
   * Called after nodes changed their label, size or attributes: a reader compares every node's with
   * what it saw. Rare (an operator's act), and such events may name a host for all its nodes, so it
   * is one count for all.
   */
  public void nodesChanged() {
    nodesChanged.incrementAndGet();
  }

  /** The count of {@link #nodesChanged} calls, to be read before the nodes are. */
  long nodesChangedCount() {
    return nodesChanged.get();
  }

  /**
   * Called after a commit: counts a change on every node it allocated or released a container on.
   */
  public void committed(ResourceCommitRequest<FiCaSchedulerApp, FiCaSchedulerNode> r) {
    if (r.getContainersToAllocate() != null) {
      for (ContainerAllocationProposal<FiCaSchedulerApp, FiCaSchedulerNode> p :
          r.getContainersToAllocate()) {
        changed(p.getAllocatedOrReservedContainer());
        if (p.getToRelease() != null) {
          p.getToRelease().forEach(this::changed);
        }
      }
    }
    if (r.getContainersToRelease() != null) {
      r.getContainersToRelease().forEach(this::changed);
    }
  }

  private void changed(SchedulerContainer<FiCaSchedulerApp, FiCaSchedulerNode> c) {
    if (c != null && c.getSchedulerNode() != null) {
      changed(c.getSchedulerNode().getNodeID());
    }
  }

  /** The node's count, to be read (and compared with what was seen) before its containers are. */
  AtomicLong of(NodeId node) {
    return counts.computeIfAbsent(node, n -> new AtomicLong());
  }
}
