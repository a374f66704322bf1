package io.aryl.yarn.round;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The workers the snapshot counts each job as holding, per node, as a translation counts them: its
 * live workers first ({@link #countLive}), then the workers promised to it where their room is
 * ({@link PromisesInFreeRoom}, {@link PromisesInDrainedRoom}). Every worker counted uses its GPUs
 * in the round's {@link GpuLedger}; a gang counted as started on room that drains free is
 * remembered as awaiting them ({@link #awaitDrains}).
 */
final class CountedWorkers {
  private final GpuLedger gpus;
  private final Map<String, SortedMap<String, Integer>> byApp = new HashMap<>();
  private final Set<String> awaitingDrains = new TreeSet<>();

  CountedWorkers(GpuLedger gpus) {
    this.gpus = gpus;
  }

  /** Counts each job's live workers: they hold their GPUs whatever the plan says. */
  void countLive(Iterable<AppView> apps, HeldWorkers held) {
    for (AppView app : apps) {
      SortedMap<String, Integer> a = new TreeMap<>();
      held.of(app.id()).forEach((node, cs) -> a.put(node, cs.size()));
      byApp.put(app.id(), a);
      a.forEach((node, w) -> gpus.addUsed(node, w * app.shape().gpusPerWorker()));
    }
  }

  /** Counts {@code workers} more of the job on the node, and their GPUs as used there. */
  void add(AppView app, String node, int workers) {
    byApp.get(app.id()).merge(node, workers, Integer::sum);
    gpus.addUsed(node, workers * app.shape().gpusPerWorker());
  }

  /** The job's workers counted on the node. */
  int at(String appId, String node) {
    return byApp.get(appId).getOrDefault(node, 0);
  }

  /** The job's workers counted on every node. */
  int total(String appId) {
    int n = 0; // a loop rather than a stream: it runs several times per job, every round
    for (int w : byApp.get(appId).values()) {
      n += w;
    }
    return n;
  }

  /**
   * The job's workers counted, by node in their order (which {@link
   * io.aryl.core.model.Allocation#of} reads without sorting again).
   */
  SortedMap<String, Integer> of(String appId) {
    return Collections.unmodifiableSortedMap(byApp.get(appId));
  }

  /**
   * Counts none of the job's workers any more (a partial gang, whose workers are orphans), and
   * gives their GPUs back.
   */
  void drop(AppView app) {
    Map<String, Integer> a = byApp.get(app.id());
    a.forEach((node, w) -> gpus.addUsed(node, -w * app.shape().gpusPerWorker()));
    a.clear();
  }

  /** The gang counts as started on its promise, its room held by containers being drained. */
  void awaitDrains(String appId) {
    awaitingDrains.add(appId);
  }

  boolean awaitsDrains(String appId) {
    return awaitingDrains.contains(appId);
  }

  /** The gangs counted as started on room drains still hold, as {@link RoundInput} names them. */
  Set<String> awaitingDrains() {
    return awaitingDrains;
  }
}
