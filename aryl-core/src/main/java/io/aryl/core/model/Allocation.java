package io.aryl.core.model;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Where one job's workers run: workers per server id. Immutable; servers with zero workers are left out. */
public final class Allocation {
  public static final Allocation EMPTY = new Allocation(new TreeMap<>());

  private final SortedMap<String, Integer> workersByServer;
  private final int totalWorkers;

  private Allocation(TreeMap<String, Integer> workersByServer) {
    this.workersByServer = Collections.unmodifiableSortedMap(workersByServer);
    int total = 0;
    for (int w : workersByServer.values()) {
      total += w;
    }
    this.totalWorkers = total;
  }

  /** An allocation from a map of server id to worker count; zero counts are dropped, negative ones refused. */
  public static Allocation of(Map<String, Integer> workersByServer) {
    TreeMap<String, Integer> copy = new TreeMap<>();
    for (Map.Entry<String, Integer> e : workersByServer.entrySet()) {
      int w = e.getValue();
      if (w < 0) {
        Checks.nonNegative("allocation workers on " + e.getKey(), w);
      }
      if (w > 0) {
        copy.put(Checks.notBlank("allocation server id", e.getKey()), w);
      }
    }
    return copy.isEmpty() ? EMPTY : new Allocation(copy);
  }

  public static Allocation of(String serverId, int workers) {
    return of(Map.of(serverId, workers));
  }

  public int workersOn(String serverId) {
    return workersByServer.getOrDefault(serverId, 0);
  }

  public int totalWorkers() {
    return totalWorkers;
  }

  public boolean isEmpty() {
    return totalWorkers == 0;
  }

  /** Server id to workers, sorted by server id. */
  public SortedMap<String, Integer> workersByServer() {
    return workersByServer;
  }

  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof Allocation a && workersByServer.equals(a.workersByServer);
  }

  @Override
  public int hashCode() {
    return workersByServer.hashCode();
  }

  @Override
  public String toString() {
    return workersByServer.toString();
  }
}
