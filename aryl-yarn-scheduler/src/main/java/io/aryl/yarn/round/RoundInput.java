package io.aryl.yarn.round;

import io.aryl.core.model.ClusterState;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one round plans on, translated from the ResourceManager's state.
 *
 * @param state the aryl-core snapshot
 * @param workers every elastic application's live worker containers that are not being drained, by
 *     node
 * @param orphans worker containers of a job that holds fewer than its minimum and no promise to
 *     complete it: a partial gang, to be drained
 * @param surplus worker containers beyond their job's maximum (the newest; e.g. new workers of a
 *     move that was given up), left out of the snapshot, to be drained
 * @param awaitingDrains gangs whose promised room containers being drained still hold: they count
 *     as started on their promise, the GPUs of those drains theirs already
 * @param roomFromDrains per node, the GPUs of containers being drained that those gangs count as
 *     theirs (added to the node's capacity in the snapshot, held by the drains until they are gone)
 */
public record RoundInput(
    ClusterState state,
    Map<String, Map<String, List<ContainerView>>> workers,
    List<ContainerView> orphans,
    List<ContainerView> surplus,
    Set<String> awaitingDrains,
    Map<String, Integer> roomFromDrains) {

  public RoundInput(
      ClusterState state,
      Map<String, Map<String, List<ContainerView>>> workers,
      List<ContainerView> orphans) {
    this(state, workers, orphans, List.of(), Set.of(), Map.of());
  }

  public int liveWorkers(String appId) {
    return workers.getOrDefault(appId, Map.of()).values().stream().mapToInt(List::size).sum();
  }
}
