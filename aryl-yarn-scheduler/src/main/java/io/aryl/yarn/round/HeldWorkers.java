package io.aryl.yarn.round;

import io.aryl.core.victim.VictimOrder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The worker containers each Aryl job holds on the nodes a round plans on, by job and node: what
 * the plan may move. Every other container there (another application's, an ApplicationMaster, a
 * worker being drained) holds GPUs the plan does not own, and is taken out of its node's capacity
 * in the ledger as the containers are sorted ({@link #sort}). What a job may not keep leaves it
 * here: workers beyond its maximum ({@link #takeSurplus}) and a partial gang ({@link
 * #takeOrphans}).
 */
final class HeldWorkers {
  private final Map<String, Map<String, List<ContainerView>>> byApp = new TreeMap<>();

  private HeldWorkers() {}

  /**
   * Sorts the containers of every node planned on, setting each node's capacity in {@code gpus}:
   * its GPUs less those of containers that are not the plan's, and noting those being drained.
   *
   * @param draining ids of the containers being drained
   */
  static HeldWorkers sort(
      List<NodeView> nodes,
      PlannableNodes plannable,
      Map<String, AppView> apps,
      Set<String> draining,
      GpuLedger gpus) {
    HeldWorkers held = new HeldWorkers();
    Map<String, AppView> appsById =
        new HashMap<>(apps); // looked up for every container: a hash, not a tree
    for (int k = 0; k < nodes.size(); k++) {
      int position = plannable.positionOfGiven(k);
      if (position < 0) {
        continue; // not in the pool planned on, or of no known GPU type: its speed would be a guess
      }
      NodeView node = nodes.get(k);
      int blocked = 0;
      for (ContainerView c : node.containers()) {
        AppView owner = appsById.get(c.appId());
        // A plain application's running containers are its own: only its pending ones are the
        // plan's to place.
        boolean plannedWorker =
            owner != null && !owner.plain() && !c.amContainer() && !draining.contains(c.id());
        if (plannedWorker) {
          held.byApp
              .computeIfAbsent(c.appId(), a -> new TreeMap<>())
              .computeIfAbsent(node.id(), n -> new ArrayList<>())
              .add(c);
        } else {
          blocked += c.gpus();
          if (draining.contains(c.id())) {
            gpus.addLeavingAt(position, c.gpus());
          }
        }
      }
      gpus.setCapacityAt(position, node.gpus() - blocked);
    }
    return held;
  }

  /**
   * Takes out the workers each job holds beyond its maximum (the newest, {@link
   * VictimOrder#newestFirst}; e.g. new workers of a move given up): they hold their GPUs, out of
   * the capacity, until drained.
   *
   * @return those workers
   */
  List<ContainerView> takeSurplus(Collection<AppView> apps, GpuLedger gpus) {
    List<ContainerView> surplus = new ArrayList<>();
    for (AppView app : apps) {
      Map<String, List<ContainerView>> live = byApp.get(app.id());
      int over = live == null ? 0 : count(live) - app.shape().maxWorkers();
      if (over > 0) {
        VictimOrder.newestFirst(
                live.values().stream().flatMap(List::stream).toList(), ContainerView::seq, over)
            .forEach(
                c -> {
                  surplus.add(c);
                  String node = nodeOf(live, c);
                  live.get(node).remove(c);
                  if (live.get(node).isEmpty()) {
                    live.remove(node);
                  }
                  gpus.addCapacity(node, -c.gpus());
                });
      }
    }
    return surplus;
  }

  /**
   * Takes out the workers of a partial gang, which must not run as it is: they keep their GPUs
   * until drained, so they leave the capacity the plan may use.
   *
   * @return those workers, the job's orphans
   */
  List<ContainerView> takeOrphans(AppView app, GpuLedger gpus) {
    Map<String, List<ContainerView>> partial = byApp.remove(app.id());
    if (partial == null) {
      return List.of();
    }
    List<ContainerView> orphans = new ArrayList<>();
    partial.forEach(
        (node, cs) -> {
          orphans.addAll(cs);
          gpus.addCapacity(node, -cs.size() * app.shape().gpusPerWorker());
        });
    return orphans;
  }

  /** The job's workers by node; empty if it holds none. */
  Map<String, List<ContainerView>> of(String appId) {
    return byApp.getOrDefault(appId, Map.of());
  }

  /** How many workers the job holds. */
  int count(String appId) {
    return count(of(appId));
  }

  /** Every job's workers by node, as {@link RoundInput#workers()} hands them on. */
  Map<String, Map<String, List<ContainerView>>> byApp() {
    return byApp;
  }

  // A loop rather than a stream: it runs several times per job, for hundreds of jobs, every round.
  static int count(Map<String, List<ContainerView>> containersByNode) {
    int n = 0;
    for (List<ContainerView> cs : containersByNode.values()) {
      n += cs.size();
    }
    return n;
  }

  private static String nodeOf(Map<String, List<ContainerView>> byNode, ContainerView c) {
    for (Map.Entry<String, List<ContainerView>> e : byNode.entrySet()) {
      if (e.getValue().contains(c)) {
        return e.getKey();
      }
    }
    throw new IllegalStateException(c.id() + " is on no node");
  }
}
