package io.aryl.core.reclaim;

import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/** How a reclaim picks which loaned servers go back. */
@FunctionalInterface
public interface ServerChooser {
  /** Exactly {@code count} distinct servers from {@code candidates.eligible()} (which holds at least that many). */
  List<String> choose(ReclaimCandidates candidates, int count);

  /**
   * Aryl's choice: greedily the server whose return adds the least cost given those already chosen; ties go to
   * the server with fewer busy GPUs, then the lower id. Marginal costs are recomputed after each pick, so a job
   * preempted for one server makes its other servers free to take.
   */
  static ServerChooser leastCost() {
    return (c, count) -> {
      ReclaimCandidates.Selection sel = c.select();
      for (int i = 0; i < count; i++) {
        String best = null;
        double bestCost = Double.POSITIVE_INFINITY;
        for (String s : c.eligible()) {
          if (sel.contains(s)) {
            continue;
          }
          double cost = sel.marginalCost(s);
          if (cost < bestCost || (cost == bestCost && c.busyGpus(s) < c.busyGpus(best))) {
            best = s;
            bestCost = cost;
          }
        }
        sel.add(best);
      }
      return sel.chosen();
    };
  }

  /** Ablation: servers with the fewest busy GPUs, ignoring what runs on them. */
  static ServerChooser fewestBusyGpus() {
    return (c, count) -> c.eligible().stream()
        .sorted(Comparator.comparingInt(c::busyGpus).thenComparing(Comparator.naturalOrder()))
        .limit(count)
        .toList();
  }

  /** Ablation: servers at random, reproducibly for a seed. */
  static ServerChooser random(long seed) {
    return (c, count) -> {
      String[] ids = c.eligible().toArray(new String[0]);
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int i = 0; i < count; i++) { // partial Fisher-Yates
        int j = i + rnd.nextInt(ids.length - i);
        String t = ids[i];
        ids[i] = ids[j];
        ids[j] = t;
      }
      return List.of(ids).subList(0, count);
    };
  }
}
