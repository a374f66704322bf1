package io.aryl.core.placement;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.Job;
import java.util.Comparator;
import java.util.Map;

/**
 * Which of a running job's workers are its base (the first {@code minWorkers}, kept where they run) and which are
 * flexible (re-decided each round). Planners differ only in which servers' workers they count as base first.
 */
public final class BaseSplit {
  private BaseSplit() {}

  /**
   * Splits the job's workers: servers are taken in {@code preference} order, each contributing workers to the base
   * until it holds {@code minWorkers}; the rest are flexible.
   *
   * @param base receives base workers by server index
   * @param flexible receives flexible workers by server index
   * @return the number of flexible workers
   */
  public static int split(Job job, Allocation a, ServerTable table, Comparator<Integer> preference,
      Map<Integer, Integer> base, Map<Integer, Integer> flexible) {
    int n = a.serverCount();
    int[] servers = new int[n];
    int[] workers = new int[n];
    for (int k = 0; k < n; k++) {
      servers[k] = table.indexOf(a.serverAt(k));
      workers[k] = a.workersAt(k);
    }
    // Insertion sort by preference, then index: a job's workers sit on few servers.
    for (int i = 1; i < n; i++) {
      for (int j = i; j > 0 && before(preference, servers[j], servers[j - 1]); j--) {
        swap(servers, j);
        swap(workers, j);
      }
    }
    int baseLeft = job.minWorkers();
    int flexibleCount = 0;
    for (int i = 0; i < n; i++) {
      int s = servers[i];
      int w = workers[i];
      int b = Math.min(w, baseLeft);
      if (b > 0) {
        base.put(s, b);
      }
      if (w > b) {
        flexible.put(s, w - b);
        flexibleCount += w - b;
      }
      baseLeft -= b;
    }
    return flexibleCount;
  }

  private static boolean before(Comparator<Integer> preference, int s, int other) {
    int c = preference.compare(s, other);
    return c < 0 || c == 0 && s < other;
  }

  private static void swap(int[] a, int j) {
    int t = a[j];
    a[j] = a[j - 1];
    a[j - 1] = t;
  }
}
