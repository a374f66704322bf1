package io.aryl.yarn.round;

import io.aryl.core.model.GpuType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A node as a round sees it.
 *
 * @param id node name (host:port or host)
 * @param label its node label ("" for the default partition)
 * @param gpus GPUs it has
 * @param containers what runs on it
 * @param gpuType the type of its GPUs; null: the translator's one type (a cluster of one GPU type)
 * @param gpuTypeError why the node has no GPU type the plan can use, or null: such a node is left
 *     out of the plan
 */
public record NodeView(
    String id,
    String label,
    int gpus,
    List<ContainerView> containers,
    GpuType gpuType,
    String gpuTypeError) {
  public NodeView {
    containers = List.copyOf(containers);
  }

  /** A node of the cluster's one GPU type. */
  public NodeView(String id, String label, int gpus, List<ContainerView> containers) {
    this(id, label, gpus, containers, null, null);
  }

  public boolean isEmpty() {
    return containers.isEmpty();
  }

  /**
   * The nodes without the containers {@code gone}; a node that holds none of them is the same
   * object.
   */
  public static List<NodeView> without(List<NodeView> nodes, Set<String> gone) {
    if (gone.isEmpty()) {
      return nodes;
    }
    List<NodeView> out = new ArrayList<>(nodes.size());
    for (NodeView n : nodes) {
      if (n.containers().stream().noneMatch(c -> gone.contains(c.id()))) {
        out.add(n);
        continue;
      }
      out.add(
          new NodeView(
              n.id(),
              n.label(),
              n.gpus(),
              n.containers().stream().filter(c -> !gone.contains(c.id())).toList(),
              n.gpuType(),
              n.gpuTypeError()));
    }
    return out;
  }

  /** The ids of every container on {@code nodes}. */
  public static Set<String> containerIds(List<NodeView> nodes) {
    Set<String> ids = new HashSet<>();
    nodes.forEach(n -> n.containers().forEach(c -> ids.add(c.id())));
    return ids;
  }
}
