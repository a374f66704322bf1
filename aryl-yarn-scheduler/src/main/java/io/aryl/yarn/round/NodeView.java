package io.aryl.yarn.round;

import io.aryl.core.model.GpuType;
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

  /** The ids of every container on {@code nodes}. */
  public static Set<String> containerIds(List<NodeView> nodes) {
    Set<String> ids = new HashSet<>();
    nodes.forEach(n -> n.containers().forEach(c -> ids.add(c.id())));
    return ids;
  }
}
