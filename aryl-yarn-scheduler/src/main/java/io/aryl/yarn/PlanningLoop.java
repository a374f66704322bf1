package io.aryl.yarn;

import io.aryl.core.RoundPlanner;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Plan;
import io.aryl.core.predict.HistoryPredictor;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.reclaim.ReclaimTracker;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.JobProgress;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.round.SnapshotTranslator;
import io.aryl.yarn.state.BackgroundSaves;
import io.aryl.yarn.state.CorruptStateException;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.Section;
import io.aryl.yarn.state.StoreFencedException;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rounds: every interval, read the ResourceManager, plan with aryl-core, publish the promises the allocation path
 * enforces, take workers back ({@link DrainExecutor}), and move reclaims forward ({@link ReclaimExecutor}). Whatever
 * a round decides is stored ({@link DurableState}) before it reaches the cluster; after the scheduler becomes active,
 * {@link RecoveryGate} holds every action back until the cluster has come back. One thread; reclaim requests from the
 * web join it under the same lock.
 */
final class PlanningLoop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PlanningLoop.class);

  private final ArylScheduler scheduler;
  private final ArylSettings settings;
  private final ElasticApps apps;
  private final ArylMetrics metrics;
  private final DurableState state;
  private final InferenceOwners owners;
  private final LoanedNodes loaned;
  private final RmReader reader;
  private final SnapshotTranslator translator;
  private final RoundPlanner planner;
  private final ReclaimTracker reclaims = new ReclaimTracker();
  private final Drains drains = new Drains();
  private final JobProgressMeter progress = new JobProgressMeter();
  private final CheckpointTimes checkpoints;
  private final ReclaimExecutor executor;
  private final DrainExecutor drainer;
  private final RecoveryGate recovery;
  private final WaitingDiagnostics waiting;
  private final HistoryPredictor history = new HistoryPredictor();
  /** The jobs' measurements are stored off the round: no action waits on them. */
  private final BackgroundSaves measurements;
  /** Used only under asynchronous scheduling: with heartbeats allocating, a promised node's next heartbeat serves it. */
  private final PromisedNodeAllocation promisedNodes;
  private final long originMs;
  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "aryl-planning-loop");
    t.setDaemon(true);
    return t;
  });

  private volatile PlanBook book = PlanBook.EMPTY;
  /** The nodes by name; built again when nodes join or leave. */
  private volatile NodeIndex nodeIndex = NodeIndex.EMPTY;
  /** The node membership ({@link RmReader#nodeMembership}) the index was built at; -1 before the first. */
  private long indexedMembership = -1;
  private final AtomicBoolean roundRequested = new AtomicBoolean();
  /** Whether node heartbeats allocate (the Capacity Scheduler's synchronous mode). */
  private final boolean heartbeatsAllocate;
  private final Queue<Finished> finished = new ConcurrentLinkedQueue<>();
  /** New demand no round has planned for yet. */
  private final AtomicBoolean demandPending = new AtomicBoolean();
  private volatile Set<String> fenced;
  /** Set when another scheduler claimed the state store: this one is deposed and acts no more. */
  private volatile String deposed;
  private long rounds;
  private Plan lastPlan;
  private RoundInput lastInput;
  private double lastRoundLatencyMs;

  /**
   * @param state the durable state as this scheduler found it when it became active
   * @throws CorruptStateException when a stored section contradicts itself
   */
  PlanningLoop(ArylScheduler scheduler, ArylSettings settings, ElasticApps apps, ArylMetrics metrics,
      DurableState state, InferenceOwners owners) throws CorruptStateException {
    this.scheduler = scheduler;
    this.settings = settings;
    this.apps = apps;
    this.metrics = metrics;
    this.state = state;
    this.owners = owners;
    this.loaned = new LoanedNodes(settings.trainingLabel(), owners);
    this.originMs = state.originMs();
    this.measurements = new BackgroundSaves(state, "aryl-state-writer");
    this.heartbeatsAllocate = !scheduler.getConfiguration().getScheduleAynschronously();
    this.promisedNodes = PromisedNodeAllocation.on(scheduler, new NodeOffers(apps), this::nodeNamed, () -> book);
    this.reader = new RmReader(scheduler, apps, settings.trainingQueue(), settings.trainingLabel(), settings.gpus());
    this.translator = new SnapshotTranslator(settings.trainingLabel(), GpuType.of(settings.gpuType()), owners::owns,
        owners::changes, settings.speedup());
    this.planner = new RoundPlanner(settings.policy());
    ReclaimCostModel costs = new ReclaimCostModel(ReclaimCostModel.defaults().restartOverheadS(),
        settings.policy().rescaleOverheadS());
    this.checkpoints = CheckpointTimes.onRm(scheduler.getRMContext(), apps, settings.checkpointPollMs());
    this.executor = new ReclaimExecutor(scheduler, settings, apps, metrics, reclaims, drains, progress, checkpoints,
        costs);
    this.drainer = new DrainExecutor(scheduler, settings, apps, metrics, drains, executor::stillReturning);
    this.waiting = new WaitingDiagnostics(settings.trainingLabel(), settings.policy(),
        WaitingDiagnostics.onCurrentAttempt(scheduler.getRMContext()));

    restore(Section.OWNERS, owners::restore);
    restore(Section.RECLAIMS, reclaims::restore);
    restore(Section.DRAINS, drains::restore);
    restore(Section.JOBS, progress::restore);
    this.fenced = reclaims.fencedNodes();
    Set<String> expected = new HashSet<>(progress.nodesWithWorkers());
    expected.addAll(fenced);
    expected.addAll(drains.nodes());
    this.recovery = new RecoveryGate(System.currentTimeMillis(), settings.recoveryMaxWaitMs(), expected,
        () -> scheduler.getRMContext().isSchedulerReadyForAllocatingContainers());
    if (state.recovered()) {
      LOG.info("Aryl resumes from {} {} (epoch {}): {} inference node(s), {} reclaim(s) in flight, {} draining"
              + " container(s), {} job(s); waiting for {} node(s) to re-register (at most {} ms)", state.store().kind(),
          state.store().location(), state.epoch(), state.get(Section.OWNERS).inference().size(),
          reclaims.inFlight().size(), drains.size(), state.get(Section.JOBS).jobs().size(), expected.size(),
          settings.recoveryMaxWaitMs());
    }
  }

  private <T> void restore(Section<T> section, java.util.function.Consumer<T> into) throws CorruptStateException {
    try {
      into.accept(state.get(section));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw state.corrupt(section, String.valueOf(e.getMessage()));
    }
  }

  void start() {
    checkpoints.start();
    thread.scheduleWithFixedDelay(this::roundSafely, settings.roundIntervalMs(), settings.roundIntervalMs(),
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

  PlanBook book() {
    return book;
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

  /** The scheduler's node of this name, as of the last round; null if unknown or gone. */
  FiCaSchedulerNode nodeNamed(String nodeName) {
    NodeId id = nodeIndex.idOf(nodeName);
    return id == null ? null : scheduler.getNode(id);
  }

  /**
   * Asks for a round as soon as possible (new demand), at most one pending at a time. The next node heartbeat runs it
   * itself if the planning thread has not yet ({@link #roundIfDemandPending}).
   */
  void requestRound() {
    demandPending.set(true);
    if (roundRequested.compareAndSet(false, true)) {
      try {
        thread.execute(() -> {
          roundRequested.set(false);
          roundSafely();
        });
      } catch (RejectedExecutionException e) {
        roundRequested.set(false); // shutting down
      }
    }
  }

  Set<String> fenced() {
    return fenced;
  }

  /** Workers of the application being moved off their nodes: the new ones are granted before these go. */
  int moving(String appId) {
    return drains.moving(appId);
  }

  boolean ownedByInference(String nodeName) {
    return owners.owns(nodeName);
  }

  /**
   * Called on the scheduler's event thread, which must not wait for a round in progress: the finish is applied by
   * whoever next takes the loop's lock, before it reads anything.
   */
  void applicationFinished(String appId, boolean succeeded) {
    finished.add(new Finished(appId, succeeded, apps.get(appId).map(a -> a.shape.kind()).orElse(null)));
  }

  /** An application that ended, with its job kind (null if not elastic), to forget under the loop's lock. */
  private record Finished(String appId, boolean succeeded, String kind) {}

  private void forgetFinished() {
    for (Finished f = finished.poll(); f != null; f = finished.poll()) {
      JobProgress p = progress.remove(f.appId());
      checkpoints.forget(f.appId());
      drainer.jobFinished(f.appId());
      if (f.succeeded() && p != null && f.kind() != null && settings.predictor() == ArylSettings.Predictor.HISTORY) {
        history.observe(f.kind(), p.attainedBaseS());
      }
    }
  }

  private void roundSafely() {
    try {
      round();
      scheduler.sampleHistory(System.currentTimeMillis());
    } catch (RuntimeException | LinkageError e) {
      // A round that fails leaves the last promises in place; the next one starts from the RM's state again. Anything
      // escaping here would cancel every later round silently, so errors are logged, counted and the loop goes on.
      metrics.planningRoundsFailed.incr();
      LOG.error("Aryl planning round failed", e);
    }
  }

  /**
   * Runs a round now if demand arrived since the last one: called before a node heartbeat allocates, so that the
   * heartbeat already serves the new grants instead of the next one. Under asynchronous scheduling (Hadoop 3.5.0's
   * default) a heartbeat allocates nothing: a round run there only held the scheduler's event thread (heartbeats,
   * new attempts, finished containers) behind it, and the planning thread runs the requested round anyway.
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
    forgetFinished();
    if (deposed == null) {
      collectFailedSaves();
    }
    if (deposed != null) {
      return;
    }
    demandPending.set(false);
    RoundTimer timer = RoundTimer.start();
    long viewsBuilt = reader.nodeViewsBuilt();
    long now = System.currentTimeMillis();
    // The applications before the nodes: see RmReader.runningApps.
    RmReader.RunningApps running = reader.runningApps(originMs);
    timer.lap("apps");
    Collection<FiCaSchedulerNode> all = scheduler.getNodeTracker().getAllNodes();
    List<NodeView> nodes = reader.nodes(all, running.unflaggedAm());
    loaned.update(nodes);
    if (indexedMembership != reader.nodeMembership()) {
      nodeIndex = NodeIndex.of(all);
      indexedMembership = reader.nodeMembership();
    }
    timer.lap("nodes");
    try {
      saveOwners();
      if (!recovered(nodes, now)) {
        updateLoanMetrics();
        return;
      }
      Map<String, AppView> views = running.views();
      Map<String, AppView> plain = reader.plainDemand(originMs);
      progress.update(views, nodes, now);
      if (drains.size() > 0) { // a set of every container's id, only when there is a drain to check against it
        drains.retainOnly(NodeView.containerIds(nodes));
      }
      fenced = reclaims.fencedNodes();
      timer.lap("progress");

      RoundInput input = translate(nodes, views, plain, now);
      timer.lap("translate");
      Plan plan = planner.plan(input.state());
      timer.lap("plan");
      PlanBook previous = book;
      Map<String, Integer> gpusPerWorker = new HashMap<>();
      input.state().jobs().forEach(j -> gpusPerWorker.put(j.id(), j.gpusPerWorker()));
      // Gangs waiting out the drains that make their room keep their promise; the plan never saw them.
      Map<String, Allocation> targets = new HashMap<>(plan.targets());
      input.starting().forEach((id, promise) -> {
        targets.put(id, promise);
        // A starting gang may be a plain application's pending containers, which are not among the elastic views.
        AppView starting = views.containsKey(id) ? views.get(id) : plain.get(id);
        gpusPerWorker.put(id, starting.shape().gpusPerWorker());
      });
      book = new PlanBook(targets, gpusPerWorker, ++rounds);
      Set<String> changed = book.changedSince(previous);
      changed.removeIf(id -> !apps.isElastic(id)); // a plain application's asks are its own: nothing to push
      scheduler.pushGrants(changed);
      offerPromisedNodes(changed);
      lastPlan = plan;
      lastInput = input;
      timer.lap("grants");

      drainer.drainWhatThePlanTakes(input, plan, nodes, now);
      executor.advance(nodes, input.state(), now);
      timer.lap("drains");
      commit(now);
      timer.lap("store");
      // Moves stored: grant their new workers now rather than at each ApplicationMaster's next heartbeat.
      scheduler.pushGrants(drains.moving().keySet());
      offerPromisedNodes(drains.moving().keySet());
      fenced = reclaims.fencedNodes();
      drainer.killDue(input, nodes, book, now);
      updateLoanMetrics();
      timer.lap("moves");
      waiting.publish(views, input, plan);
      timer.lap("diagnostics");
      lastRoundLatencyMs = timer.wallNanos() / 1e6;
      metrics.roundTook(timer.wallNanos(), timer.cpuNanos());
      if (timer.wallNanos() > settings.roundIntervalMs() * 1_000_000L) {
        LOG.info("Aryl planning round {} took longer than the round interval: {}", rounds, timer);
      } else {
        LOG.debug("Aryl planning round {}: {}; node views built {}, changes found by the sweep alone {}", rounds,
            timer, reader.nodeViewsBuilt() - viewsBuilt, reader.unsignalledNodeChanges());
      }
    } catch (StoreFencedException e) {
      depose(e);
    } catch (IOException e) {
      // Nothing unstored was acted on: drains stay unannounced, and the next round stores them again.
      LOG.warn("Aryl could not store its state; this round's drains wait for the next one: {}", e.toString());
    }
  }

  private void offerPromisedNodes(Set<String> appIds) {
    if (!heartbeatsAllocate) {
      promisedNodes.offerTargetsOf(appIds);
    }
  }

  /** True once the cluster came back after this scheduler became active; until then a round changes nothing. */
  private boolean recovered(List<NodeView> nodes, long now) {
    if (recovery.isReady()) {
      return true;
    }
    Set<String> registered = new HashSet<>();
    nodes.forEach(n -> registered.add(n.id()));
    if (!recovery.ready(registered, now)) {
      metrics.recovering.set(1);
      return false;
    }
    metrics.recovering.set(0);
    metrics.recoveryWaitMs.set(recovery.waitedMs());
    LOG.info("Aryl recovery done after {} ms: {}", recovery.waitedMs(), recovery.how());
    return true;
  }

  /**
   * Stores what this round decided, then tells ApplicationMasters about new drains: a container is asked back only
   * once its drain is durable, so a newly active scheduler kills exactly what its predecessor announced.
   */
  private void commit(long now) throws IOException {
    state.save(Section.RECLAIMS, reclaims.toRecord());
    state.save(Section.DRAINS, drains.toRecord());
    if (progress.saveDue(now)) {
      measurements.save(Section.JOBS, progress.toRecord());
      progress.saved(now);
    }
    drainer.announceStored(now);
  }

  /** A failed save of the measurements is made again next time; one fenced by another scheduler deposes this one. */
  private void collectFailedSaves() {
    IOException failed = measurements.failure();
    if (failed instanceof StoreFencedException f) {
      depose(f);
    } else if (failed != null) {
      LOG.warn("Aryl could not store the jobs' measurements; they are stored again: {}", failed.toString());
      progress.saveAgain();
    }
  }

  /** Stores newly learnt inference nodes; callers rely on them only once stored. */
  void saveOwners() throws IOException {
    synchronized (owners) {
      if (owners.unsaved()) {
        InferenceOwners.Snapshot s = owners.snapshot();
        state.save(Section.OWNERS, s.owners());
        owners.saved(s);
      }
    }
  }

  private void depose(StoreFencedException e) {
    deposed = e.getMessage();
    book = PlanBook.EMPTY;
    LOG.error("Aryl stops acting: {}", e.getMessage());
  }


  /**
   * The round's snapshot: the elastic applications {@code views}, plain applications' pending GPU asks {@code plain}
   * ({@link RmReader#plainDemand}), teams.
   */
  private RoundInput translate(List<NodeView> nodes, Map<String, AppView> views, Map<String, AppView> plain,
      long now) {
    if (settings.predictor() == ArylSettings.Predictor.HISTORY) {
      // Progress stays measured; the history predictor only replaces the runtime a job's tag announced.
      views = withHistoryRuntimes(views);
    }
    Map<String, AppView> planned = new TreeMap<>(views);
    // A job being moved wants back, on its new nodes, the workers it is being moved off (left out as draining).
    drains.moving().forEach((id, n) -> planned.computeIfPresent(id, (k, v) -> v.askingMore(n)));
    planned.putAll(plain);
    return translator.translate((now - originMs) / 1000.0, nodes, planned, book, drains.ids(), fenced, progress.all(),
        (id, p) -> checkpoints.sinceCheckpointS(id, p, now), reader.tenantShares());
  }

  private Map<String, AppView> withHistoryRuntimes(Map<String, AppView> views) {
    Map<String, AppView> out = new TreeMap<>();
    views.forEach((id, v) -> {
      String kind = v.shape().kind();
      if (kind.isEmpty() || history.samples(kind) < HistoryPredictor.DEFAULT_MIN_SAMPLES) {
        out.put(id, v);
      } else {
        out.put(id, v.withShape(v.shape().withPredictedRuntimeS(history.expectedTotalS(kind))));
      }
    });
    return out;
  }


  // ---------------------------------------------------------------------------------------------------------------
  // Reclaims

  /**
   * Starts returning {@code servers} loaned nodes to inference by {@code deadlineMs} (0 = the default deadline). The
   * reclaim is stored before any of its nodes is drained.
   *
   * @throws IllegalArgumentException when not enough nodes are on loan
   * @throws ArylUnavailableException while recovering, or when the reclaim cannot be stored
   */
  synchronized Reclaim requestReclaim(int servers, String gpuType, long deadlineMs) {
    forgetFinished();
    if (deposed != null) {
      throw new ArylUnavailableException("this scheduler is no longer active: " + deposed);
    }
    if (gpuType != null && settings.gpus().type(gpuType).isEmpty()) {
      throw new IllegalArgumentException("gpuType '" + gpuType + "' is not one of " + ArylConf.GPU_TYPES.key() + " "
          + settings.gpus().types().keySet());
    }
    if (!recovery.isReady()) {
      throw new ArylUnavailableException("Aryl is recovering after the ResourceManager became active: waiting for "
          + recovery.waitingFor() + "; ask again shortly");
    }
    long now = System.currentTimeMillis();
    RmReader.RunningApps running = reader.runningApps(originMs); // before the nodes, as in a round
    List<NodeView> nodes = reader.nodes(scheduler.getNodeTracker().getAllNodes(), running.unflaggedAm());
    loaned.update(nodes);
    fenced = reclaims.fencedNodes();
    RoundInput input = translate(nodes, running.views(), reader.plainDemand(originMs), now);
    Reclaim r = executor.start(servers, gpuType, deadlineMs, input.state(), now);
    try {
      saveOwners();
      state.save(Section.RECLAIMS, reclaims.toRecord());
    } catch (IOException e) {
      reclaims.abandon(r);
      if (e instanceof StoreFencedException f) {
        depose(f);
      }
      throw new ArylUnavailableException("reclaim not started: Aryl could not store it (" + e.getMessage() + ")", e);
    }
    fenced = reclaims.fencedNodes();
    executor.advance(nodes, input.state(), now);
    try {
      commit(now);
    } catch (StoreFencedException e) {
      depose(e);
    } catch (IOException e) {
      LOG.warn("Aryl reclaim {}: drains not stored yet, the next round stores and announces them: {}", r.id(),
          e.toString());
    }
    fenced = reclaims.fencedNodes(); // nodes the first step already returned (empty ones) are fenced no more
    return r;
  }

  private void updateLoanMetrics() {
    metrics.loanedNodes.set(loaned.nodes());
    metrics.loanedGpus.set(loaned.gpus());
    metrics.reclaimsInFlight.set(reclaims.inFlight().size());
  }

  // ---------------------------------------------------------------------------------------------------------------
  // What the status report reads

  synchronized StatusReport.Inputs statusInputs() {
    forgetFinished();
    return new StatusReport.Inputs(rounds, lastRoundLatencyMs, reader.nodes(), owners::owns, reclaims.fencedNodes(),
        apps.all(), book, lastInput, lastPlan, reclaims.inFlight(), reclaims.finished(), drains.size(),
        recovery.status(), deposed);
  }
}
