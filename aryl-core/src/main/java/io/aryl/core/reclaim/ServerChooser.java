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
   * Aryl's choice: greedy reduction of the server preemption cost. Servers are taken one move at a time, the move
   * adding the least cost per server returned given those already chosen; ties go to fewer busy GPUs, then the
   * lower id. Marginal costs are recomputed after each move, so a job preempted for one server makes its other
   * servers free to take.
   *
   * <p>Two greedy passes run and the cheaper result wins: one whose moves are single servers (the paper's), and
   * one that may also take, as one move, every remaining server of one job (a job spread over several loaned
   * servers costs one preemption for all of them, which single-server steps cannot see).
   */
  static ServerChooser leastCost() {
    return (c, count) -> {
      ReclaimCandidates.Selection single = greedy(c, count, false);
      ReclaimCandidates.Selection grouped = greedy(c, count, true);
      return (grouped.cost() < single.cost() ? grouped : single).chosen();
    };
  }

  private static ReclaimCandidates.Selection greedy(ReclaimCandidates c, int count, boolean wholeJobs) {
    ReclaimCandidates.Selection sel = c.select();
    while (sel.size() < count) {
      List<String> best = null;
      double bestPerServer = Double.POSITIVE_INFINITY;
      int bestBusy = Integer.MAX_VALUE;
      for (String s : c.eligible()) {
        if (sel.contains(s)) {
          continue;
        }
        double cost = sel.marginalCost(s);
        if (cost < bestPerServer || (cost == bestPerServer && c.busyGpus(s) < bestBusy)) {
          best = List.of(s);
          bestPerServer = cost;
          bestBusy = c.busyGpus(s);
        }
      }
      if (wholeJobs) {
        for (List<String> servers : c.serversByJob()) {
          List<String> open = servers.stream().filter(s -> !sel.contains(s)).toList();
          if (open.size() < 2 || open.size() > count - sel.size()) {
            continue;
          }
          double perServer = sel.marginalCost(open) / open.size();
          if (perServer < bestPerServer) {
            best = open;
            bestPerServer = perServer;
          }
        }
      }
      best.forEach(sel::add);
    }
    return sel;
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
