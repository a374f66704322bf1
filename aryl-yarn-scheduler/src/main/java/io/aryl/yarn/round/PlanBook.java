package io.aryl.yarn.round;

import io.aryl.core.model.Allocation;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the latest round promised each application it planned (elastic jobs, and plain applications'
 * pending containers): its workers per node, and how many GPUs each of them takes. The allocation
 * path consults it on every proposal, so it is immutable and swapped whole after each round.
 */
public final class PlanBook {
  public static final PlanBook EMPTY = new PlanBook(Map.of(), 0);

  private final Map<String, Allocation> targets;
  private final Map<String, Integer> gpusPerWorker;
  private final Map<String, Map<String, Integer>> byNode;
  private final long round;

  public PlanBook(Map<String, Allocation> targets, long round) {
    this(targets, Map.of(), round);
  }

  /**
   * @param gpusPerWorker GPUs of one worker of each planned application
   */
  public PlanBook(Map<String, Allocation> targets, Map<String, Integer> gpusPerWorker, long round) {
    this.targets = Collections.unmodifiableMap(new TreeMap<>(targets));
    this.gpusPerWorker = Map.copyOf(gpusPerWorker);
    Map<String, Map<String, Integer>> nodes = new HashMap<>();
    targets.forEach(
        (app, alloc) ->
            alloc
                .workersByServer()
                .forEach(
                    (node, w) -> nodes.computeIfAbsent(node, n -> new HashMap<>()).put(app, w)));
    nodes.replaceAll(
        (node, apps) -> Collections.unmodifiableMap(apps)); // promisedOn hands these out
    this.byNode = nodes;
    this.round = round;
  }

  /** The round that wrote this book. */
  public long round() {
    return round;
  }

  public Map<String, Allocation> targets() {
    return targets;
  }

  public Allocation target(String appId) {
    return targets.getOrDefault(appId, Allocation.EMPTY);
  }

  public boolean admitted(String appId) {
    return targets.containsKey(appId);
  }

  /**
   * GPUs of one worker of the application, as the round that wrote this book planned it; 0 if it
   * did not.
   */
  public int gpusPerWorker(String appId) {
    return gpusPerWorker.getOrDefault(appId, 0);
  }

  /** Workers promised to each application on the node. */
  public Map<String, Integer> promisedOn(String nodeId) {
    return byNode.getOrDefault(nodeId, Map.of());
  }

  /**
   * True if the application may get one more worker on the node, holding {@code liveOnNode} there
   * now.
   */
  public boolean mayPlace(String appId, String nodeId, int liveOnNode) {
    return target(appId).workersOn(nodeId) > liveOnNode;
  }

  /** Workers still to start for the application, holding {@code liveTotal} now. */
  public int outstanding(String appId, int liveTotal) {
    return Math.max(0, target(appId).totalWorkers() - liveTotal);
  }

  /**
   * The applications whose target differs from {@code before}'s, or that {@code before} admitted
   * and this does not.
   */
  public Set<String> changedSince(PlanBook before) {
    Set<String> out = new HashSet<>();
    targets()
        .forEach(
            (app, alloc) -> {
              if (!alloc.equals(before.target(app))) {
                out.add(app);
              }
            });
    before
        .targets()
        .keySet()
        .forEach(
            app -> {
              if (!admitted(app)) {
                out.add(app);
              }
            });
    return out;
  }
}
