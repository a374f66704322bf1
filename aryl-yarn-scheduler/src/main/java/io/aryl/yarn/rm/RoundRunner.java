package io.aryl.yarn.rm;

import io.aryl.api.loan.LendAnswer;
import io.aryl.api.loan.LoanTarget;
import io.aryl.api.status.NodeStatus;
import io.aryl.core.job.CheckpointReport;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.engine.Lifecycle;
import io.aryl.yarn.engine.Outcome;
import io.aryl.yarn.engine.Promises;
import io.aryl.yarn.engine.RmView;
import io.aryl.yarn.engine.RoundEngine;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.state.BackgroundSaves;
import io.aryl.yarn.state.CorruptStateException;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.LoanTargetRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rounds, on the ResourceManager: every interval (and at once on new demand) it reads the
 * ResourceManager into a {@link RmView}, lets the {@link RoundEngine} decide, publishes the
 * promises the allocation path enforces, and carries out the engine's actions. It decides nothing
 * itself: whatever it does, the engine asked for. Rounds run one at a time, on the {@link
 * RoundLoop}'s thread or on a node heartbeat that finds new demand; reclaim requests from the web
 * join the engine under the engine's lock.
 */
public final class RoundRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RoundRunner.class);

  private final CapacityScheduler scheduler;

  /** Hands grants to the Capacity Scheduler at once, as the applications' next heartbeats would. */
  private final Consumer<Set<String>> pushGrants;

  private final ArylSettings settings;
  private final ElasticApps apps;
  private final ArylMetrics metrics;
  private final RoundEngine engine;
  private final ActionApplier actions;
  private final RmReader reader;
  private final CheckpointTimes checkpoints;

  /** The jobs' measurements are stored off the round: no action waits on them. */
  private final BackgroundSaves measurements;

  /**
   * Used only under asynchronous scheduling: with heartbeats allocating, a promised node's next
   * heartbeat serves it.
   */
  private final PromisedNodeAllocation promisedNodes;

  private final long originMs;
  private final RoundLoop loop;
  private final NodeLookup nodeLookup;

  /** Whether node heartbeats allocate (the Capacity Scheduler's synchronous mode). */
  private final boolean heartbeatsAllocate;

  private final Queue<RmView.Finished> finished = new ConcurrentLinkedQueue<>();

  /** New demand no round has planned for yet. */
  private final AtomicBoolean demandPending = new AtomicBoolean();

  private volatile double lastRoundLatencyMs;

  /**
   * @param state the durable state as this scheduler found it when it became active
   * @throws CorruptStateException when a stored section contradicts itself
   */
  RoundRunner(
      CapacityScheduler scheduler,
      ArylSettings settings,
      Lifecycle lifecycle,
      ElasticApps apps,
      PlainAsks plainAsks,
      ArylMetrics metrics,
      DurableState state,
      NodeChangeCounts nodeChanges,
      Consumer<Set<String>> pushGrants,
      LongConsumer afterRound)
      throws CorruptStateException {
    this.scheduler = scheduler;
    this.pushGrants = pushGrants;
    this.settings = settings;
    this.apps = apps;
    this.metrics = metrics;
    this.originMs = state.originMs();
    this.loop = new RoundLoop(this::round, afterRound, metrics);
    this.nodeLookup = new NodeLookup(scheduler);
    this.measurements = new BackgroundSaves(state, "aryl-state-writer");
    this.engine =
        new RoundEngine(settings, lifecycle, state, measurements, System.currentTimeMillis());
    this.actions = new ActionApplier(scheduler, engine, metrics, nodeLookup::named);
    this.heartbeatsAllocate = !scheduler.getConfiguration().getScheduleAynschronously();
    this.promisedNodes =
        PromisedNodeAllocation.on(
            scheduler, new NodeOffers(apps), nodeLookup::named, () -> engine.promises().book());
    this.reader =
        new RmReader(
            scheduler,
            nodeChanges,
            apps,
            plainAsks,
            settings.trainingQueue(),
            settings.trainingLabel(),
            settings.gpus());
    this.checkpoints =
        CheckpointTimes.onRm(scheduler.getRMContext(), apps, settings.checkpointPollMs());
  }

  void start() {
    checkpoints.start();
    loop.start(settings.roundIntervalMs());
  }

  @Override
  public void close() {
    promisedNodes.close();
    loop.close(); // a round in flight ends before the store is closed beneath it
    measurements.close(); // what the last rounds measured, stored before the store closes
    checkpoints.close();
  }

  /** What the allocation path enforces now. */
  Promises promises() {
    return engine.promises();
  }

  PlanBook book() {
    return engine.promises().book();
  }

  RoundEngine engine() {
    return engine;
  }

  /** The scheduler's nodes by name, as the last round indexed them. */
  NodeLookup nodeLookup() {
    return nodeLookup;
  }

  /**
   * Asks for a round as soon as possible (new demand), at most one pending at a time. The next node
   * heartbeat runs it itself if the planning thread has not yet ({@link #roundIfDemandPending}).
   */
  void requestRound() {
    demandPending.set(true);
    loop.request();
  }

  /**
   * Called on the scheduler's event thread, which must not wait for a round in progress: the next
   * round hands the finish to the engine.
   */
  void applicationFinished(String appId, boolean succeeded) {
    finished.add(
        new RmView.Finished(
            appId, succeeded, apps.get(appId).map(a -> a.shape.kind()).orElse(null)));
    checkpoints.forget(appId);
  }

  /**
   * Runs a round now if demand arrived since the last one: called before a node heartbeat
   * allocates, so that the heartbeat already serves the new grants instead of the next one. Under
   * asynchronous scheduling (Hadoop 3.5.0's default) a heartbeat allocates nothing: a round run
   * there only held the scheduler's event thread (heartbeats, new attempts, finished containers)
   * behind it, and the planning thread runs the requested round anyway.
   */
  void roundIfDemandPending() {
    if (heartbeatsAllocate && demandPending.get()) {
      synchronized (this) {
        if (demandPending.get()) {
          loop.runSafely();
        }
      }
    }
  }

  /**
   * One round: reads the ResourceManager, lets the engine decide, carries out its actions. The loop
   * runs it, and so does a node heartbeat that finds new demand ({@link #roundIfDemandPending}) or
   * an operator ({@link ArylOperations#runRound}).
   */
  synchronized void round() {
    demandPending.set(false);
    RoundTimer timer = RoundTimer.start();
    long viewsBuilt = reader.nodeViewsBuilt();
    RmView view = read(System.currentTimeMillis(), true);
    timer.lap("read");
    Outcome outcome = engine.round(view);
    timer.lap("engine");
    apply(outcome, view.nowMs());
    timer.lap("apply");
    lastRoundLatencyMs = timer.wallNanos() / 1e6;
    metrics.roundTook(timer.wallNanos(), timer.cpuNanos());
    if (timer.wallNanos() > settings.roundIntervalMs() * 1_000_000L) {
      LOG.info("Aryl planning round took longer than the round interval: {}", timer);
    } else {
      LOG.debug(
          "Aryl planning round: {}; node views built {}, changes found by the sweep alone {}",
          timer,
          reader.nodeViewsBuilt() - viewsBuilt,
          reader.unsignalledNodeChanges());
    }
  }

  /**
   * The ResourceManager as a round sees it. The applications are read before the nodes: see {@link
   * RmReader#runningApps}.
   *
   * @param finishing whether to hand over the applications that finished since (a round does; a
   *     reclaim request leaves them to the next round)
   */
  private RmView read(long now, boolean finishing) {
    RmReader.RunningApps running = reader.runningApps(originMs);
    Collection<FiCaSchedulerNode> all = scheduler.getNodeTracker().getAllNodes();
    List<NodeView> views = reader.nodes(all, running.unflaggedAm());
    nodeLookup.read(all, reader.nodeMembership());
    Map<String, RmView.KnownApp> known = new HashMap<>();
    Map<String, CheckpointReport> reports = new HashMap<>();
    for (ElasticApps.App a : apps.all()) {
      known.put(a.id, new RmView.KnownApp(a.id, a.shape, a.askedWorkers()));
      CheckpointReport r = checkpoints.get(a.id);
      if (r.known()) {
        reports.put(a.id, r);
      }
    }
    List<RmView.Finished> ended = new ArrayList<>();
    if (finishing) {
      for (RmView.Finished f = finished.poll(); f != null; f = finished.poll()) {
        ended.add(f);
      }
    }
    return new RmView(
        now,
        views,
        running.views(),
        known,
        reader.plainDemand(originMs),
        reader.tenantShares(),
        scheduler.getRMContext().isSchedulerReadyForAllocatingContainers(),
        reports,
        ended);
  }

  /**
   * The ResourceManager as a request from outside the rounds sees it, read once no round is in
   * progress (the reader is the rounds'); the applications that finished are left to the next
   * round.
   */
  private RmView readBetweenRounds() {
    synchronized (this) {
      return read(System.currentTimeMillis(), false);
    }
  }

  /** Carries out the actions, and counts what the outcome says. */
  private void apply(Outcome outcome, long now) {
    Set<String> granted = actions.apply(outcome, now);
    if (!granted.isEmpty()) {
      pushGrants.accept(granted);
      if (!heartbeatsAllocate) {
        promisedNodes.offerTargetsOf(granted);
      }
    }
  }

  /**
   * Puts the loan controller's target in force once stored (see {@link
   * RoundEngine#acceptLoanTarget}).
   */
  LoanTargetRecord acceptLoanTarget(LoanTarget target) {
    RmView view = readBetweenRounds();
    LoanTargetRecord accepted =
        engine.acceptLoanTarget(
            view,
            target.epoch(),
            target.controller(),
            target.maxOnLoan(),
            target.returnByMs(),
            target.decidedMs(),
            target.reason(),
            target.demand());
    requestRound(); // lend or reclaim now, not at the next tick
    return accepted;
  }

  /**
   * Lends the named inference nodes to training now, as an operator asked (see {@link
   * RoundEngine#lend}); returns once they are relabelled, or left home because something started on
   * them meanwhile.
   */
  LendAnswer lend(List<String> nodes) {
    RmView view = readBetweenRounds();
    apply(engine.lend(view, nodes), view.nowMs());
    Map<String, NodeStatus.Place> places = engine.status().places();
    List<String> lent = new ArrayList<>();
    List<String> home = new ArrayList<>();
    for (String n : nodes) {
      (places.get(n) == NodeStatus.Place.LENT ? lent : home).add(n);
    }
    return new LendAnswer(lent, home);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Reclaims

  /**
   * Starts returning {@code servers} loaned nodes to inference by {@code deadlineMs} (0 = the
   * default deadline). The reclaim is stored before any of its nodes is drained.
   *
   * @throws IllegalArgumentException when not enough nodes are on loan
   * @throws ArylUnavailableException while recovering, or when the reclaim cannot be stored
   */
  Reclaim requestReclaim(int servers, String gpuType, long deadlineMs) {
    RmView view = readBetweenRounds();
    RoundEngine.Started started = engine.reclaim(view, servers, gpuType, deadlineMs);
    apply(started.outcome(), view.nowMs());
    return started.reclaim();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // What the status report reads

  StatusReport.Inputs statusInputs() {
    var s = engine.status();
    List<NodeView> nodes;
    synchronized (this) {
      nodes = reader.nodes();
    }
    return new StatusReport.Inputs(
        s.rounds(),
        lastRoundLatencyMs,
        nodes,
        s.inferenceOwned(),
        s.fenced(),
        apps.all(),
        s.book(),
        s.lastInput(),
        s.lastPlan(),
        s.reclaimsInFlight(),
        s.reclaimsDone(),
        s.draining(),
        s.recovery(),
        s.deposed(),
        s.places(),
        s.loanTarget(),
        s.preemptions());
  }
}
