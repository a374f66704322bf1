package io.aryl.core.placement;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.Job;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
    List<Integer> servers = new ArrayList<>();
    for (String id : a.workersByServer().keySet()) {
      servers.add(table.indexOf(id));
    }
    servers.sort(preference.thenComparingInt(s -> s));
    int baseLeft = job.minWorkers();
    int flexibleCount = 0;
    for (int s : servers) {
      int w = a.workersOn(table.id(s));
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
}
