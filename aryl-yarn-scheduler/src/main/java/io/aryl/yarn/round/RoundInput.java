package io.aryl.yarn.round;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import java.util.List;
import java.util.Map;

/**
 * What one round plans on, translated from the ResourceManager's state.
 *
 * @param state the aryl-core snapshot
 * @param workers every elastic application's live worker containers that are not being drained, by node
 * @param orphans worker containers of a job that holds fewer than its minimum and no promise to complete it: a
 *     partial gang, to be drained
 * @param surplus worker containers beyond their job's maximum (the newest; e.g. new workers of a move that was given
 *     up), left out of the snapshot, to be drained
 * @param starting gangs whose promised room is still held by containers being drained, out of the snapshot: their
 *     promise stands as it was, and their workers (if any) are neither modelled nor drained
 * @param keptGpus per node, the free GPUs kept out of the snapshot for the {@code starting} gangs
 */
public record RoundInput(ClusterState state, Map<String, Map<String, List<ContainerView>>> workers,
    List<ContainerView> orphans, List<ContainerView> surplus, Map<String, Allocation> starting,
    Map<String, Integer> keptGpus) {

  public RoundInput(
      ClusterState state, Map<String, Map<String, List<ContainerView>>> workers, List<ContainerView> orphans) {
    this(state, workers, orphans, List.of(), Map.of(), Map.of());
  }

  public int liveWorkers(String appId) {
    return workers.getOrDefault(appId, Map.of()).values().stream().mapToInt(List::size).sum();
  }
}
