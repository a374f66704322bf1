package io.aryl.core.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Where one job's workers run: workers per server id. Immutable; servers with zero workers are left
 * out.
 *
 * <p>Kept as arrays sorted by server id, which a round reads for every running job ({@link
 * #serverAt(int)}, {@link #workersAt(int)}); the map view is made when first asked for.
 */
public final class Allocation {
  public static final Allocation EMPTY = new Allocation(new String[0], new int[0]);

  private final String[] servers; // sorted
  private final int[] workers; // each > 0, by position in servers
  private final int totalWorkers;
  // Racy but safe, as String.hash is: the unmodifiable wrapper's final field publishes the finished
  // copy.
  private SortedMap<String, Integer> workersByServer;

  private Allocation(String[] servers, int[] workers) {
    this.servers = servers;
    this.workers = workers;
    int total = 0;
    for (int w : workers) {
      total += w;
    }
    this.totalWorkers = total;
  }

  /**
   * An allocation from a map of server id to worker count; zero counts are dropped, negative ones
   * refused.
   */
  public static Allocation of(Map<String, Integer> workersByServer) {
    // A map sorted by id already (a TreeMap in natural order, as most callers build) is read as it
    // is.
    Map<String, Integer> sorted =
        workersByServer instanceof SortedMap<String, Integer> m && m.comparator() == null
            ? m
            : sortedCopy(workersByServer);
    String[] servers = new String[sorted.size()];
    int[] workers = new int[sorted.size()];
    int n = 0;
    for (Map.Entry<String, Integer> e : sorted.entrySet()) {
      int w = e.getValue();
      if (w < 0) {
        Checks.nonNegative("allocation workers on " + e.getKey(), w);
      }
      if (w > 0) {
        servers[n] = Checks.notBlank("allocation server id", e.getKey());
        workers[n++] = w;
      }
    }
    if (n == 0) {
      return EMPTY;
    }
    return new Allocation(
        n == servers.length ? servers : Arrays.copyOf(servers, n),
        n == workers.length ? workers : Arrays.copyOf(workers, n));
  }

  private static SortedMap<String, Integer> sortedCopy(Map<String, Integer> workersByServer) {
    TreeMap<String, Integer> copy = new TreeMap<>();
    for (Map.Entry<String, Integer> e : workersByServer.entrySet()) {
      copy.put(Checks.notBlank("allocation server id", e.getKey()), e.getValue());
    }
    return copy;
  }

  public static Allocation of(String serverId, int workers) {
    return of(Map.of(serverId, workers));
  }

  public int workersOn(String serverId) {
    int i = Arrays.binarySearch(servers, serverId);
    return i >= 0 ? workers[i] : 0;
  }

  public int totalWorkers() {
    return totalWorkers;
  }

  public boolean isEmpty() {
    return totalWorkers == 0;
  }

  /** How many servers hold its workers. */
  public int serverCount() {
    return servers.length;
  }

  /**
   * The id of the i-th server holding its workers, in id order ({@code 0 <= i < serverCount()}).
   */
  public String serverAt(int i) {
    return servers[i];
  }

  /** Its workers on the i-th server, in id order ({@code 0 <= i < serverCount()}); always > 0. */
  public int workersAt(int i) {
    return workers[i];
  }

  /** Server id to workers, sorted by server id. */
  public SortedMap<String, Integer> workersByServer() {
    SortedMap<String, Integer> view = workersByServer;
    if (view == null) {
      TreeMap<String, Integer> map = new TreeMap<>();
      for (int i = 0; i < servers.length; i++) {
        map.put(servers[i], workers[i]);
      }
      view = Collections.unmodifiableSortedMap(map);
      workersByServer = view;
    }
    return view;
  }

  @Override
  public boolean equals(Object o) {
    return o == this
        || (o instanceof Allocation a
            && Arrays.equals(servers, a.servers)
            && Arrays.equals(workers, a.workers));
  }

  /** As the map view's hash code. */
  @Override
  public int hashCode() {
    int h = 0;
    for (int i = 0; i < servers.length; i++) {
      h += servers[i].hashCode() ^ Integer.hashCode(workers[i]);
    }
    return h;
  }

  @Override
  public String toString() {
    return workersByServer().toString();
  }
}
