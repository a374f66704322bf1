package io.aryl.sim.baselines;

import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.placement.ServerTable;
import io.aryl.core.speedup.SpeedupModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A goodput-maximising, GPU-type-aware round in the spirit of Pollux (Qiao et al., "Pollux:
 * Co-adaptive Cluster Scheduling for Goodput-Optimized Deep Learning", OSDI 2021) and Sia (Jayaram
 * Subramanya et al., "Sia: Heterogeneity-aware, goodput-optimized ML-cluster scheduling", SOSP
 * 2023), reimplemented so the simulator can run it on the same input as Aryl. Read against Pollux's
 * public simulator (petuum/adaptdl, branch {@code osdi21-artifact}, {@code simulator/pollux.py})
 * and Sia's paper.
 *
 * <h2>What is reimplemented</h2>
 *
 * <ul>
 *   <li><b>The objective.</b> Each round maximises the power mean, with exponent {@code p}, of the
 *       jobs' speedups, running and waiting alike; a job without GPUs has speedup 0, and, as in
 *       Pollux, {@code 0.001} is added to every speedup so that with {@code p < 0} a job left out
 *       weighs like a thousand jobs at speedup 1: running one more job comes before widening any.
 *       {@code p = -1}, Pollux's default, is the default here ({@code p = 0}: the geometric mean).
 *   <li><b>Each job's own speedup.</b> A job's speedup at {@code n} workers on GPUs of speed {@code
 *       v} is {@code v * T(n) / T(min)}, {@code T} its own throughput curve ({@link Job#speedup()}:
 *       with {@code --speedup profiles}, one of Pollux's measured models per job), relative to its
 *       minimum gang on reference GPUs. Pollux scales speedups to a fair share of the cluster (GPUs
 *       over jobs); a gang-scheduled job has no smaller configuration than its minimum, so the
 *       minimum is its unit here.
 *   <li><b>The restart penalty.</b> A running job whose width changes has its speedup multiplied by
 *       Pollux's factor {@code max(age - restarts * delay, 0) / (age + delay)}, with {@code age}
 *       the time since its submission, {@code restarts} the changes this planner made to it, and
 *       {@code delay} the simulator's re-scaling pause (30 s by default, Pollux's own value). A
 *       change that does not gain more than that is not made.
 *   <li><b>GPU types, as Sia.</b> A job runs on GPUs of one speed (Sia gives each job one GPU type
 *       per round). Where GPUs differ (loaned inference servers at {@code --inference-gpu-speed}),
 *       a starting job is offered each speed tier with the speedup it would have there, so a job
 *       whose curve lets it make up for slow GPUs with more of them is the one that takes them. A
 *       running job stays on its tier.
 * </ul>
 *
 * <h2>The search</h2>
 *
 * <p>Pollux searches allocations with a genetic algorithm (NSGA-II, 100 generations of 100) and Sia
 * with an integer program over (type, GPU count) configurations. Here a greedy does it: every
 * running job keeps its minimum gang where it is ({@link KeptBaseRound}), and then, repeatedly, the
 * one step worth most to the objective per GPU it takes is made: starting a waiting job at some
 * width on some tier, or widening a job on its tier. A step may span several workers (the best
 * width ahead, not only the next one), so that a non-concave measured curve, or the restart penalty
 * that makes any width but the present one worth less, does not stop the greedy short of where it
 * should go. Among steps worth the same, waiting jobs come in order of how much they would lose on
 * their second-best tier (the job that loses most on slow GPUs gets the fast ones; the one that
 * loses least, the slow ones), then least attained service, then submission. It is a fair stand-in
 * because the objective is separable over jobs and, for concave curves, the greedy on marginal
 * value per GPU is the classic optimum of such a resource allocation up to gang rounding; with
 * {@code p < 0} its first phase is "run as many jobs as fit", the outcome the genetic algorithm
 * converges to under the same objective.
 *
 * <h2>What is not modelled</h2>
 *
 * <ul>
 *   <li><b>Statistical efficiency and batch-size adaptation.</b> Pollux's goodput is throughput
 *       times statistical efficiency, and it re-tunes each job's batch size and learning rate as it
 *       widens; that is most of its gain over throughput-only schedulers. The simulator's jobs have
 *       a fixed amount of work and no batch size, so here goodput is throughput: a wider job gains
 *       what its measured weak-scaling curve gives, never more.
 *   <li><b>Preemption.</b> Pollux may take any job down to zero; here a running job keeps its
 *       minimum gang (as for Optimus and AFS), so a waiting job starts only on free GPUs or GPUs
 *       other jobs hold beyond their minimum. With {@code p = -1} Pollux rarely preempts anyway (a
 *       job at zero costs the objective a thousand).
 *   <li><b>Placement.</b> Pollux's search also chooses nodes (at most one distributed job per node,
 *       a penalty for spread); here placement is the shared fewest-servers placement of {@link
 *       KeptBaseRound}, and the throughput curve is that of the fastest measured placement.
 *   <li><b>Cluster autoscaling</b> (Pollux's second objective) and <b>Sia's profiling of new
 *       jobs</b> on each type: the curves are known from the start.
 *   <li><b>Moving a running job between types</b>, which Sia's program may do; here only a starting
 *       job chooses its tier. Loaning is Aryl's, as for every peer.
 *   <li><b>Starvation.</b> No aging, as in Pollux: with {@code p = -1} jobs waiting count heavily,
 *       but a large gang can still wait behind a stream of small ones.
 * </ul>
 *
 * <p>Deterministic: ties go by the order above, then by job id.
 */
public final class GoodputPlanner extends KeptBaseRound {
  /** Pollux's default fairness exponent of the power mean. */
  public static final double POLLUX_P = -1;

  /** Added to every speedup, as Pollux does, so that a job without GPUs has a finite value. */
  static final double ZERO_SPEEDUP = 1e-3;

  private final double p;
  private final double delayS;
  private final boolean curvesNeverFall;
  private Map<String, Integer> restarts = new HashMap<>();
  private double nowS;

  /**
   * @param p the power mean's exponent ({@link #POLLUX_P}; 0: geometric mean; at most 1)
   * @param delayS the pause a change of width costs, in seconds (the restart penalty's delay)
   */
  public GoodputPlanner(double p, double delayS) {
    this(p, delayS, false);
  }

  /**
   * @param curvesNeverFall whether every job's curve is known never to fall as it widens (then a
   *     round on a saturated snapshot changes nothing: {@link #changesNothingWhenSaturated()})
   */
  public GoodputPlanner(double p, double delayS, boolean curvesNeverFall) {
    if (!(p <= 1) || Double.isNaN(p)) {
      throw new IllegalArgumentException("goodput p must be <= 1, was " + p);
    }
    if (!(delayS >= 0)) {
      throw new IllegalArgumentException("goodput delayS must be >= 0, was " + delayS);
    }
    this.p = p;
    this.delayS = delayS;
    this.curvesNeverFall = curvesNeverFall;
  }

  /**
   * True when every job's curve never falls as it widens: on a saturated snapshot (nothing waiting,
   * nothing fenced, every running job at its widest) each job's widest is the width it runs at,
   * worth its full speedup, and every narrower width is worth at most that speedup times the
   * restart factor, which is below 1; so from its minimum each job's steps end at its widest, each
   * worker placed first where its extra workers run now, as for Optimus ({@link
   * OptimusPlanner#changesNothingWhenSaturated()}). A curve that falls could make a narrower width
   * pay its restart, so without the promise the round is planned.
   */
  @Override
  public boolean changesNothingWhenSaturated() {
    return curvesNeverFall;
  }

  /** What one job at speedup {@code s} adds to the objective (a monotone map of the power mean). */
  double value(double s) {
    double x = s + ZERO_SPEEDUP;
    if (p == -1) {
      return -1 / x; // the default, without a power per step
    }
    return p == 0 ? Math.log(x) : Math.signum(p) * Math.pow(x, p);
  }

  /** Pollux's restart factor for a job of this age with this many restarts. */
  double restartFactor(double ageS, int restartCount) {
    return Math.max(ageS - restartCount * delayS, 0) / (ageS + delayS);
  }

  @Override
  void share(List<Entry> entries, List<Entry> queued, Budget budget) {
    List<boolean[]> allTiers = budget.table.speedTiers(budget.table.allTypes());
    Map<String, Integer> nextRestarts = new HashMap<>();
    List<Slot> slots = new ArrayList<>();
    for (Entry e : entries) {
      Slot s = Slot.running(e, budget);
      s.restarts = restarts.getOrDefault(e.job.id(), 0);
      s.factor = restartFactor(ageOf(e.job), s.restarts);
      slots.add(s);
    }
    List<Slot> waiting = new ArrayList<>();
    long spare = budget.spare.total();
    for (Entry e : queued) {
      // Spare GPUs only shrink in a round: a gang larger than all of them cannot start now.
      if (e.job.baseGpus() <= spare) {
        waiting.add(Slot.waiting(e, tiersOf(e, allTiers)));
      }
    }
    if (allTiers.size() > 1) {
      for (Slot s : waiting) {
        s.regret = regret(s, budget);
      }
    }
    waiting.sort(
        Comparator.comparingDouble((Slot s) -> -s.regret)
            .thenComparingDouble(s -> s.entry.job.attainedS())
            .thenComparingDouble(s -> s.entry.job.submitTimeS())
            .thenComparing(s -> s.entry.job.id()));
    for (int i = 0; i < waiting.size(); i++) {
      waiting.get(i).tie = i;
    }
    for (Slot s : slots) {
      s.tie = waiting.size() + s.entry.rank;
    }
    GainQueue<Slot> steps = new GainQueue<>(slots.size() + waiting.size());
    for (Slot s : slots) {
      offer(steps, s, budget);
    }
    for (Slot s : waiting) {
      offer(steps, s, budget);
    }
    Map<Long, Integer> failedAt = new HashMap<>(); // (gpusPerWorker, tier) -> least gang not placed
    Slot s = steps.poll();
    while (s != null && budget.spare.total() > 0) {
      if (s.workers == 0 && s.entry.job.baseGpus() > budget.spare.total()) {
        s = steps.poll(); // its gang no longer fits anywhere
        continue;
      }
      Step step = best(s, budget);
      if (step == null || !(step.gain > 0)) {
        s = steps.poll();
        continue;
      }
      if (!steps.beforeHead(step.gain, s.tie)) {
        steps.add(s, step.gain, s.tie); // worth less than when queued: back in its place
        s = steps.poll();
        continue;
      }
      if (s.workers == 0) {
        long key = s.entry.g * 1_000_003L + ServerTable.mask(step.tier);
        Integer failed = failedAt.get(key);
        if ((failed != null && s.entry.job.minWorkers() >= failed)
            || !budget.placeGang(s.entry, s.entry.job.minWorkers(), step.tier)) {
          failedAt.merge(key, s.entry.job.minWorkers(), Math::min);
          s.drop(step.tier);
          offer(steps, s, budget);
          s = steps.poll();
          continue;
        }
        s.start(step.tier);
        entries.add(s.entry);
      }
      while (s.workers < step.workers && budget.placeOne(s.entry, s.tier)) {
        s.entry.count++;
        s.workers++;
      }
      if (s.workers < step.workers) {
        s.full = true; // its tier has no room for one more of its workers
      }
      offer(steps, s, budget);
      s = steps.poll();
    }
    for (Slot r : slots) {
      int changes = r.restarts + (r.entry.count != r.now ? 1 : 0);
      if (changes > 0) {
        nextRestarts.put(r.entry.job.id(), changes);
      }
    }
    restarts = nextRestarts;
  }

  @Override
  void beforeRound(ClusterState state) {
    nowS = state.nowS();
  }

  private double ageOf(Job job) {
    return Math.max(0, nowS - job.submitTimeS());
  }

  /** The tiers a waiting job may start on: the speed tiers of the types it allows. */
  private static List<boolean[]> tiersOf(Entry e, List<boolean[]> allTiers) {
    if (allTiers.size() == 1 && Arrays.equals(allTiers.get(0), e.types)) {
      return allTiers; // shared, never changed: drop copies before it removes
    }
    List<boolean[]> out = new ArrayList<>();
    for (boolean[] tier : allTiers) {
      boolean[] mine = new boolean[tier.length];
      boolean any = false;
      for (int t = 0; t < tier.length; t++) {
        mine[t] = tier[t] && e.types[t];
        any |= mine[t];
      }
      if (any) {
        out.add(mine);
      }
    }
    return out;
  }

  /**
   * How much a waiting job loses on its second-best tier against its best, each at the best width
   * the tier's spare GPUs allow: 0 with one tier.
   */
  private double regret(Slot s, Budget budget) {
    double best = Double.NEGATIVE_INFINITY;
    double second = Double.NEGATIVE_INFINITY;
    for (boolean[] tier : s.tiers) {
      int room = budget.spare.capacity(s.entry.g, tier);
      double v = Double.NEGATIVE_INFINITY;
      for (int n = s.entry.job.minWorkers(); n <= Math.min(room, s.entry.job.maxWorkers()); n++) {
        v = Math.max(v, value(speedup(s.entry.job, budget.table.speedOf(tier), n)));
      }
      if (v > best) {
        second = best;
        best = v;
      } else if (v > second) {
        second = v;
      }
    }
    return second == Double.NEGATIVE_INFINITY || best == Double.NEGATIVE_INFINITY
        ? 0
        : best - second;
  }

  private void offer(GainQueue<Slot> steps, Slot s, Budget budget) {
    Step step = best(s, budget);
    if (step != null && step.gain > 0) {
      steps.add(s, step.gain, s.tie);
    }
  }

  /** A job's speedup at {@code n} workers of speed {@code v}, relative to its minimum gang. */
  static double speedup(Job job, double v, int n) {
    SpeedupModel t = job.speedup();
    return v * t.throughput(n) / t.throughput(job.minWorkers());
  }

  /**
   * The slot's value at {@code n} workers on its tier (a running job: restart-penalised if n
   * changes).
   */
  private double valueAt(Slot s, double v, int n) {
    if (n == 0) {
      return value(0);
    }
    double sp = speedup(s.entry.job, v, n);
    return value(s.now > 0 && n != s.now ? sp * s.factor : sp);
  }

  /** The best step ahead of a slot: the width and tier worth most per GPU; null when none. */
  private Step best(Slot s, Budget budget) {
    if (s.full) {
      return null;
    }
    Job job = s.entry.job;
    boolean[] bestTier = null;
    int bestWorkers = 0;
    double bestGain = 0;
    int tierCount = s.workers == 0 ? s.tiers.size() : 1;
    for (int k = 0; k < tierCount; k++) {
      boolean[] tier = s.workers == 0 ? s.tiers.get(k) : s.tier;
      double v = budget.table.speedOf(tier);
      // A running job's own extra workers of now are among the spare GPUs.
      int room = budget.spare.capacity(s.entry.g, tier);
      int from = s.workers;
      double here = valueAt(s, v, from);
      int first = Math.max(from + 1, job.minWorkers());
      int last = Math.min(job.maxWorkers(), from + room);
      for (int n = first; n <= last; n++) {
        double gain = (valueAt(s, v, n) - here) / ((double) (n - from) * s.entry.g);
        if (bestTier == null || gain > bestGain) {
          bestTier = tier;
          bestWorkers = n;
          bestGain = gain;
        }
      }
    }
    return bestTier == null ? null : new Step(bestTier, bestWorkers, bestGain);
  }

  /** A step: widen (or start) to {@code workers} on {@code tier}, worth {@code gain} per GPU. */
  private record Step(boolean[] tier, int workers, double gain) {}

  /** One job's state in the greedy. */
  private static final class Slot {
    final Entry entry;
    final int now; // workers it runs with now, 0 for a waiting job
    List<boolean[]> tiers; // a waiting job's tiers still open to it
    boolean[] tier; // the tier it runs on, null before it starts
    int workers; // workers so far in this round
    int restarts;
    double factor = 1;
    double regret;
    int tie;
    boolean full;

    private Slot(Entry entry, int now) {
      this.entry = entry;
      this.now = now;
    }

    static Slot running(Entry e, Budget budget) {
      Slot s = new Slot(e, e.count + total(e.flexibleNow));
      s.workers = e.count;
      s.tier = tierOfRunning(e, budget);
      s.tiers = List.of();
      return s;
    }

    static Slot waiting(Entry e, List<boolean[]> tiers) {
      Slot s = new Slot(e, 0);
      s.tiers = tiers;
      return s;
    }

    private static int total(WorkersByServer w) {
      int n = 0;
      for (int i = 0; i < w.size(); i++) {
        n += w.count(i);
      }
      return n;
    }

    void start(boolean[] onTier) {
      tier = onTier;
      workers = entry.count;
    }

    void drop(boolean[] onTier) {
      List<boolean[]> left = new ArrayList<>(tiers);
      left.removeIf(t -> Arrays.equals(t, onTier));
      tiers = left;
    }

    /** The slowest tier among the servers a running job holds: the pace it runs at. */
    private static boolean[] tierOfRunning(Entry e, Budget budget) {
      double slowest = Double.POSITIVE_INFINITY;
      for (WorkersByServer w : List.of(e.workers, e.flexibleNow)) {
        for (int i = 0; i < w.size(); i++) {
          if (w.count(i) > 0) {
            int type = budget.table.typeIndex(w.server(i));
            slowest = Math.min(slowest, budget.table.types().get(type).trainingSpeed());
          }
        }
      }
      return budget.table.ofSpeed(e.types, slowest);
    }
  }
}
