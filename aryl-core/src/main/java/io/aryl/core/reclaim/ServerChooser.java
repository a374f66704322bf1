package io.aryl.core.reclaim;

import io.aryl.core.victim.VictimOrder;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/** How a reclaim picks which loaned servers go back. */
@FunctionalInterface
public interface ServerChooser {
  /**
   * Exactly {@code count} distinct servers from {@code candidates.eligible()} (which holds at least
   * that many).
   */
  List<String> choose(ReclaimCandidates candidates, int count);

  /**
   * Aryl's choice: greedy reduction of the server preemption cost. Servers are taken one move at a
   * time, the first in {@link VictimOrder} ({@link VictimOrder.Candidate#server}: the least cost
   * added given those already chosen, then fewer busy GPUs, then the lower id). Marginal costs are
   * recomputed after each move, so a job preempted for one server makes its other servers free to
   * take.
   *
   * <p>Two greedy passes run and the cheaper result wins ({@link VictimOrder#cheaper}, the
   * single-server pass on a tie): one whose moves are single servers (the paper's), and one that
   * may also take, as one move, every remaining server of one job when that is strictly cheaper per
   * server than the best single server (a job spread over several loaned servers costs one
   * preemption for all of them, which single-server steps cannot see).
   */
  static ServerChooser leastCost() {
    return (c, count) ->
        VictimOrder.cheaper(
                greedy(c, count, false), greedy(c, count, true), ReclaimCandidates.Selection::cost)
            .chosen();
  }

  private static ReclaimCandidates.Selection greedy(
      ReclaimCandidates c, int count, boolean wholeJobs) {
    ReclaimCandidates.Selection sel = c.select();
    while (sel.size() < count) {
      VictimOrder.Candidate first = null;
      for (String s : c.eligible()) {
        if (sel.contains(s)) {
          continue;
        }
        VictimOrder.Candidate server =
            VictimOrder.Candidate.server(s, sel.marginalCost(s), c.busyGpus(s));
        if (first == null || VictimOrder.ORDER.compare(server, first) < 0) {
          first = server;
        }
      }
      List<String> best = List.of(first.id());
      double bestPerServer = first.costGpuS();
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

  /**
   * Stock YARN's choice, the baseline that lends idle inference nodes through a non-exclusive
   * label: its preemption policy takes the newest containers first and knows neither cost nor
   * teams. In {@link VictimOrder} that is criteria 6 and 7 alone ({@link
   * VictimOrder.Candidate#stockYarnServer}): servers running nothing first, then the server whose
   * newest job started latest, then the lower id.
   *
   * @param newestStartS asked once per choice: when the newest job on each server started; a server
   *     it leaves out runs nothing
   */
  static ServerChooser newestFirst(Supplier<Map<String, Double>> newestStartS) {
    return (c, count) -> {
      Map<String, Double> newest = newestStartS.get();
      return c.eligible().stream()
          .map(
              s ->
                  VictimOrder.Candidate.stockYarnServer(
                      s, newest.getOrDefault(s, Double.POSITIVE_INFINITY)))
          .sorted(VictimOrder.ORDER)
          .limit(count)
          .map(VictimOrder.Candidate::id)
          .toList();
    };
  }

  /**
   * Ablation: servers with the fewest busy GPUs, ignoring what runs on them: {@link VictimOrder}
   * blind to cost (criteria 5 and 7).
   */
  static ServerChooser fewestBusyGpus() {
    return (c, count) ->
        c.eligible().stream()
            .map(s -> VictimOrder.Candidate.server(s, 0, c.busyGpus(s)))
            .sorted(VictimOrder.ORDER)
            .limit(count)
            .map(VictimOrder.Candidate::id)
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
