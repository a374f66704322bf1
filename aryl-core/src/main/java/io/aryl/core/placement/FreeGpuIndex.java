package io.aryl.core.placement;

/**
 * Free GPUs per server, indexed for best fit: for every (loaned or own, GPU type, free count) a bit
 * set of servers, so that "the open server with the fewest free GPUs that still fits g, of an
 * allowed type, in the preferred group" costs a few bit-set probes rather than a scan of every
 * server.
 *
 * <p>Only open servers (serving training, not fenced) are indexed; the free counts of others are
 * kept but never offered.
 */
public final class FreeGpuIndex {
  private static final int OWN = 0;
  private static final int LOANED = 1;

  private final ServerTable table;
  private final int[] free;
  // One bit set of servers per (own|loaned, type, free count), all in one array of words: bucket b
  // holds words
  // [b * words, (b + 1) * words). Plain words rather than BitSets: a round sets and clears bits
  // thousands of times,
  // and copies the index whole to try placements.
  private final int words;
  private final int types;
  private final long[] bits;

  public FreeGpuIndex(ServerTable table, int[] free) {
    this.table = table;
    this.free = free.clone();
    this.types = table.types().size();
    this.words = (free.length + 63) >>> 6;
    this.bits = new long[2 * types * (table.maxGpus() + 1) * words];
    for (int s = 0; s < free.length; s++) {
      if (free[s] < 0 || free[s] > table.gpus(s)) {
        throw new IllegalArgumentException(
            "free GPUs of server("
                + table.id(s)
                + ") must be within 0.."
                + table.gpus(s)
                + ", was "
                + free[s]);
      }
      if (table.open(s)) {
        bits[word(s, free[s])] |= 1L << s;
      }
    }
  }

  private FreeGpuIndex(FreeGpuIndex other) {
    this.table = other.table;
    this.free = other.free.clone();
    this.types = other.types;
    this.words = other.words;
    this.bits = other.bits.clone();
  }

  /** An independent copy: cheaper than indexing the same free counts anew. */
  public FreeGpuIndex copy() {
    return new FreeGpuIndex(this);
  }

  private int bucket(int group, int type, int f) {
    return ((group * types + type) * (table.maxGpus() + 1) + f) * words;
  }

  /** The word holding server s's bit in the bucket of free count f. */
  private int word(int s, int f) {
    return bucket(table.loaned(s) ? LOANED : OWN, table.typeIndex(s), f) + (s >>> 6);
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
      throw new IllegalStateException(
          "free GPUs of server(" + table.id(s) + ") would become " + newFree);
    }
    if (table.open(s)) {
      bits[word(s, free[s])] &= ~(1L << s);
      bits[word(s, newFree)] |= 1L << s;
    }
    free[s] = newFree;
  }

  /**
   * The best-fit open server for one worker of {@code gpus} GPUs: in the role's preferred group
   * first (loaned servers for flexible workers, own servers for base ones), the fewest free GPUs
   * that still fit, faster types before slower ones, lowest index last. -1 if none fits.
   */
  public int bestFit(int gpus, boolean[] allowedTypes, WorkerRole role) {
    int first = role.prefersLoaned() ? LOANED : OWN;
    int found = bestFitIn(first, gpus, allowedTypes);
    return found >= 0 ? found : bestFitIn(1 - first, gpus, allowedTypes);
  }

  private int bestFitIn(int group, int gpus, boolean[] allowedTypes) {
    for (int f = gpus; f <= table.maxGpus(); f++) {
      for (int t = 0; t < types; t++) {
        if (allowedTypes[t]) {
          int b = bucket(group, t, f);
          for (int w = 0; w < words; w++) {
            long word = bits[b + w];
            if (word != 0) {
              return (w << 6) + Long.numberOfTrailingZeros(word);
            }
          }
        }
      }
    }
    return -1;
  }

  /** The most free GPUs on any open server, of any type: 0 when every open server is full. */
  public int maxFree() {
    for (int f = table.maxGpus(); f > 0; f--) {
      for (int group = OWN; group <= LOANED; group++) {
        for (int t = 0; t < types; t++) {
          int b = bucket(group, t, f);
          for (int w = 0; w < words; w++) {
            if (bits[b + w] != 0) {
              return f;
            }
          }
        }
      }
    }
    return 0;
  }

  /**
   * How many workers of {@code gpus} GPUs could be placed on open servers of allowed types,
   * ignoring others.
   */
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
