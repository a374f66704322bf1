package io.aryl.core;

import io.aryl.core.elastic.KnapsackGroup;
import io.aryl.core.elastic.KnapsackMargin;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.placement.ServerTable;
import io.aryl.core.placement.WorkerRole;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Beyond the paper ({@link PolicyConfig#speedAware()}): which GPU speed each job runs on,
 * re-decided every round. Synchronous training runs at the pace of its slowest GPU, so a job runs
 * on one speed, and a round may move a job whole (a checkpoint and a restart, priced as one
 * re-scale pause):
 *
 * <ul>
 *   <li>up to faster GPUs as they free up, or as they can be freed from other jobs' extra workers;
 *   <li>an elastic job that would run narrow on fast GPUs down to slower ones where it runs wide;
 *       the fast GPUs it leaves let the jobs that stay grow.
 * </ul>
 *
 * <p>Each move is priced against a trial phase 2 ({@link KnapsackMargin}): the time the job itself
 * saves, plus what the GPUs it leaves are worth to the jobs of that speed, less what the GPUs it
 * takes were worth to theirs, all in the knapsack's own unit ({@link PolicyConfig#elasticValue()}).
 * A move is made only when that beats staying by a few re-scale pauses, so that near-ties do not
 * move jobs back and forth. Biggest gain first; each move is priced again after the ones before it.
 */
final class SpeedTierMoves {
  /**
   * A move must gain this many re-scale pauses of the job's time (in the knapsack's unit) over
   * staying.
   */
  static final double MIN_GAIN_PAUSES = 4;

  private final PolicyConfig config;
  private final ElasticPhase phase2;

  SpeedTierMoves(PolicyConfig config, ElasticPhase phase2) {
    this.config = config;
    this.phase2 = phase2;
  }

  /**
   * A job moving whole onto {@code workers} workers of the {@code tier} types (training at {@code
   * toSpeed}), from {@code fromSpeed}.
   */
  @SuppressWarnings("ArrayRecordComponent") // a candidate of one pass, never compared or hashed
  private record Move(
      PlacedJob job, double fromSpeed, boolean[] tier, double toSpeed, int workers, double gain) {}

  /** The prices and widths of one trial phase 2, kept up to date as moves are made. */
  private static final class Market {
    final Map<Double, KnapsackMargin> bySpeed =
        new HashMap<>(); // one per training speed of the cluster's GPUs
    final Map<PlacedJob, Integer> owner =
        new HashMap<>(); // index in the trial, -1 for jobs not in it
    final Map<PlacedJob, Integer> width =
        new HashMap<>(); // workers the job would run with if it stays
  }

  /**
   * Moves jobs of {@code placed} (base workers already placed in {@code budget}) and marks them
   * settled.
   */
  void apply(List<PlacedJob> placed, GpuBudget budget, ServerTable table) {
    if (table.speedTiers(table.allTypes()).size() < 2) {
      return; // every GPU trains at one speed: no job has another to move to, and a trial would
      // price nothing
    }
    Market market = trial(placed, budget, table);
    List<Move> moves = new ArrayList<>();
    for (PlacedJob p : placed) {
      Move best = bestMove(p, market, budget, table);
      if (best != null) {
        moves.add(best);
      }
    }
    moves.sort(
        Comparator.comparingDouble((Move m) -> -m.gain()).thenComparing(m -> m.job().job.id()));
    for (Move first : moves) {
      Move m =
          bestMove(first.job(), market, budget, table); // earlier moves changed room and prices
      if (m == null) {
        continue;
      }
      PlacedJob p = m.job();
      int g = p.job.gpusPerWorker();
      int[] to = budget.placeGang(g, m.workers(), m.tier(), WorkerRole.BASE);
      if (to == null) {
        continue;
      }
      int id = market.owner.getOrDefault(p, -1);
      KnapsackMargin from = market.bySpeed.get(m.fromSpeed());
      from.valueOfReturned(market.width.get(p) * g, id, true);
      from.remove(id);
      market.bySpeed.get(m.toSpeed()).costOfTaking(m.workers() * g, true);
      p.base.forEach((s, w) -> budget.release(s, w * g));
      p.moveTo(to);
    }
  }

  /**
   * Runs phase 2 on a copy of the budget: how wide every job would run if nothing moved, and the
   * margins.
   */
  private Market trial(List<PlacedJob> placed, GpuBudget budget, ServerTable table) {
    GpuBudget trialBudget = budget.copy();
    ElasticPhase.Growth trial = phase2.grow(placed, trialBudget, table);
    Market market = new Market();
    for (PlacedJob p : placed) {
      market.width.put(p, p.widthNow());
    }
    Map<Double, List<Integer>> bySpeed = new HashMap<>(); // trial jobs by the speed they grow on
    for (int i = 0; i < trial.jobs().size(); i++) {
      PlacedJob p = trial.jobs().get(i);
      market.owner.put(p, i);
      market.width.put(p, p.job.minWorkers() + trial.got()[i]);
      p.extras.clear(); // a trial only: the real phase 2 runs after the moves
      bySpeed.computeIfAbsent(table.speedOf(p.types), v -> new ArrayList<>()).add(i);
    }
    for (boolean[] tier : table.speedTiers(table.allTypes())) {
      double speed = table.speedOf(tier);
      List<KnapsackGroup> groups = new ArrayList<>();
      List<Integer> members = bySpeed.getOrDefault(speed, List.of());
      int[] chosen = new int[members.size()];
      int[] owners = new int[members.size()];
      for (int k = 0; k < members.size(); k++) {
        int i = members.get(k);
        groups.add(trial.groups().get(i));
        chosen[k] = trial.got()[i];
        owners[k] = i;
      }
      int idle = 0;
      for (int s = 0; s < table.size(); s++) {
        if (table.open(s) && tier[table.typeIndex(s)]) {
          idle += trialBudget.spare(s);
        }
      }
      market.bySpeed.put(speed, new KnapsackMargin(groups, chosen, owners, idle));
    }
    return market;
  }

  /**
   * The best worthwhile move for a job, or null: to every other speed it may use, at every width
   * that fits there. Rigid jobs only move up (they have no width to gain on slower GPUs); jobs only
   * just admitted move for free.
   */
  private Move bestMove(PlacedJob p, Market market, GpuBudget budget, ServerTable table) {
    if (p.settled || p.base.isEmpty() || (!p.running && !p.job.isElastic())) {
      return null;
    }
    double now = p.baseSpeed(table);
    KnapsackMargin fromMargin = market.bySpeed.get(now);
    if (fromMargin == null) {
      return null;
    }
    int g = p.job.gpusPerWorker();
    int width = market.width.get(p);
    double weight = config.elasticValue().weight(p.job);
    double pause = p.running ? config.rescaleOverheadS() : 0;
    double returned =
        fromMargin.valueOfReturned(width * g, market.owner.getOrDefault(p, -1), false);
    double threshold = weight * MIN_GAIN_PAUSES * config.rescaleOverheadS();
    double stay = timeAt(p, width, now);
    Move best = null;
    for (boolean[] tier : table.speedTiers(table.allowedTypes(p.job))) {
      double speed = table.speedOf(tier);
      if (speed == now || (!p.job.isElastic() && speed < now)) {
        continue;
      }
      KnapsackMargin into = market.bySpeed.get(speed);
      int fits = Math.min(p.job.maxWorkers(), budget.spareIndex().fittingWorkers(g, tier));
      int widest = p.job.isElastic() ? fits : Math.min(fits, p.job.minWorkers());
      for (int w = p.job.minWorkers(); w <= widest; w++) {
        double gain =
            weight * (stay - timeAt(p, w, speed) - pause)
                + returned
                - into.costOfTaking(w * g, false);
        if (gain > threshold && (best == null || gain > best.gain())) {
          best = new Move(p, now, tier, speed, w, gain);
        }
      }
    }
    return best;
  }

  /** Predicted time to finish at {@code workers} workers on GPUs of {@code speed}. */
  private static double timeAt(PlacedJob p, int workers, double speed) {
    return p.job.predictedRuntimeAt(workers) / speed;
  }
}
