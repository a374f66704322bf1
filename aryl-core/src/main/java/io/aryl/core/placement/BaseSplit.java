package io.aryl.core.placement;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.Job;
import java.util.function.IntUnaryOperator;

/**
 * Which of a running job's workers are its base (the first {@code minWorkers}, kept where they run)
 * and which are flexible (re-decided each round). Planners differ only in which servers' workers
 * they count as base first.
 */
public final class BaseSplit {
  private BaseSplit() {}

  /**
   * A job's workers split, by server index in increasing order: {@code base[i]} and {@code
   * flexible[i]} workers on server {@code servers[i]} (either may be 0). The arrays are the split's
   * own; no one changes them.
   *
   * @param flexibleCount the flexible workers in all
   */
  // Made once per running job and round: the arrays are not copied, and no one compares splits.
  @SuppressWarnings("ArrayRecordComponent")
  public record Parts(int[] servers, int[] base, int[] flexible, int flexibleCount) {}

  /**
   * Aryl's planner's order, which every reader of its splits uses: the training pool's own open
   * servers first, then loaned open ones, then fenced ones.
   */
  public static IntUnaryOperator ownOpenFirst(ServerTable table) {
    return s -> !table.open(s) ? 2 : table.loaned(s) ? 1 : 0;
  }

  /**
   * Splits the job's workers: servers are taken by rising {@code rank}, then index, each
   * contributing workers to the base until it holds {@code minWorkers}; the rest are flexible.
   */
  public static Parts split(Job job, Allocation a, ServerTable table, IntUnaryOperator rank) {
    int n = a.serverCount();
    int[] servers = new int[n];
    int[] workers = new int[n];
    int[] ranks = new int[n];
    boolean byIndex = true;
    for (int k = 0; k < n; k++) {
      servers[k] = table.indexOf(a.serverAt(k));
      workers[k] = a.workersAt(k);
      ranks[k] = rank.applyAsInt(servers[k]);
      byIndex &= k == 0 || servers[k - 1] < servers[k];
    }
    if (!byIndex) { // an allocation lists servers by id, which a table's indexes follow: not
      // expected
      sortByFirst(servers, workers, ranks);
    }
    // Positions by rank, then index: insertion sort, as a job's workers sit on few servers.
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
      for (int j = i;
          j > 0 && ranks[order[j]] < ranks[order[j - 1]];
          j--) { // equal ranks stay in index order
        int t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
    }
    int[] base = new int[n];
    int[] flexible = new int[n];
    int baseLeft = job.minWorkers();
    int flexibleCount = 0;
    for (int p : order) {
      int b = Math.min(workers[p], baseLeft);
      base[p] = b;
      flexible[p] = workers[p] - b;
      flexibleCount += flexible[p];
      baseLeft -= b;
    }
    return new Parts(servers, base, flexible, flexibleCount);
  }

  /** Sorts the three arrays together by rising {@code key}, by insertion: they are short. */
  private static void sortByFirst(int[] key, int[] other, int[] another) {
    for (int i = 1; i < key.length; i++) {
      for (int j = i; j > 0 && key[j] < key[j - 1]; j--) {
        swap(key, j);
        swap(other, j);
        swap(another, j);
      }
    }
  }

  private static void swap(int[] a, int j) {
    int t = a[j];
    a[j] = a[j - 1];
    a[j - 1] = t;
  }
}
