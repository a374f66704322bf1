package io.aryl.yarn.round;

import java.util.List;

/**
 * A node as a round sees it.
 *
 * @param id node name (host:port or host)
 * @param label its node label ("" for the default partition)
 * @param gpus GPUs it has
 * @param containers what runs on it
 */
public record NodeView(String id, String label, int gpus, List<ContainerView> containers) {
  public NodeView {
    containers = List.copyOf(containers);
  }

  public boolean isEmpty() {
    return containers.isEmpty();
  }
}
