package io.aryl.core;

import java.util.Arrays;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Workers by server index, in index order: a job's base or flexible workers in a round, most often
 * on one or two servers. Immutable; two small arrays rather than a map, as a round reads them for
 * every running job.
 */
final class ServerWorkers {
  static final ServerWorkers NONE = new ServerWorkers(new int[0], new int[0]);

  /** What is done with each (server, workers) pair. */
  @FunctionalInterface
  interface Each {
    void accept(int server, int workers);
  }

  private final int[] servers; // increasing
  private final int[] workers; // each > 0

  private ServerWorkers(int[] servers, int[] workers) {
    this.servers = servers;
    this.workers = workers;
  }

  /** The pairs of {@code servers} (increasing) and {@code counts}, zero counts left out. */
  static ServerWorkers of(int[] servers, int[] counts) {
    int[] s = new int[servers.length];
    int[] w = new int[s.length];
    int n = 0;
    for (int i = 0; i < servers.length; i++) {
      if (counts[i] > 0) {
        s[n] = servers[i];
        w[n++] = counts[i];
      }
    }
    return n == 0 ? NONE : new ServerWorkers(Arrays.copyOf(s, n), Arrays.copyOf(w, n));
  }

  /** One worker on each entry of {@code perWorker} (a server index per worker, in any order). */
  static ServerWorkers ofEach(int[] perWorker) {
    return ofEach(perWorker, 0, perWorker.length);
  }

  /** One worker on each of {@code perWorker[from..to)}. */
  static ServerWorkers ofEach(int[] perWorker, int from, int to) {
    int[] sorted = Arrays.copyOfRange(perWorker, from, to);
    Arrays.sort(sorted);
    int[] s = new int[sorted.length];
    int[] w = new int[sorted.length];
    int n = 0;
    for (int server : sorted) {
      if (n > 0 && s[n - 1] == server) {
        w[n - 1]++;
      } else {
        s[n] = server;
        w[n++] = 1;
      }
    }
    return n == 0 ? NONE : new ServerWorkers(Arrays.copyOf(s, n), Arrays.copyOf(w, n));
  }

  int size() {
    return servers.length;
  }

  boolean isEmpty() {
    return servers.length == 0;
  }

  /** The i-th server index, in increasing order. */
  int server(int i) {
    return servers[i];
  }

  /** Workers on the i-th server. */
  int workers(int i) {
    return workers[i];
  }

  void forEach(Each each) {
    for (int i = 0; i < servers.length; i++) {
      each.accept(servers[i], workers[i]);
    }
  }

  /** The same pairs as a mutable sorted map. */
  SortedMap<Integer, Integer> toMap() {
    TreeMap<Integer, Integer> m = new TreeMap<>();
    forEach(m::put);
    return m;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServerWorkers other
        && Arrays.equals(servers, other.servers)
        && Arrays.equals(workers, other.workers);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(servers) + Arrays.hashCode(workers);
  }

  @Override
  public String toString() {
    return toMap().toString();
  }
}
