package io.aryl.yarn.rm;

import java.util.Collection;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * The scheduler's nodes by name and by id, for the threads that allocate: from the index built when
 * the rounds last found nodes joined or gone ({@link NodeIndex}), and from the scheduler for a node
 * that registered since.
 */
final class NodeLookup {
  private final CapacityScheduler scheduler;

  /** The nodes by name; built again when nodes join or leave. */
  private volatile NodeIndex index = NodeIndex.EMPTY;

  /**
   * The node membership ({@link RmReader#nodeMembership}) the index was built at; -1 before the
   * first. Only the rounds, one at a time, read and write it.
   */
  private long indexedMembership = -1;

  NodeLookup(CapacityScheduler scheduler) {
    this.scheduler = scheduler;
  }

  /**
   * A round read the nodes: {@code all} of them, at this membership. The index is built again only
   * when the membership changed.
   */
  void read(Collection<FiCaSchedulerNode> all, long membership) {
    if (indexedMembership != membership) {
      index = NodeIndex.of(all);
      indexedMembership = membership;
    }
  }

  /** The node's rack; null if the index does not have the node. */
  String rackOf(String nodeName) {
    return index.rackOf(nodeName);
  }

  /** The node's name; null if the scheduler does not have the node (any more). */
  String nameOf(NodeId id) {
    String n = index.nameOf(id);
    if (n == null) {
      FiCaSchedulerNode node = scheduler.getNode(id);
      n = node == null ? null : node.getNodeName();
    }
    return n;
  }

  /** The scheduler's node of this name; null if unknown or gone. */
  FiCaSchedulerNode named(String nodeName) {
    NodeId id = index.idOf(nodeName);
    FiCaSchedulerNode indexed = id == null ? null : scheduler.getNode(id);
    if (indexed != null) {
      return indexed;
    }
    // Registered since the last round indexed the nodes: a scan, as rare as that.
    for (FiCaSchedulerNode n : scheduler.getNodeTracker().getAllNodes()) {
      if (n.getNodeName().equals(nodeName)) {
        return n;
      }
    }
    return null;
  }
}
