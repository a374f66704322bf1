package io.aryl.core;

import java.util.Arrays;

/**
 * Workers counted up by server index, in index order: the extra workers phase 2 gives one job, one
 * or a few at a time. Mutable; two small arrays, so that counting a worker boxes nothing.
 */
final class WorkerTally {
  private static final int[] NONE = new int[0];

  // Made on the first worker counted: a round has a tally for every running job, and most count
  // none.
  private int[] servers = NONE;
  private int[] workers = NONE;
  private int size;

  /** Counts {@code count} more workers on server {@code s}. */
  void add(int s, int count) {
    int i = Arrays.binarySearch(servers, 0, size, s);
    if (i >= 0) {
      workers[i] += count;
      return;
    }
    int at = -i - 1;
    if (size == servers.length) {
      servers = Arrays.copyOf(servers, Math.max(2, size * 2));
      workers = Arrays.copyOf(workers, Math.max(2, size * 2));
    }
    System.arraycopy(servers, at, servers, at + 1, size - at);
    System.arraycopy(workers, at, workers, at + 1, size - at);
    servers[at] = s;
    workers[at] = count;
    size++;
  }

  void clear() {
    size = 0;
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The i-th server index, in increasing order. */
  int server(int i) {
    return servers[i];
  }

  /** Workers counted on the i-th server. */
  int workers(int i) {
    return workers[i];
  }

  /** Whether it counts exactly the pairs of {@code other}. */
  boolean sameAs(ServerWorkers other) {
    if (other.size() != size) {
      return false;
    }
    for (int i = 0; i < size; i++) {
      if (other.server(i) != servers[i] || other.workers(i) != workers[i]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("{");
    for (int i = 0; i < size; i++) {
      b.append(i == 0 ? "" : ", ").append(servers[i]).append('=').append(workers[i]);
    }
    return b.append('}').toString();
  }
}
