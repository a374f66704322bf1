package io.aryl.yarn.rm;

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
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rounds, on the ResourceManager: every interval (and at once on new demand) it reads the
 * ResourceManager into a {@link RmView}, lets the {@link RoundEngine} decide, publishes the
 * promises the allocation path enforces, and carries out the engine's actions. It decides nothing
 * itself: whatever it does, the engine asked for. One thread; reclaim requests from the web join
 * the engine under the engine's lock.
 */
public final class RoundRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RoundRunner.class);

  private final CapacityScheduler scheduler;

  /** Hands grants to the Capacity Scheduler at once, as the applications' next heartbeats would. */
  private final Consumer<Set<String>> pushGrants;

  /** Told of every round that ran, with its time. */
  private final LongConsumer afterRound;

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
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "aryl-planning-loop");
            t.setDaemon(true);
            return t;
          });

  /** The nodes by name; built again when nodes join or leave. */
  private volatile NodeIndex nodeIndex = NodeIndex.EMPTY;

  /**
   * The node membership ({@link RmReader#nodeMembership}) the index was built at; -1 before the
   * first.
   */
  private long indexedMembership = -1;

  private final AtomicBoolean roundRequested = new AtomicBoolean();

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
      ArylMetrics metrics,
      DurableState state,
      NodeChangeCounts nodeChanges,
      Consumer<Set<String>> pushGrants,
      LongConsumer afterRound)
      throws CorruptStateException {
    this.scheduler = scheduler;
    this.pushGrants = pushGrants;
    this.afterRound = afterRound;
    this.settings = settings;
    this.apps = apps;
    this.metrics = metrics;
    this.originMs = state.originMs();
    this.measurements = new BackgroundSaves(state, "aryl-state-writer");
    this.engine =
        new RoundEngine(settings, lifecycle, state, measurements, System.currentTimeMillis());
    this.actions = new ActionApplier(scheduler, engine, metrics, this::nodeNamed);
    this.heartbeatsAllocate = !scheduler.getConfiguration().getScheduleAynschronously();
    this.promisedNodes =
        PromisedNodeAllocation.on(
            scheduler, new NodeOffers(apps), this::nodeNamed, () -> engine.promises().book());
    this.reader =
        new RmReader(
            scheduler,
            nodeChanges,
            apps,
            settings.trainingQueue(),
            settings.trainingLabel(),
            settings.gpus());
    this.checkpoints =
        CheckpointTimes.onRm(scheduler.getRMContext(), apps, settings.checkpointPollMs());
  }

  void start() {
    checkpoints.start();
    thread.scheduleWithFixedDelay(
        this::roundSafely,
        settings.roundIntervalMs(),
        settings.roundIntervalMs(),
        TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    thread.shutdownNow();
    promisedNodes.close();
    try {
      // A round in flight may still write state: let it end before the store is closed beneath it.
      if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.warn("Aryl's planning round did not end within 5 s of the scheduler stopping");
      }
      measurements.close(); // what the last rounds measured, stored before the store closes
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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

  String rackOf(String nodeName) {
    return nodeIndex.rackOf(nodeName);
  }

  String nodeNameOf(NodeId id) {
    String n = nodeIndex.nameOf(id);
    if (n == null) {
      FiCaSchedulerNode node = scheduler.getNode(id);
      n = node == null ? null : node.getNodeName();
    }
    return n;
  }

  /** The scheduler's node of this name; null if unknown or gone. */
  FiCaSchedulerNode nodeNamed(String nodeName) {
    NodeId id = nodeIndex.idOf(nodeName);
    FiCaSchedulerNode indexed = id == null ? null : scheduler.getNode(id);
    if (indexed != null) {
      return indexed;
    }
    // Registered since the last round indexed the nodes: a scan, as rare as that.
    for (FiCaSchedulerNode n : scheduler.getNodeTracker().getAllNodes()) {
      if (n.getNodeName().equals(nodeName)) {
        return n;
      }
    }
    return null;
  }

  /**
   * Asks for a round as soon as possible (new demand), at most one pending at a time. The next node
   * heartbeat runs it itself if the planning thread has not yet ({@link #roundIfDemandPending}).
   */
  void requestRound() {
    demandPending.set(true);
    if (roundRequested.compareAndSet(false, true)) {
      try {
        thread.execute(
            () -> {
              roundRequested.set(false);
              roundSafely();
            });
      } catch (RejectedExecutionException e) {
        roundRequested.set(false); // shutting down
      }
    }
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

  private void roundSafely() {
    try {
      round();
      afterRound.accept(System.currentTimeMillis());
    } catch (RuntimeException | LinkageError e) {
      // A round that fails leaves the last promises in place; the next one starts from the RM's
      // state again. Anything
      // escaping here would cancel every later round silently, so errors are logged and the loop
      // goes on.
      metrics.planningRoundsFailed.incr();
      LOG.error("Aryl planning round failed", e);
    }
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
          roundSafely();
        }
      }
    }
  }

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
    List<NodeView> nodes = reader.nodes(all, running.unflaggedAm());
    if (indexedMembership != reader.nodeMembership()) {
      nodeIndex = NodeIndex.of(all);
      indexedMembership = reader.nodeMembership();
    }
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
        nodes,
        running.views(),
        known,
        reader.plainDemand(originMs),
        reader.tenantShares(),
        scheduler.getRMContext().isSchedulerReadyForAllocatingContainers(),
        reports,
        ended);
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
  io.aryl.yarn.state.LoanTargetRecord acceptLoanTarget(io.aryl.api.loan.LoanTarget target) {
    RmView view;
    synchronized (this) { // the reader is the round's
      view = read(System.currentTimeMillis(), false);
    }
    io.aryl.yarn.state.LoanTargetRecord accepted =
        engine.acceptLoanTarget(
            view,
            target.epoch(),
            target.controller(),
            target.maxOnLoan(),
            target.returnByMs(),
            target.decidedMs(),
            target.reason());
    requestRound(); // lend or reclaim now, not at the next tick
    return accepted;
  }

  /**
   * Lends the named inference nodes to training now, as an operator asked (see {@link
   * RoundEngine#lend}); returns once they are relabelled, or left home because something started on
   * them meanwhile.
   */
  io.aryl.api.loan.LendAnswer lend(List<String> nodes) {
    RmView view;
    synchronized (this) { // the reader is the round's
      view = read(System.currentTimeMillis(), false);
    }
    apply(engine.lend(view, nodes), view.nowMs());
    Map<String, io.aryl.api.status.NodeStatus.Place> places = engine.status().places();
    List<String> lent = new ArrayList<>();
    List<String> home = new ArrayList<>();
    for (String n : nodes) {
      (places.get(n) == io.aryl.api.status.NodeStatus.Place.LENT ? lent : home).add(n);
    }
    return new io.aryl.api.loan.LendAnswer(lent, home);
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
    RmView view;
    synchronized (this) { // the reader is the round's
      view = read(System.currentTimeMillis(), false);
    }
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
        s.loanTarget());
  }
}
