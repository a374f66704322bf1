package io.aryl.sim.baselines;

import io.aryl.core.placement.ServerTable;
import java.util.BitSet;

/**
 * Free GPUs per server, indexed by (GPU type, free count) so that best fit and roomiest server cost a few bit-set
 * probes. Only open servers (serving training, not fenced) are offered.
 */
final class FreeGpuBuckets {
  private final ServerTable table;
  private final int[] free;
  private final BitSet[][] buckets; // [type][free]
  private long total;

  FreeGpuBuckets(ServerTable table, int[] free) {
    this.table = table;
    this.free = free.clone();
    int types = table.types().size();
    this.buckets = new BitSet[types][table.maxGpus() + 1];
    for (int t = 0; t < types; t++) {
      for (int f = 0; f <= table.maxGpus(); f++) {
        buckets[t][f] = new BitSet();
      }
    }
    for (int s = 0; s < free.length; s++) {
      if (table.open(s)) {
        buckets[table.typeIndex(s)][free[s]].set(s);
        total += free[s];
      }
    }
  }

  int free(int s) {
    return free[s];
  }

  /** Free GPUs on open servers. */
  long total() {
    return total;
  }

  void set(int s, int newFree) {
    if (table.open(s)) {
      buckets[table.typeIndex(s)][free[s]].clear(s);
      buckets[table.typeIndex(s)][newFree].set(s);
      total += newFree - free[s];
    }
    free[s] = newFree;
  }

  /** The open server of an allowed type with the fewest free GPUs that are at least {@code gpus}; lowest index. */
  int bestFit(int gpus, boolean[] types) {
    for (int f = Math.max(gpus, 1); f < buckets[0].length; f++) {
      int s = lowest(f, types);
      if (s >= 0) {
        return s;
      }
    }
    return -1;
  }

  /** The open server of an allowed type with the most free GPUs, at least {@code gpus}; lowest index. */
  int roomiest(int gpus, boolean[] types) {
    for (int f = buckets[0].length - 1; f >= Math.max(gpus, 1); f--) {
      int s = lowest(f, types);
      if (s >= 0) {
        return s;
      }
    }
    return -1;
  }

  private int lowest(int f, boolean[] types) {
    int found = -1;
    for (int t = 0; t < buckets.length; t++) {
      if (types[t]) {
        int s = buckets[t][f].nextSetBit(0);
        if (s >= 0 && (found < 0 || s < found)) {
          found = s;
        }
      }
    }
    return found;
  }

  /** How many workers of {@code gpus} GPUs fit on open servers of allowed types. */
  int capacity(int gpus, boolean[] types) {
    int workers = 0;
    for (int t = 0; t < buckets.length; t++) {
      if (types[t]) {
        for (int f = gpus; f < buckets[t].length; f++) {
          workers += buckets[t][f].cardinality() * (f / gpus);
        }
      }
    }
    return workers;
  }
}
