package io.aryl.sim.engine;

import io.aryl.core.RoundPlanner;
import io.aryl.core.loan.DemandForecast;
import io.aryl.core.loan.LoanPolicy;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.JobAllocations;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Tenants;
import io.aryl.core.predict.NoisyPredictor;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.reclaim.ReclaimPlan;
import io.aryl.core.reclaim.ReclaimPlanner;
import io.aryl.core.reclaim.ReclaimRequest;
import io.aryl.core.reclaim.ServerChooser;
import io.aryl.core.victim.Fate;
import io.aryl.sim.trace.InferenceCurve;
import io.aryl.sim.trace.TraceJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.DoubleConsumer;

/**
 * A discrete-event simulation of one policy on one trace: arrivals, completions, scheduling rounds
 * at an interval, inference demand changing every window, loans, reclaims with a grace period,
 * re-scale pauses, preemptions that lose the work since the last checkpoint, and training on
 * inference GPUs at their own speed.
 *
 * <p>Every decision is aryl-core's: {@link RoundPlanner} plans each round (or, for comparison, a
 * reimplemented published scheduler behind the same {@link Planner} interface), {@link
 * ReclaimPlanner} picks the servers to return and {@link LoanPolicy} says how many may be lent. The
 * simulator only keeps time and applies the plans. A run is deterministic: the same inputs give the
 * same result.
 */
public final class Simulator {
  static final String TRAINING_TYPE = "training-gpu";
  static final String INFERENCE_TYPE = "inference-gpu";
  private static final double AGING_ROUND_S =
      1800; // re-plan a waiting queue now and then: waits age

  private final SimConfig cfg;
  private final PolicySpec policy;
  private final InferenceCurve curve;
  private final double curveOffsetS;
  private final double elasticFraction;
  private final long seed;
  private final NoisyPredictor predictor;
  private final Planner planner;
  private final ReclaimPlanner reclaimer;
  private final LoanPolicy loanPolicy; // null: no inference fleet to lend from
  private final DemandForecast forecast;
  // The controller's lead: servers are asked back for the forecast peak this far ahead, so that
  // they drain, are relabelled and start a replica before the demand comes; null: no lead.
  private final DemandForecast reclaimLead;
  private final Tenants tenants; // null: the round sees no tenants
  private RoundObserver observer; // null: no one watches the rounds
  private ReclaimObserver reclaimObserver; // null: no one watches the reclaims

  /**
   * Sees each round the simulator plans: the snapshot its planner read and the plan it returned,
   * before the plan is applied. For checks that another front end of aryl-core (the YARN
   * scheduler's translation of the same cluster) decides the same; the simulator itself never reads
   * what an observer does.
   */
  @FunctionalInterface
  public interface RoundObserver {
    void planned(ClusterState state, Plan plan);
  }

  /**
   * Sees each reclaim the simulator starts: the snapshot its reclaim planner read, what it asked
   * for and the plan it returned, before the chosen servers are fenced. For checks that the YARN
   * scheduler, shown the same cluster, takes back the same servers and does the same to each job;
   * the simulator itself never reads what an observer does.
   */
  @FunctionalInterface
  public interface ReclaimObserver {
    void started(ClusterState state, ReclaimRequest request, ReclaimPlan plan);
  }

  /**
   * @param curve inference demand; null for none (no server is ever lent)
   * @param curveOffsetS curve time at simulation time 0 (aligns the trace's start with a time of
   *     day)
   * @param elasticFraction share of jobs that are elastic (when the policy is elastic)
   * @param predictionError largest relative error of runtime predictions, in [0, 1)
   */
  public Simulator(
      SimConfig cfg,
      PolicySpec policy,
      InferenceCurve curve,
      double curveOffsetS,
      double elasticFraction,
      double predictionError,
      long seed) {
    this(cfg, policy, curve, curveOffsetS, elasticFraction, predictionError, seed, null);
  }

  /**
   * As {@link #Simulator(SimConfig, PolicySpec, InferenceCurve, double, double, double, long)},
   * with the training pool shared by tenants: every job is of its trace's {@link
   * TraceJob#tenant()}, and {@code tenants} (null: none) says what each is guaranteed.
   */
  public Simulator(
      SimConfig cfg,
      PolicySpec policy,
      InferenceCurve curve,
      double curveOffsetS,
      double elasticFraction,
      double predictionError,
      long seed,
      Tenants tenants) {
    this.tenants = tenants;
    this.cfg = cfg;
    this.policy = policy;
    this.curve = curve;
    this.curveOffsetS = curveOffsetS;
    this.elasticFraction = elasticFraction;
    this.seed = seed;
    this.predictor = new NoisyPredictor(predictionError, seed);
    this.planner = policy.planner().create(policy, cfg);
    ReclaimCostModel costs = new ReclaimCostModel(cfg.restartOverheadS(), cfg.rescaleOverheadS());
    this.reclaimer = new ReclaimPlanner(costs, chooser(policy.reclaim()));
    this.loanPolicy =
        curve == null || cfg.inferenceServers() == 0
            ? null
            : LoanPolicy.provisionedForPeak(
                curve.peak(), cfg.inferenceServers(), cfg.headroom(), cfg.loanMarginServers());
    this.forecast =
        policy.loanForecastS() > 0 ? DemandForecast.daily(policy.loanForecastS()) : null;
    this.reclaimLead = cfg.reclaimLeadS() > 0 ? DemandForecast.daily(cfg.reclaimLeadS()) : null;
  }

  /**
   * Calls {@code o} (null: no one) with every round this simulator plans from now on; returns this
   * simulator.
   */
  public Simulator observeRounds(RoundObserver o) {
    this.observer = o;
    return this;
  }

  /**
   * Calls {@code o} (null: no one) with every reclaim this simulator starts from now on; returns
   * this simulator.
   */
  public Simulator observeReclaims(ReclaimObserver o) {
    this.reclaimObserver = o;
    return this;
  }

  private ServerChooser chooser(PolicySpec.ReclaimChoice choice) {
    return switch (choice) {
      case LEAST_COST -> ServerChooser.leastCost();
      case RANDOM -> ServerChooser.random(seed);
      case FEWEST_BUSY_GPUS -> ServerChooser.fewestBusyGpus();
      case NEWEST_FIRST -> ServerChooser.newestFirst(this::newestStartByServer);
    };
  }

  // --- the world
  // -------------------------------------------------------------------------------------------------

  private SimFleet fleet;
  private ClusterState lastState; // null before the first snapshot

  private final List<SimJob> running =
      new ArrayList<>(); // in the order they started: every event walks them
  private final Map<String, SimJob> queued = new LinkedHashMap<>();
  private final Map<String, SimJob> byId = new HashMap<>();
  // The snapshot's jobs and allocations, kept sorted by id as it wants them, so that it need not
  // sort them each round.
  private final ActiveJobs active = new ActiveJobs(); // queued or running
  private JobAllocations allocations =
      JobAllocations.EMPTY; // of the running jobs, as of the last snapshot
  // Allocations set since the last snapshot, put into `allocations` in one copy when the next is
  // taken.
  private final TreeMap<String, Allocation> allocationsSince = new TreeMap<>();
  // When the first running job finishes; known until a running job's work, speed or pause changes.
  private double earliestFinish;
  private boolean earliestFinishKnown;

  // --- counters
  // ----------------------------------------------------------------------------------------------------

  private double windowStart;
  private double windowEnd;
  private final RunTally tally = new RunTally();
  private int trainingGpusBusy;
  private int loanedGpusBusy;
  private int runningElastic; // running jobs that are elastic
  private int runningBelowWidest; // running jobs with fewer workers than their maxWorkers

  /**
   * Runs the policy on {@code jobs}. Jobs submitted before {@code windowStartS} warm the cluster up
   * and are not measured; counters cover {@code [windowStartS, windowEndS)}; the run goes on until
   * every measured job is done (or {@code maxTailS} after the window, when the rest counts as
   * unfinished).
   */
  public PolicyResult run(
      List<TraceJob> jobs,
      double windowStartS,
      double windowEndS,
      double maxTailS,
      DoubleConsumer progress) {
    long wallStart = System.nanoTime();
    this.windowStart = windowStartS;
    this.windowEnd = windowEndS;
    fleet = new SimFleet(cfg);
    lastState = null;
    earliestFinishKnown = false;
    List<SimJob> arrivals = new ArrayList<>();
    for (TraceJob t : jobs) {
      if (t.submitS() < windowEndS) {
        boolean elastic = policy.elastic() && JobShape.isElastic(t.id(), elasticFraction, seed);
        SimJob j =
            new SimJob(
                t,
                t.submitS() >= windowStartS,
                elastic
                    ? JobShape.elastic(t.gpus(), cfg.gpusPerServer())
                    : JobShape.inelastic(t.gpus(), cfg.gpusPerServer()),
                1 + predictor.relativeError(t.id()),
                cfg);
        arrivals.add(j);
        byId.put(t.id(), j);
      }
    }
    arrivals.sort(
        Comparator.comparingDouble((SimJob j) -> j.trace.submitS())
            .thenComparing(j -> j.trace.id()));
    int measuredTotal = (int) arrivals.stream().filter(j -> j.measured).count();
    int nextArrival = 0;
    double t =
        arrivals.isEmpty() ? windowStartS : Math.min(arrivals.get(0).trace.submitS(), windowStartS);
    double hardStop = windowEndS + maxTailS;
    double nextSample = windowStartS;
    double nextWindow = loanPolicy == null ? Double.POSITIVE_INFINITY : t;
    double dirtySince = Double.NaN;
    double lastRound = Double.NEGATIVE_INFINITY;
    int measuredDone = 0;

    while (t < hardStop) {
      boolean arrivalsLeft = nextArrival < arrivals.size();
      if (t >= windowEndS && measuredDone == measuredTotal) {
        break; // warm-up jobs still running are of no further interest
      }
      // The next event.
      double next = hardStop;
      if (arrivalsLeft) {
        next = Math.min(next, arrivals.get(nextArrival).trace.submitS());
      }
      next = Math.min(next, earliestFinish(t));
      double roundAt = Double.POSITIVE_INFINITY;
      if (!Double.isNaN(dirtySince)) {
        roundAt =
            Math.max(
                dirtySince, Math.ceil(dirtySince / cfg.roundIntervalS()) * cfg.roundIntervalS());
      } else if (!queued.isEmpty()) {
        roundAt = lastRound + AGING_ROUND_S;
      }
      next = Math.min(next, Math.max(t, roundAt));
      if (nextSample < windowEndS) {
        next = Math.min(next, nextSample);
      }
      next = Math.min(next, nextWindow);
      next = Math.min(next, fleet.earliestReturn());

      List<SimJob> done = advance(t, next);
      t = next;

      // Completions.
      for (SimJob j : done) {
        finish(j, t);
        if (j.measured) {
          measuredDone++;
        }
        dirtySince = Double.isNaN(dirtySince) ? t : dirtySince;
      }
      // Arrivals.
      while (nextArrival < arrivals.size() && arrivals.get(nextArrival).trace.submitS() <= t) {
        SimJob j = arrivals.get(nextArrival++);
        queued.put(j.trace.id(), j);
        active.add(j);
        dirtySince = Double.isNaN(dirtySince) ? t : dirtySince;
      }
      // Loaned servers whose grace ran out go back.
      if (returnServers(t)) {
        dirtySince = Double.isNaN(dirtySince) ? t : dirtySince;
      }
      // Inference demand.
      if (t >= nextWindow) {
        if (adjustLoans(t)) {
          dirtySince = Double.isNaN(dirtySince) ? t : dirtySince;
        }
        nextWindow =
            (Math.floor((t + curveOffsetS) / curve.windowS()) + 1) * curve.windowS() - curveOffsetS;
      }
      // A round.
      if (t >= roundAt) {
        round(t);
        lastRound = t;
        dirtySince = Double.NaN;
      }
      if (t >= nextSample && nextSample < windowEndS) {
        if (t >= windowStartS) {
          tally.sample(
              new Sample(
                  t - windowStartS,
                  trainingGpusBusy,
                  loanedGpusBusy,
                  inferenceDemandGpus(t),
                  fleet.loanedCount(),
                  queued.size(),
                  running.size()));
        }
        nextSample = Math.max(nextSample + cfg.sampleIntervalS(), windowStartS);
      }
      if (progress != null && measuredTotal > 0) {
        progress.accept((double) measuredDone / measuredTotal);
      }
    }
    int unfinished =
        (int) byId.values().stream().filter(j -> j.measured && Double.isNaN(endOf(j))).count();
    return tally.result(
        policy.name(),
        cfg,
        windowEndS - windowStartS,
        unfinished,
        (System.nanoTime() - wallStart) / 1e9);
  }

  private final Map<String, Double> ends = new HashMap<>();

  private double endOf(SimJob j) {
    return ends.getOrDefault(j.trace.id(), Double.NaN);
  }

  // --- time
  // --------------------------------------------------------------------------------------------------------

  /**
   * When the first running job finishes, as of {@code t}: the last advance's, unless a job changed
   * since.
   */
  private double earliestFinish(double t) {
    if (!earliestFinishKnown) {
      earliestFinish = Double.POSITIVE_INFINITY;
      for (SimJob j : running) {
        earliestFinish = Math.min(earliestFinish, j.finishTime(t));
      }
      earliestFinishKnown = true;
    }
    return earliestFinish;
  }

  /**
   * Runs the running jobs from {@code from} to {@code to}; returns those done by then, in start
   * order. Notes when the first of them will finish, for the next event: most events change no
   * running job.
   */
  private List<SimJob> advance(double from, double to) {
    List<SimJob> done = new ArrayList<>();
    double earliest = Double.POSITIVE_INFINITY;
    for (SimJob j : running) { // one pass for all three: the scan is per event
      if (to > from) {
        j.spentGpuS += (j.gpusOnTraining + j.gpusOnLoaned) * (to - from);
        double effective = to - Math.max(from, j.pausedUntil);
        if (effective > 0) {
          j.remaining = Math.max(0, j.remaining - j.rate * effective);
        }
      }
      double finish = j.finishTime(to);
      earliest = Math.min(earliest, finish);
      if (j.remaining <= 1e-6 * Math.max(1, j.totalWork) || finish <= to + 1e-9) {
        done.add(j);
      }
    }
    earliestFinish = earliest;
    earliestFinishKnown = true;
    double w = Math.min(to, windowEnd) - Math.max(from, windowStart); // <= 0 unless time passes
    if (w > 0) {
      double[] shortfall = {0, 0};
      if (loanPolicy != null) {
        int needed = loanPolicy.serversNeeded(rateAt(from));
        shortfall = fleet.shortfall(needed, Math.max(from, windowStart), Math.min(to, windowEnd));
      }
      tally.elapsed(
          w,
          trainingGpusBusy,
          loanedGpusBusy,
          (double) fleet.loanedCount() * cfg.gpusPerServer(),
          inferenceDemandGpus(from),
          shortfall[0],
          shortfall[1]);
    }
    return done;
  }

  private double rateAt(double t) {
    return curve == null ? 0 : curve.rateAt(t + curveOffsetS);
  }

  /**
   * GPUs busy serving inference: the demand at the fleet's per-server capacity, served only by
   * servers not on loan (a server still training through its reclaim grace serves nothing yet; one
   * home but still starting its replica counts as busy, as the GPUs are held by the replica).
   */
  private double inferenceDemandGpus(double t) {
    if (curve == null || cfg.inferenceServers() == 0) {
      return 0;
    }
    double capacity = loanPolicy.capacityPerServer();
    double servers = Math.min(cfg.inferenceServers() - fleet.loanedCount(), rateAt(t) / capacity);
    return Math.max(0, servers) * cfg.gpusPerServer();
  }

  // --- servers and loans
  // -------------------------------------------------------------------------------------------

  /** Lends or asks back inference servers for the demand now. True if anything changed. */
  private boolean adjustLoans(double t) {
    if (!policy.loan()) {
      return false;
    }
    double rate = rateAt(t);
    double reclaimRate = reclaimLead == null ? rate : reclaimLead.planningRate(this::rateAt, t);
    // Never lend what the reclaim's look-ahead would ask back at the next window.
    double lendRate =
        Math.max(reclaimRate, forecast == null ? rate : forecast.planningRate(this::rateAt, t));
    int lent =
        fleet.loanedCount() - fleet.fencedCount(); // servers lent and not already on their way back
    int back = loanPolicy.toReclaim(reclaimRate, cfg.inferenceServers(), lent);
    if (back > 0) {
      ClusterState state = state(t);
      ReclaimRequest request = ReclaimRequest.any(back);
      ReclaimPlan plan = reclaimer.plan(state, request);
      if (!plan.isFeasible()) {
        throw new IllegalStateException(
            "reclaim of " + back + " servers infeasible: " + plan.infeasibleReason());
      }
      if (reclaimObserver != null) {
        reclaimObserver.started(state, request, plan);
      }
      for (String id : plan.servers()) {
        fleet.fence(id, t + cfg.reclaimGraceS());
      }
      return true;
    }
    int lend = loanPolicy.lendable(lendRate, cfg.inferenceServers()) - fleet.loanedCount();
    if (lend <= 0) {
      return false;
    }
    fleet.lend(lend);
    return true;
  }

  /**
   * Takes back every fenced server whose grace is over: workers there are shrunk away or their jobs
   * preempted, as {@link Fate#of} decides on what each job runs then.
   */
  private boolean returnServers(double t) {
    List<Integer> due = fleet.due(t);
    for (int s : due) {
      String id = fleet.id(s);
      for (SimJob j : new ArrayList<>(running)) {
        int w = j.allocation.workersOn(id);
        if (w == 0) {
          continue;
        }
        if (Fate.of(j.workers, w, j.shape.minWorkers()) == Fate.PREEMPT) {
          preempt(j, t);
        } else {
          Map<String, Integer> left = new HashMap<>(j.allocation.workersByServer());
          left.remove(id);
          setAllocation(j, Allocation.of(left), t);
          countScaleIn(t);
        }
      }
      fleet.returnHome(s, t + cfg.relabelS() + cfg.replicaStartS());
    }
    return !due.isEmpty();
  }

  /**
   * When the newest running job on each server started: what stock YARN's newest-first choice ranks
   * servers by.
   */
  private Map<String, Double> newestStartByServer() {
    Map<String, Double> newest = new HashMap<>();
    for (SimJob j : running) {
      for (String s : j.allocation.workersByServer().keySet()) {
        newest.merge(s, j.lastStart, Math::max);
      }
    }
    return newest;
  }

  // --- jobs
  // --------------------------------------------------------------------------------------------------------

  /**
   * The cluster as the policy sees it at {@code t}; checked only where it differs from the last
   * one.
   */
  private ClusterState state(double t) {
    List<Job> jobs = new ArrayList<>(active.size());
    for (SimJob j : active.inIdOrder()) {
      jobs.add(j.toCoreJob(t, tenants != null));
    }
    Tenants teams = tenants == null ? Tenants.NONE : tenants;
    allocations = allocations.with(allocationsSince);
    allocationsSince.clear();
    lastState =
        lastState == null
            ? ClusterState.of(t, fleet.servers(), jobs, allocations, teams)
            : lastState.next(t, fleet.servers(), jobs, allocations, teams);
    return lastState;
  }

  private void round(double t) {
    boolean twoSpeeds =
        cfg.inferenceGpuSpeed() != 1; // a speed-aware round may move running jobs between speeds
    if (queued.isEmpty()
        && fleet.fencedCount() == 0
        && !(twoSpeeds && !running.isEmpty())
        && (runningElastic == 0
            || (tenants == null
                && runningBelowWidest == 0
                && planner.changesNothingWhenSaturated()))) {
      return; // nothing to decide: no job may start, and none may grow
    }
    ClusterState state = state(t);
    Plan plan = planner.plan(state);
    if (observer != null) {
      observer.planned(state, plan);
    }
    for (Map.Entry<String, Plan.Change> e : plan.changes().entrySet()) {
      SimJob j = byId.get(e.getKey());
      Allocation next = plan.target(e.getKey());
      switch (e.getValue()) {
        case START -> start(j, next, t);
        case GROW, MOVE -> setAllocation(j, next, t);
        case SHRINK -> {
          setAllocation(j, next, t);
          countScaleIn(t);
        }
        case PREEMPT -> preempt(j, t);
      }
    }
  }

  private boolean inWindow(double t) {
    return t >= windowStart && t < windowEnd;
  }

  private void countScaleIn(double t) {
    if (inWindow(t)) {
      tally.scaledIn();
    }
  }

  private void start(SimJob j, Allocation a, double t) {
    queued.remove(j.trace.id());
    running.add(j);
    if (Double.isNaN(j.firstStart)) {
      j.firstStart = t;
    }
    j.lastStart = t;
    j.pausedUntil = t + (j.preemptedBefore ? cfg.restartOverheadS() : 0);
    j.runStart = j.pausedUntil;
    applyAllocation(j, a);
  }

  /**
   * A running job changes width or place: it checkpoints, pauses to re-form, and restarts from
   * there.
   */
  private void setAllocation(SimJob j, Allocation a, double t) {
    j.pausedUntil = Math.max(j.pausedUntil, t) + cfg.rescaleOverheadS();
    j.runStart = j.pausedUntil;
    applyAllocation(j, a);
  }

  private void preempt(SimJob j, double t) {
    double lost = j.sinceCheckpoint(t);
    j.remaining = Math.min(j.totalWork, j.remaining + j.rate * lost);
    if (inWindow(t)) {
      tally.preempted(lost * j.workers * j.shape.gpusPerWorker());
    }
    j.preemptedBefore = true;
    j.preemptions++;
    applyAllocation(j, Allocation.EMPTY);
    running.remove(j);
    queued.put(j.trace.id(), j);
  }

  private void finish(SimJob j, double t) {
    applyAllocation(j, Allocation.EMPTY);
    running.remove(j);
    active.remove(j);
    ends.put(j.trace.id(), t);
    if (j.measured) {
      tally.finished(
          new JobRecord(
              j.trace.id(),
              j.trace.submitS() - windowStart,
              j.firstStart - windowStart,
              t - windowStart,
              j.trace.gpus(),
              j.elastic(),
              j.boundS()),
          j.trace.durationS() * j.trace.gpus(),
          j.spentGpuS,
          new CapacityBound.Work(j.trace.submitS() - windowStart, j.leastGpuS()));
    }
  }

  /** Sets the job's workers and everything derived from them: GPUs per pool, and speed. */
  private void applyAllocation(SimJob j, Allocation a) {
    trainingGpusBusy -= j.gpusOnTraining;
    loanedGpusBusy -= j.gpusOnLoaned;
    countRunning(j, -1);
    j.allocation = a;
    allocationsSince.put(j.trace.id(), a);
    earliestFinishKnown = false;
    j.workers = a.totalWorkers();
    j.gpusOnTraining = 0;
    j.gpusOnLoaned = 0;
    double slowest = 1.0;
    for (int k = 0; k < a.serverCount(); k++) {
      int s = fleet.indexOf(a.serverAt(k));
      int gpus = a.workersAt(k) * j.shape.gpusPerWorker();
      if (fleet.isInference(s)) {
        j.gpusOnLoaned += gpus;
        slowest = Math.min(slowest, cfg.inferenceGpuSpeed());
      } else {
        j.gpusOnTraining += gpus;
      }
    }
    trainingGpusBusy += j.gpusOnTraining;
    loanedGpusBusy += j.gpusOnLoaned;
    countRunning(j, +1);
    j.rate = j.rateAt(j.workers, slowest);
  }

  /**
   * Adds {@code sign} to the counts of running jobs {@code j} is in, by its workers now (none: not
   * running).
   */
  private void countRunning(SimJob j, int sign) {
    if (j.workers > 0) {
      runningElastic += j.elastic() ? sign : 0;
      runningBelowWidest += j.workers < j.shape.maxWorkers() ? sign : 0;
    }
  }
}
