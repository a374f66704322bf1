package io.aryl.core.placement;

import java.util.BitSet;

/**
 * Free GPUs per server, indexed for best fit: for every (loaned or own, GPU type, free count) a bit set of servers,
 * so that "the open server with the fewest free GPUs that still fits g, of an allowed type, in the preferred
 * group" costs a few bit-set probes rather than a scan of every server.
 *
 * <p>Only open servers (serving training, not fenced) are indexed; the free counts of others are kept but never
 * offered.
 */
public final class FreeGpuIndex {
  private static final int OWN = 0;
  private static final int LOANED = 1;

  private final ServerTable table;
  private final int[] free;
  private final BitSet[][][] buckets; // [own|loaned][type][free]

  public FreeGpuIndex(ServerTable table, int[] free) {
    this.table = table;
    this.free = free.clone();
    int types = table.types().size();
    this.buckets = new BitSet[2][types][table.maxGpus() + 1];
    for (int g = 0; g < 2; g++) {
      for (int t = 0; t < types; t++) {
        for (int f = 0; f <= table.maxGpus(); f++) {
          buckets[g][t][f] = new BitSet(free.length); // sized once: growing bit by bit costs more than it saves
        }
      }
    }
    for (int s = 0; s < free.length; s++) {
      if (free[s] < 0 || free[s] > table.gpus(s)) {
        throw new IllegalArgumentException("free GPUs of server(" + table.id(s) + ") must be within 0.."
            + table.gpus(s) + ", was " + free[s]);
      }
      if (table.open(s)) {
        bucket(s, free[s]).set(s);
      }
    }
  }

  private FreeGpuIndex(FreeGpuIndex other) {
    this.table = other.table;
    this.free = other.free.clone();
    this.buckets = new BitSet[2][][];
    for (int g = 0; g < 2; g++) {
      buckets[g] = new BitSet[other.buckets[g].length][];
      for (int t = 0; t < buckets[g].length; t++) {
        buckets[g][t] = new BitSet[other.buckets[g][t].length];
        for (int f = 0; f < buckets[g][t].length; f++) {
          buckets[g][t][f] = (BitSet) other.buckets[g][t][f].clone();
        }
      }
    }
  }

  /** An independent copy: cheaper than indexing the same free counts anew. */
  public FreeGpuIndex copy() {
    return new FreeGpuIndex(this);
  }

  private BitSet bucket(int s, int f) {
    return buckets[table.loaned(s) ? LOANED : OWN][table.typeIndex(s)][f];
  }

  public int free(int s) {
    return free[s];
  }

  /** A copy of the free counts, by server index. */
  public int[] freeCounts() {
    return free.clone();
  }

  public void set(int s, int newFree) {
    if (newFree < 0 || newFree > table.gpus(s)) {
      throw new IllegalStateException("free GPUs of server(" + table.id(s) + ") would become " + newFree);
    }
    if (table.open(s)) {
      bucket(s, free[s]).clear(s);
      bucket(s, newFree).set(s);
    }
    free[s] = newFree;
  }

  /**
   * The best-fit open server for one worker of {@code gpus} GPUs: in the role's preferred group first (loaned
   * servers for flexible workers, own servers for base ones), the fewest free GPUs that still fit, faster types
   * before slower ones, lowest index last. -1 if none fits.
   */
  public int bestFit(int gpus, boolean[] allowedTypes, WorkerRole role) {
    int first = role.prefersLoaned() ? LOANED : OWN;
    int found = bestFitIn(first, gpus, allowedTypes);
    return found >= 0 ? found : bestFitIn(1 - first, gpus, allowedTypes);
  }

  private int bestFitIn(int group, int gpus, boolean[] allowedTypes) {
    BitSet[][] byType = buckets[group];
    for (int f = gpus; f <= table.maxGpus(); f++) {
      for (int t = 0; t < byType.length; t++) {
        if (allowedTypes[t]) {
          int s = byType[t][f].nextSetBit(0);
          if (s >= 0) {
            return s;
          }
        }
      }
    }
    return -1;
  }

  /** How many workers of {@code gpus} GPUs could be placed on open servers of allowed types, ignoring others. */
  public int fittingWorkers(int gpus, boolean[] allowedTypes) {
    int n = 0;
    for (int s = 0; s < free.length; s++) {
      if (table.open(s) && allowedTypes[table.typeIndex(s)]) {
        n += free[s] / gpus;
      }
    }
    return n;
  }
}
