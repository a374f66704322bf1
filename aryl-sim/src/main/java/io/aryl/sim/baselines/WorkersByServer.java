package io.aryl.sim.baselines;

import io.aryl.core.model.Allocation;
import io.aryl.core.placement.ServerTable;
import java.util.Arrays;

/**
 * A job's workers in a round of the Optimus baseline, by server index, kept in index order: they
 * sit on a few servers, so two small arrays serve better than a map.
 */
final class WorkersByServer {
  interface Each {
    void accept(int server, int workers);
  }

  private int[] servers;
  private int[] counts;
  private int size;

  /** The arrays are also another instance's: copied before this one first writes. */
  private boolean shared;

  WorkersByServer() {
    this(new int[2], new int[2], 0);
  }

  private WorkersByServer(int[] servers, int[] counts, int size) {
    this.servers = servers;
    this.counts = counts;
    this.size = size;
  }

  /** The pairs of {@code servers} (increasing) and {@code counts}, zero counts left out. */
  static WorkersByServer of(int[] servers, int[] counts) {
    WorkersByServer w = new WorkersByServer();
    for (int i = 0; i < servers.length; i++) {
      if (counts[i] > 0) {
        w.add(servers[i], counts[i]);
      }
    }
    return w;
  }

  /**
   * An independent copy, copied on write: a round copies every running job's kept split, and
   * changes the workers of only the jobs it grows or moves.
   */
  WorkersByServer copy() {
    shared = true;
    WorkersByServer c = new WorkersByServer(servers, counts, size);
    c.shared = true;
    return c;
  }

  private void ownArrays() {
    if (shared) {
      int room = Math.max(2, size);
      servers = Arrays.copyOf(servers, room);
      counts = Arrays.copyOf(counts, room);
      shared = false;
    }
  }

  int size() {
    return size;
  }

  int server(int i) {
    return servers[i];
  }

  int count(int i) {
    return counts[i];
  }

  void setCount(int i, int c) {
    ownArrays();
    counts[i] = c;
  }

  /** Adds {@code w} workers on server s. */
  void add(int s, int w) {
    ownArrays();
    int i = 0;
    while (i < size && servers[i] < s) {
      i++;
    }
    if (i < size && servers[i] == s) {
      counts[i] += w;
      return;
    }
    if (size == servers.length) {
      servers = Arrays.copyOf(servers, size * 2);
      counts = Arrays.copyOf(counts, size * 2);
    }
    System.arraycopy(servers, i, servers, i + 1, size - i);
    System.arraycopy(counts, i, counts, i + 1, size - i);
    servers[i] = s;
    counts[i] = w;
    size++;
  }

  void forEach(Each each) {
    for (int i = 0; i < size; i++) {
      each.accept(servers[i], counts[i]);
    }
  }

  /**
   * Whether these are exactly the allocation's workers (its servers are in id order, which is index
   * order).
   */
  boolean sameAs(Allocation a, ServerTable table) {
    int j = 0;
    for (int i = 0; i < size; i++) {
      if (counts[i] == 0) {
        continue;
      }
      if (j == a.serverCount()
          || !table.id(servers[i]).equals(a.serverAt(j))
          || counts[i] != a.workersAt(j)) {
        return false;
      }
      j++;
    }
    return j == a.serverCount();
  }
}
