package io.aryl.sim.baselines;

import io.aryl.core.placement.ServerTable;

/**
 * Free GPUs per server, indexed by (GPU type, free count) so that best fit and roomiest server cost
 * a few word probes. Only open servers (serving training, not fenced) are offered. Each bucket is a
 * bit set of server indexes in plain words: a round makes two of these and moves servers between
 * buckets once per worker placed.
 */
final class FreeGpuBuckets {
  private final ServerTable table;
  private final int[] free;
  private final int words; // per bucket
  private final long[] bits; // bucket (type, free) at words * (type * (maxGpus + 1) + free)
  private final int counts; // free counts per type: maxGpus + 1
  private final int typeCount;
  private long total;

  FreeGpuBuckets(ServerTable table, int[] free) {
    this.table = table;
    this.free = free.clone();
    this.words = (free.length + 63) >>> 6;
    this.counts = table.maxGpus() + 1;
    this.typeCount = table.types().size();
    this.bits = new long[typeCount * counts * words];
    for (int s = 0; s < free.length; s++) {
      if (table.open(s)) {
        bits[bucket(table.typeIndex(s), free[s]) + (s >>> 6)] |= 1L << s;
        total += free[s];
      }
    }
  }

  private int bucket(int type, int freeGpus) {
    return (type * counts + freeGpus) * words;
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
      int type = table.typeIndex(s);
      bits[bucket(type, free[s]) + (s >>> 6)] &= ~(1L << s);
      bits[bucket(type, newFree) + (s >>> 6)] |= 1L << s;
      total += newFree - free[s];
    }
    free[s] = newFree;
  }

  /**
   * The open server of an allowed type with the fewest free GPUs that are at least {@code gpus};
   * lowest index.
   */
  int bestFit(int gpus, boolean[] types) {
    for (int f = Math.max(gpus, 1); f < counts; f++) {
      int s = lowest(f, types);
      if (s >= 0) {
        return s;
      }
    }
    return -1;
  }

  /**
   * The open server of an allowed type with the most free GPUs, at least {@code gpus}; lowest
   * index.
   */
  int roomiest(int gpus, boolean[] types) {
    for (int f = counts - 1; f >= Math.max(gpus, 1); f--) {
      int s = lowest(f, types);
      if (s >= 0) {
        return s;
      }
    }
    return -1;
  }

  /** The lowest server index with {@code f} free GPUs among the allowed types; -1 if none. */
  private int lowest(int f, boolean[] types) {
    for (int w = 0; w < words; w++) {
      long any = 0;
      for (int t = 0; t < typeCount; t++) {
        if (types[t]) {
          any |= bits[bucket(t, f) + w];
        }
      }
      if (any != 0) {
        return (w << 6) + Long.numberOfTrailingZeros(any);
      }
    }
    return -1;
  }

  /** How many workers of {@code gpus} GPUs fit on open servers of allowed types. */
  int capacity(int gpus, boolean[] types) {
    int workers = 0;
    for (int t = 0; t < typeCount; t++) {
      if (types[t]) {
        for (int f = gpus; f < counts; f++) {
          int b = bucket(t, f);
          int servers = 0;
          for (int w = 0; w < words; w++) {
            servers += Long.bitCount(bits[b + w]);
          }
          workers += servers * (f / gpus);
        }
      }
    }
    return workers;
  }
}
