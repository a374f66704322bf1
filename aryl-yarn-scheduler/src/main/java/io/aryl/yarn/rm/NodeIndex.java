package io.aryl.yarn.rm;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * The scheduler's nodes by name, as of one read: each one's rack and id, and the name of each id.
 * Immutable: the planning loop builds a new one when nodes join or leave, and the heartbeat and
 * allocation threads read whichever is current.
 */
final class NodeIndex {
  static final NodeIndex EMPTY = new NodeIndex(Map.of(), Map.of(), Map.of());

  private final Map<String, String> racks;
  private final Map<NodeId, String> names;
  private final Map<String, NodeId> ids;

  private NodeIndex(Map<String, String> racks, Map<NodeId, String> names, Map<String, NodeId> ids) {
    this.racks = racks;
    this.names = names;
    this.ids = ids;
  }

  static NodeIndex of(Collection<FiCaSchedulerNode> nodes) {
    Map<String, String> racks = new HashMap<>();
    Map<NodeId, String> names = new HashMap<>();
    Map<String, NodeId> ids = new HashMap<>();
    for (FiCaSchedulerNode node : nodes) {
      racks.put(node.getNodeName(), node.getRackName());
      names.put(node.getNodeID(), node.getNodeName());
      ids.put(node.getNodeName(), node.getNodeID());
    }
    return new NodeIndex(Map.copyOf(racks), Map.copyOf(names), Map.copyOf(ids));
  }

  /** The node's rack; null if the node was not there. */
  String rackOf(String nodeName) {
    return racks.get(nodeName);
  }

  /** The node's name; null if the node was not there. */
  String nameOf(NodeId id) {
    return names.get(id);
  }

  /** The node's id; null if the node was not there. */
  NodeId idOf(String nodeName) {
    return ids.get(nodeName);
  }
}
