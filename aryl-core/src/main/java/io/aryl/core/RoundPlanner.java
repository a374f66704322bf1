package io.aryl.core;

import io.aryl.core.admission.Admission;
import io.aryl.core.elastic.ElasticAllocator;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.BelowMax;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.JobAllocations;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Pool;
import io.aryl.core.model.QueuePlace;
import io.aryl.core.model.Server;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.placement.ServerTable;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.tenant.TenantLedger;
import io.aryl.core.tenant.TenantQuota;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One scheduling round of the Aryl policy: a {@link ClusterState} in, a {@link Plan} out. Pure: the
 * same state always gives the same plan, and nothing outside the arguments is read.
 *
 * <ol>
 *   <li>Running jobs keep their base workers where they are; their flexible workers are re-decided.
 *   <li>Phase 1, {@link Admission}: queued jobs' base gangs, all or nothing, shortest predicted
 *       first, with a starvation guard; placed best-fit decreasing, base workers preferring the
 *       training pool's own servers.
 *   <li>With {@link PolicyConfig#preemption()} on (aryl+), no tenants ({@link
 *       ShortJobPreemptions}): running jobs stopped after their checkpoint for much shorter jobs
 *       phase 1 left waiting; such jobs are {@link Plan.Change#PREEMPT}ed.
 *   <li>Speed-aware only ({@link SpeedTierMoves}): whole jobs move between GPU speeds where the
 *       round gains by it.
 *   <li>Phase 2 ({@link ElasticPhase}, {@link ElasticAllocator}): the GPUs left are shared among
 *       elastic jobs by a multiple-choice knapsack on predicted JCT reduction. Flexible workers
 *       stay where they run when they can (no needless moves) and new ones go best-fit, preferring
 *       loaned servers.
 * </ol>
 *
 * <p><b>Tenants</b> (a {@link io.aryl.core.model.Tenants} in the snapshot, two or more of them):
 * phase 1 serves jobs that keep their tenant within its guarantee before the others, and may
 * preempt other tenants' jobs on borrowed GPUs for them after {@link
 * PolicyConfig#tenantReclaimDelayS()} (see {@link Admission}); such jobs are {@link
 * Plan.Change#PREEMPT}ed. Phase 2 first offers each tenant's idle guarantee to its own elastic
 * jobs, then shares the GPUs still spare among every tenant's elastic jobs by value (see {@link
 * ElasticPhase}). With one tenant or none the round is exactly the round without tenants.
 *
 * <p><b>Why.</b> The plan records its reasons as the round takes them, at no second computation:
 * where admission put every queued job it left waiting ({@link Plan#waiting()}: its place in the
 * offer order, its standing with the starvation guard, whether servers are held for it), and why
 * phase 2 did not widen each elastic job it runs below its maximum ({@link Plan#belowMax()}, see
 * {@link ElasticPhase#whyBelowMax}).
 */
public final class RoundPlanner {
  private static final BelowMax ELASTIC_OFF = new BelowMax.ElasticOff();
  private static final BelowMax MOVED_WHOLE = new BelowMax.MovedWhole();

  private final PolicyConfig config;
  private final Admission admission;
  private final ElasticPhase phase2;
  private final SpeedTierMoves tierMoves;
  private final ShortJobPreemptions shortJobPreemptions;
  // The last round's servers as arrays: reused while the servers stay the same, as they do between
  // loans.
  private volatile ServerTable lastTable;
  // The last round's running jobs split into base and flexible workers: reused for jobs whose
  // workers stayed.
  private volatile BaseSplits lastSplits = BaseSplits.NONE;

  public RoundPlanner(PolicyConfig config) {
    this.config = config;
    this.admission =
        new Admission(config.jobOrder(), config.starvationGuard(), config.speedAware());
    this.phase2 = new ElasticPhase(config);
    this.tierMoves = new SpeedTierMoves(config, phase2);
    this.shortJobPreemptions =
        new ShortJobPreemptions(
            config.preemption(),
            new ReclaimCostModel(config.restartOverheadS(), config.rescaleOverheadS()),
            admission);
  }

  public PolicyConfig config() {
    return config;
  }

  /**
   * Whether every round on a {@linkplain #saturated saturated} snapshot plans no change, so that a
   * caller may skip such rounds. True whenever a re-scale pauses a job ({@link
   * PolicyConfig#rescaleOverheadS()} {@code > 0}):
   *
   * <ul>
   *   <li>phase 1 has no one to admit, and no starving job to reserve for or preempt for;
   *   <li>with one training speed no job has another speed to move to;
   *   <li>each elastic job's knapsack item for its present extras is worth its full predicted
   *       reduction and pays no pause, while every other item is narrower (at most that reduction)
   *       and pays one: each group's best item is unique and is the present one. The capacity holds
   *       every job's present extras, since they hold those GPUs now, so the exact and the greedy
   *       knapsack both choose the present widths;
   *   <li>placement then keeps each flexible worker where it runs (the GPUs it holds are spare to
   *       it alone), and the target is the allocation the job started the round with.
   * </ul>
   */
  public boolean changesNothingWhenSaturated() {
    return config.rescaleOverheadS() > 0;
  }

  /**
   * Whether the snapshot leaves a round nothing to decide if {@link
   * #changesNothingWhenSaturated()}: no job queued, no server fenced, no tenants, every running job
   * at its {@code maxWorkers}, and every server serving training at one training speed.
   */
  public static boolean saturated(ClusterState state) {
    if (state.allocations().size() != state.jobs().size() || TenantQuota.active(state)) {
      return false;
    }
    double speed = Double.NaN;
    for (Server s : state.servers()) {
      if (s.fenced()) {
        return false;
      }
      if (s.servesTraining()) {
        double v = s.gpuType().trainingSpeed();
        if (!Double.isNaN(speed) && v != speed) {
          return false;
        }
        speed = v;
      }
    }
    for (Job j : state.jobs()) {
      if (state.allocation(j.id()).totalWorkers() != j.maxWorkers()) {
        return false;
      }
    }
    return true;
  }

  public Plan plan(ClusterState state) {
    ServerTable table = tableOf(state.servers());
    int n = table.size();
    int[] spare = new int[n];
    int[] flexible = new int[n];
    for (int s = 0; s < n; s++) {
      spare[s] = table.gpus(s);
    }

    List<PlacedJob> placed = new ArrayList<>(state.jobs().size());
    List<Job> queued = new ArrayList<>(state.jobs().size() - state.allocations().size());
    // Jobs and allocations are both sorted by job id, and every allocation is of a job: walk them
    // side by side.
    JobAllocations allocations = state.allocations();
    BaseSplits.Round splits = lastSplits.round(table, allocations.size());
    int nextRunning = 0;
    for (Job job : state.jobs()) {
      if (nextRunning == allocations.size() || !allocations.jobAt(nextRunning).equals(job.id())) {
        queued.add(job);
        continue;
      }
      Allocation a = allocations.allocationAt(nextRunning++);
      PlacedJob p = PlacedJob.running(job, splits.of(job, a));
      int g = job.gpusPerWorker();
      for (int i = 0; i < p.base.size(); i++) {
        spare[p.base.server(i)] -= p.base.workers(i) * g;
      }
      for (int i = 0; i < p.flexibleNow.size(); i++) {
        flexible[p.flexibleNow.server(i)] += p.flexibleNow.workers(i) * g;
      }
      placed.add(p);
    }
    lastSplits = splits.next();
    GpuBudget budget = new GpuBudget(table, spare, flexible);

    TenantLedger tenants = null;
    if (TenantQuota.active(state)) {
      tenants =
          new TenantLedger(
              state.tenants(),
              table,
              config.tenantReclaimDelayS(),
              new ReclaimCostModel(config.restartOverheadS(), config.rescaleOverheadS()));
      for (PlacedJob p : placed) {
        tenants.addRunning(p.job, p.base.toMap(), p.flexibleNow.toMap());
      }
    }
    List<PlacedJob> running = List.copyOf(placed);
    List<Job> runningJobs = new ArrayList<>(running.size());
    for (PlacedJob p : running) {
      runningJobs.add(p.job);
    }
    Admission.Result admitted =
        admission.admit(
            queued, runningJobs, state.nowS(), budget, () -> releases(running), tenants);
    if (!admitted.preemptedFor().isEmpty()) {
      HashSet<String> gone = new HashSet<>(admitted.preemptedFor().keySet());
      placed.removeIf(p -> gone.contains(p.job.id()));
    }
    for (Map.Entry<Job, int[]> e : admitted.admitted().entrySet()) {
      placed.add(PlacedJob.admitted(e.getKey(), e.getValue()));
    }
    // aryl+: running jobs stopped after their checkpoint for much shorter waiting ones (not with
    // tenants, whose preemptions are for guarantees alone).
    ShortJobPreemptions.Result shorter = ShortJobPreemptions.Result.NONE;
    if (tenants == null && config.preemption().enabled()) {
      shorter = shortJobPreemptions.apply(leftWaiting(admitted), placed, budget, state.nowS());
      Set<String> setAside = shorter.setAside();
      if (!setAside.isEmpty()) {
        placed.removeIf(p -> setAside.contains(p.job.id()));
        for (Map.Entry<Job, int[]> e : shorter.admitted().entrySet()) {
          placed.add(PlacedJob.admitted(e.getKey(), e.getValue()));
        }
        for (Map.Entry<Job, int[]> e : shorter.moved().entrySet()) {
          placed.add(PlacedJob.admitted(e.getKey(), e.getValue()));
        }
      }
    }

    Map<String, BelowMax> belowMax = new HashMap<>();
    if (config.elastic()) {
      if (config.speedAware()) {
        tierMoves.apply(placed, budget, table);
      }
      ElasticPhase.Growth growth =
          phase2.grow(
              placed, budget, table, tenants == null ? null : idleQuota(state, placed, table));
      phase2.whyBelowMax(growth, budget, table, belowMax);
    }

    // Most jobs keep the very allocation they started the round with: the targets are the
    // snapshot's, changed where
    // the plan changes them, and preempted jobs taken out.
    TreeMap<String, Allocation> changed = new TreeMap<>();
    for (String id : admitted.preemptedFor().keySet()) {
      changed.put(id, Allocation.EMPTY);
    }
    for (String id : shorter.preemptedFor().keySet()) {
      changed.put(id, Allocation.EMPTY);
    }
    for (PlacedJob p : placed) {
      Allocation target = p.target(table);
      // target() hands back the very allocation the job has when none of its workers moved:
      // identity says so without comparing the two.
      @SuppressWarnings("ReferenceEquality")
      boolean kept = target == p.now;
      if (!kept) {
        changed.put(p.job.id(), target);
      }
      if (p.job.isElastic()
          && (!config.elastic() || p.settled)
          && target.totalWorkers() < p.job.maxWorkers()) {
        belowMax.put(p.job.id(), config.elastic() ? MOVED_WHOLE : ELASTIC_OFF);
      }
    }
    return Plan.between(state, state.allocations().with(changed))
        .withReasons(waiting(admitted, shorter.admitted().keySet(), state.nowS()), belowMax);
  }

  /** The queued jobs phase 1 did not admit, in its offer order. */
  private static List<Job> leftWaiting(Admission.Result admitted) {
    List<Job> out = new ArrayList<>();
    for (Job job : admitted.offered()) {
      if (!admitted.admitted().containsKey(job)) {
        out.add(job);
      }
    }
    return out;
  }

  /**
   * Where admission put each queued job it did not admit: its place in the offer order, and the
   * guard's say.
   */
  private Map<String, QueuePlace> waiting(
      Admission.Result admitted, Set<Job> startedByPreemption, double nowS) {
    if (admitted.offered().size() == admitted.admitted().size() + startedByPreemption.size()) {
      return Map.of(); // nobody left waiting
    }
    Set<Job> lane = admitted.lane().isEmpty() ? Set.of() : new HashSet<>(admitted.lane());
    Map<String, QueuePlace> out = new HashMap<>();
    int offeredBefore = 0;
    int waitingAhead = 0;
    for (Job job : admitted.offered()) {
      if (!admitted.admitted().containsKey(job) && !startedByPreemption.contains(job)) {
        QueuePlace.Standing standing =
            !admission.isStarving(job, nowS)
                ? QueuePlace.Standing.NOT_STARVING
                : lane.contains(job)
                    ? QueuePlace.Standing.IN_THE_LANE
                    : QueuePlace.Standing.OUTSIDE_THE_LANE;
        out.put(
            job.id(),
            new QueuePlace(
                waitingAhead++,
                offeredBefore,
                standing,
                admitted.reservedFor().contains(job.id())));
      }
      offeredBefore++;
    }
    return out;
  }

  private ServerTable tableOf(List<Server> servers) {
    ServerTable table = lastTable;
    if (table == null || !table.isOf(servers)) {
      table = new ServerTable(servers);
      lastTable = table;
    }
    return table;
  }

  /**
   * Each tenant's guarantee less its base workers' GPUs on the own servers (at least 0), as phase 1
   * left them.
   */
  private static Map<String, Integer> idleQuota(
      ClusterState state, List<PlacedJob> placed, ServerTable table) {
    Map<String, Integer> idle = new HashMap<>(state.tenants().guarantees());
    for (PlacedJob p : placed) {
      p.base.forEach(
          (s, w) -> {
            if (table.server(s).pool() == Pool.TRAINING) {
              idle.merge(p.job.tenant(), -w * p.job.gpusPerWorker(), Integer::sum);
            }
          });
    }
    idle.replaceAll((t, g) -> Math.max(0, g));
    return idle;
  }

  /**
   * When running jobs are predicted to end and free their base GPUs: needed only if a starving job
   * reserves.
   */
  private static List<Admission.Release> releases(List<PlacedJob> running) {
    List<Admission.Release> releases = new ArrayList<>();
    for (PlacedJob p : running) {
      double endsIn = p.job.predictedRuntimeAt(p.widthNow());
      p.base.forEach(
          (s, w) -> releases.add(new Admission.Release(endsIn, s, w * p.job.gpusPerWorker())));
    }
    return releases;
  }
}
