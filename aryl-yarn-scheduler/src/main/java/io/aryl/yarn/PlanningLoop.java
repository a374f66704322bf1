package io.aryl.yarn;

import io.aryl.core.RoundPlanner;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Plan;
import io.aryl.core.predict.HistoryPredictor;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.reclaim.ReclaimPlan;
import io.aryl.core.reclaim.ReclaimPlanner;
import io.aryl.core.reclaim.ReclaimRequest;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.reclaim.ReclaimTracker;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.JobProgress;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.round.ShrinkChooser;
import io.aryl.yarn.round.SnapshotTranslator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rounds: every interval, read the ResourceManager, plan with aryl-core, publish the promises the allocation path
 * enforces, start shrinks, and move reclaims forward. One thread; reclaim requests from the web join it under the
 * same lock.
 */
final class PlanningLoop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PlanningLoop.class);

  private final ArylScheduler scheduler;
  private final ArylSettings settings;
  private final ElasticApps apps;
  private final ArylMetrics metrics;
  private final RmReader reader;
  private final SnapshotTranslator translator;
  private final RoundPlanner planner;
  private final ReclaimCostModel costs;
  private final ReclaimPlanner reclaimPlanner;
  private final ReclaimTracker reclaims = new ReclaimTracker();
  private final Drains drains = new Drains();
  private final Set<String> inferenceOwned = ConcurrentHashMap.newKeySet();
  private final HistoryPredictor history = new HistoryPredictor();
  private final long startMs = System.currentTimeMillis();
  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "aryl-planning-loop");
    t.setDaemon(true);
    return t;
  });

  private volatile PlanBook book = PlanBook.EMPTY;
  /** Rack of every node by scheduler node name, and node name by node id; refreshed each round. */
  private volatile Map<String, String> racks = Map.of();
  private volatile Map<NodeId, String> names = Map.of();
  private final java.util.concurrent.atomic.AtomicBoolean roundRequested = new java.util.concurrent.atomic.AtomicBoolean();
  /** New demand no round has planned for yet. */
  private final java.util.concurrent.atomic.AtomicBoolean demandPending = new java.util.concurrent.atomic.AtomicBoolean();
  private volatile Set<String> fenced = Set.of();
  private final Map<String, JobProgress> progress = new HashMap<>();
  private final Map<String, Integer> lastWorkers = new HashMap<>();
  /** Reclaim/job pairs already charged a shrink's cost. */
  private final Set<String> shrinkCharged = new HashSet<>();
  private long lastRoundMs = -1;
  private long rounds;
  private Plan lastPlan;
  private RoundInput lastInput;
  private double lastRoundLatencyMs;

  PlanningLoop(ArylScheduler scheduler, ArylSettings settings, ElasticApps apps, ArylMetrics metrics) {
    this.scheduler = scheduler;
    this.settings = settings;
    this.apps = apps;
    this.metrics = metrics;
    this.reader = new RmReader(scheduler, apps, settings.trainingQueue());
    this.translator = new SnapshotTranslator(settings.trainingLabel(), GpuType.of(settings.gpuType()), this::ownedByInference);
    this.planner = new RoundPlanner(settings.policy());
    this.costs = new ReclaimCostModel(ReclaimCostModel.defaults().restartOverheadS(), settings.policy().rescaleOverheadS());
    this.reclaimPlanner = new ReclaimPlanner(costs);
  }

  void start() {
    thread.scheduleWithFixedDelay(this::roundSafely, settings.roundIntervalMs(), settings.roundIntervalMs(),
        TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }

  PlanBook book() {
    return book;
  }

  String rackOf(String nodeName) {
    return racks.get(nodeName);
  }

  String nodeNameOf(NodeId id) {
    String n = names.get(id);
    if (n == null) {
      FiCaSchedulerNode node = scheduler.getNode(id);
      n = node == null ? null : node.getNodeName();
    }
    return n;
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
      } catch (java.util.concurrent.RejectedExecutionException e) {
        roundRequested.set(false); // shutting down
      }
    }
  }

  Set<String> fenced() {
    return fenced;
  }

  boolean ownedByInference(String nodeName) {
    return inferenceOwned.contains(nodeName) || settings.configuredAsInference(nodeName);
  }

  /** Remembers nodes seen in the inference pool: they stay inference's when lent to training. */
  void observeLabel(String nodeName, String label) {
    if (settings.inferenceLabel().equals(label)) {
      inferenceOwned.add(nodeName);
    }
  }

  void applicationFinished(String appId, boolean succeeded) {
    synchronized (this) {
      JobProgress p = progress.remove(appId);
      lastWorkers.remove(appId);
      if (succeeded && p != null && settings.predictor() == ArylSettings.Predictor.HISTORY) {
        apps.get(appId).ifPresent(a -> history.observe(a.shape.kind(), p.attainedBaseS()));
      }
    }
  }

  private void roundSafely() {
    try {
      round();
    } catch (RuntimeException | LinkageError e) {
      // A round that fails leaves the last promises in place; the next one starts from the RM's state again. Anything
      // escaping here would cancel every later round silently, so errors are logged and the loop goes on.
      LOG.error("Aryl planning round failed", e);
    }
  }

  /**
   * Runs a round now if demand arrived since the last one: called before a node heartbeat allocates, so that the
   * heartbeat already serves the new grants instead of the next one.
   */
  void roundIfDemandPending() {
    if (demandPending.get()) {
      synchronized (this) {
        if (demandPending.get()) {
          roundSafely();
        }
      }
    }
  }

  synchronized void round() {
    demandPending.set(false);
    long t0 = System.nanoTime();
    long now = System.currentTimeMillis();
    List<NodeView> nodes = reader.nodes();
    nodes.forEach(n -> observeLabel(n.id(), n.label()));
    indexNodes();
    Map<String, AppView> views = reader.elasticApps(startMs);
    updateProgress(views, nodes, now);
    drains.retainOnly(liveContainerIds(nodes));
    fenced = reclaims.fencedNodes();

    RoundInput input = translate(nodes, views, now);
    Plan plan = planner.plan(input.state());
    PlanBook previous = book;
    book = new PlanBook(plan.targets(), ++rounds);
    scheduler.pushGrants(changedTargets(previous, book));
    lastPlan = plan;
    lastInput = input;

    List<ContainerView> shrink = new ArrayList<>(ShrinkChooser.choose(input, plan));
    shrink.addAll(input.orphans());
    for (ContainerView c : shrink) {
      if (drain(c, now + settings.shrinkGraceMs())) {
        metrics.containersShrunk.incr();
        metrics.gpuSecondsLost.incr(Math.round(c.gpus() * costs.rescaleOverheadS()));
      }
    }
    advanceReclaims(nodes, now);
    for (RMContainer c : drains.due(now)) {
      scheduler.getRMContext().getDispatcher().getEventHandler().handle(new ContainerPreemptEvent(
          c.getApplicationAttemptId(), c, SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE));
    }
    updateLoanMetrics(nodes);
    lastRoundLatencyMs = (System.nanoTime() - t0) / 1e6;
    metrics.planningRound.add((System.nanoTime() - t0) / 1_000_000);
  }

  private static Set<String> changedTargets(PlanBook before, PlanBook after) {
    Set<String> out = new HashSet<>();
    after.targets().forEach((app, alloc) -> {
      if (!alloc.equals(before.target(app))) {
        out.add(app);
      }
    });
    before.targets().keySet().forEach(app -> {
      if (!after.admitted(app)) {
        out.add(app);
      }
    });
    return out;
  }

  private void indexNodes() {
    Map<String, String> r = new HashMap<>();
    Map<NodeId, String> n = new HashMap<>();
    for (FiCaSchedulerNode node : scheduler.getNodeTracker().getAllNodes()) {
      r.put(node.getNodeName(), node.getRackName());
      n.put(node.getNodeID(), node.getNodeName());
    }
    racks = r;
    names = n;
  }

  private RoundInput translate(List<NodeView> nodes, Map<String, AppView> views, long now) {
    Map<String, JobProgress> p = new HashMap<>(progress);
    if (settings.predictor() == ArylSettings.Predictor.HISTORY) {
      // Progress stays measured; the history predictor only replaces the runtime a job's tag announced.
      views = withHistoryRuntimes(views);
    }
    return translator.translate((now - startMs) / 1000.0, nodes, views, book, drains.ids(), fenced, p);
  }

  private Map<String, AppView> withHistoryRuntimes(Map<String, AppView> views) {
    Map<String, AppView> out = new TreeMap<>();
    views.forEach((id, v) -> {
      String kind = v.shape().kind();
      if (kind.isEmpty() || history.samples(kind) < HistoryPredictor.DEFAULT_MIN_SAMPLES) {
        out.put(id, v);
      } else {
        ElasticShape s = v.shape();
        out.put(id, new AppView(id, new ElasticShape(s.minWorkers(), s.maxWorkers(), s.gpusPerWorker(),
            history.expectedTotalS(kind), kind), v.submitS(), v.askedWorkers()));
      }
    });
    return out;
  }

  private void updateProgress(Map<String, AppView> views, List<NodeView> nodes, long now) {
    Map<String, Integer> live = new HashMap<>();
    for (NodeView n : nodes) {
      for (ContainerView c : n.containers()) {
        if (!c.amContainer() && views.containsKey(c.appId())) {
          live.merge(c.appId(), 1, Integer::sum);
        }
      }
    }
    double dt = lastRoundMs < 0 ? 0 : (now - lastRoundMs) / 1000.0;
    lastRoundMs = now;
    for (AppView v : views.values()) {
      int w = live.getOrDefault(v.id(), 0);
      JobProgress p = progress.getOrDefault(v.id(), JobProgress.NONE);
      double attained = p.attainedBaseS() + (w >= v.shape().minWorkers() ? dt * w / v.shape().minWorkers() : 0);
      Integer before = lastWorkers.put(v.id(), w);
      double sinceChange = before != null && before == w ? p.sinceChangeS() + dt : 0;
      progress.put(v.id(), new JobProgress(attained, sinceChange));
    }
  }

  private static Set<String> liveContainerIds(List<NodeView> nodes) {
    Set<String> ids = new HashSet<>();
    nodes.forEach(n -> n.containers().forEach(c -> ids.add(c.id())));
    return ids;
  }

  /** Marks the container for preemption (the ApplicationMaster is told) and schedules its kill. */
  private boolean drain(ContainerView c, long killAtMs) {
    RMContainer rc = scheduler.getRMContainer(org.apache.hadoop.yarn.api.records.ContainerId.fromString(c.id()));
    if (rc == null) {
      return false;
    }
    boolean fresh = drains.add(rc, killAtMs);
    if (fresh) {
      scheduler.getRMContext().getDispatcher().getEventHandler().handle(new ContainerPreemptEvent(
          rc.getApplicationAttemptId(), rc, SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION));
    }
    return fresh;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Reclaims

  /**
   * Starts returning {@code servers} loaned nodes to inference by {@code deadlineMs} (0 = the default deadline).
   *
   * @throws IllegalArgumentException when not enough nodes are on loan
   */
  synchronized Reclaim requestReclaim(int servers, String gpuType, long deadlineMs) {
    long now = System.currentTimeMillis();
    List<NodeView> nodes = reader.nodes();
    nodes.forEach(n -> observeLabel(n.id(), n.label()));
    fenced = reclaims.fencedNodes();
    RoundInput input = translate(nodes, reader.elasticApps(startMs), now);
    ReclaimPlan plan = reclaimPlanner.plan(input.state(), new ReclaimRequest(servers, gpuType));
    if (!plan.isFeasible()) {
      throw new IllegalArgumentException("reclaim of " + servers + " node(s) refused: " + plan.infeasibleReason().get());
    }
    long deadline = deadlineMs > 0 ? deadlineMs : now + settings.reclaimDeadlineMs();
    Reclaim r = reclaims.start(plan, now, deadline);
    fenced = reclaims.fencedNodes();
    metrics.reclaimsStarted.incr();
    LOG.info("Aryl reclaim {} started: nodes {}, deadline in {} ms, planned cost {} GPU-s, jobs {}", r.id(),
        r.nodes(), deadline - now, Math.round(plan.costGpuS()), r.jobActions());
    advanceReclaims(nodes, now);
    return r;
  }

  private void advanceReclaims(List<NodeView> nodes, long now) {
    Map<String, NodeView> byId = new HashMap<>();
    nodes.forEach(n -> byId.put(n.id(), n));
    for (Reclaim r : reclaims.inFlight()) {
      long killAt = Math.max(now, Math.min(now + settings.shrinkGraceMs(), r.deadlineMs() - settings.roundIntervalMs()));
      for (String nodeId : r.pendingNodes()) {
        NodeView n = byId.get(nodeId);
        if (n == null) {
          finishNode(r, nodeId, now); // the node left the cluster: nothing to return
          continue;
        }
        if (n.isEmpty()) {
          relabelIfIdle(r, nodeId, now);
          continue;
        }
        for (ContainerView c : n.containers()) {
          String action = apps.isElastic(c.appId()) && !c.amContainer() ? r.jobActions().getOrDefault(c.appId(), "PREEMPT")
              : "PREEMPT";
          if (action.equals("SHRINK")) {
            if (drain(c, killAt) && recordShrunk(r, c, nodes)) {
              metrics.containersShrunk.incr();
            }
          } else if (apps.isElastic(c.appId()) && !c.amContainer()) {
            preemptJob(r, c.appId(), nodes, killAt);
          } else if (drain(c, killAt) && recordPreempted(r, c)) {
            metrics.containersPreempted.incr();
          }
        }
      }
    }
    fenced = reclaims.fencedNodes();
    metrics.reclaimsInFlight.set(reclaims.inFlight().size());
  }

  /** A job that falls below its minimum stops as a whole: every worker of it drains, wherever it runs. */
  private void preemptJob(Reclaim r, String appId, List<NodeView> nodes, long killAt) {
    for (NodeView n : nodes) {
      for (ContainerView c : n.containers()) {
        if (c.appId().equals(appId) && !c.amContainer() && drain(c, killAt) && recordPreempted(r, c)) {
          metrics.containersPreempted.incr();
        }
      }
    }
  }

  /**
   * A shrink pauses every GPU of the job while it re-forms its group (the cost model's shrink cost), so the job is
   * charged once per reclaim, with its first shrunk container.
   */
  private boolean recordShrunk(Reclaim r, ContainerView c, List<NodeView> nodes) {
    boolean firstOfJob = shrinkCharged.add(r.id() + "/" + c.appId());
    double lost = firstOfJob ? jobGpus(c.appId(), nodes) * costs.rescaleOverheadS() : 0;
    boolean fresh = reclaims.recordShrunk(r, c.id(), lost);
    if (fresh) {
      metrics.gpuSecondsLost.incr(Math.round(lost));
    }
    return fresh;
  }

  private static int jobGpus(String appId, List<NodeView> nodes) {
    int gpus = 0;
    for (NodeView n : nodes) {
      for (ContainerView c : n.containers()) {
        if (c.appId().equals(appId) && !c.amContainer()) {
          gpus += c.gpus();
        }
      }
    }
    return gpus;
  }

  private boolean recordPreempted(Reclaim r, ContainerView c) {
    double since = progress.getOrDefault(c.appId(), JobProgress.NONE).sinceChangeS();
    double lost = c.gpus() * (since + costs.restartOverheadS());
    boolean fresh = reclaims.recordPreempted(r, c.id(), lost);
    if (fresh) {
      metrics.gpuSecondsLost.incr(Math.round(lost));
    }
    return fresh;
  }

  /** Relabels a node to inference, but only when the scheduler itself says nothing runs there. */
  private void relabelIfIdle(Reclaim r, String nodeId, long now) {
    FiCaSchedulerNode node = findNode(nodeId);
    if (node == null) {
      finishNode(r, nodeId, now);
      return;
    }
    if (node.getNumContainers() > 0 || node.getReservedContainer() != null) {
      return; // relabelling would not stop what runs there; wait for the drain
    }
    NodeId id = node.getNodeID();
    try {
      scheduler.getRMContext().getNodeLabelManager().replaceLabelsOnNode(Map.of(id, Set.of(settings.inferenceLabel())));
    } catch (IOException e) {
      LOG.warn("Aryl reclaim {}: relabelling {} failed, will retry: {}", r.id(), nodeId, e.toString());
      return;
    }
    inferenceOwned.add(nodeId);
    finishNode(r, nodeId, now);
  }

  private void finishNode(Reclaim r, String nodeId, long now) {
    reclaims.nodeReturned(r, nodeId, now);
    if (r.phase() == Reclaim.Phase.DONE) {
      shrinkCharged.removeIf(k -> k.startsWith(r.id() + "/"));
      metrics.reclaimsFinished.incr();
      if (r.late()) {
        metrics.reclaimsLate.incr();
      }
      LOG.info("Aryl reclaim {} done in {} ms{}: nodes {}, {} containers shrunk, {} preempted, {} GPU-s lost", r.id(),
          r.tookMs(), r.late() ? " (LATE)" : "", r.nodes(), r.containersShrunk(), r.containersPreempted(),
          Math.round(r.gpuSecondsLost()));
    }
  }

  private FiCaSchedulerNode findNode(String nodeName) {
    for (FiCaSchedulerNode n : scheduler.getNodeTracker().getAllNodes()) {
      if (n.getNodeName().equals(nodeName)) {
        return n;
      }
    }
    return null;
  }

  private void updateLoanMetrics(List<NodeView> nodes) {
    int loaned = 0;
    int gpus = 0;
    for (NodeView n : nodes) {
      if (settings.trainingLabel().equals(n.label()) && ownedByInference(n.id())) {
        loaned++;
        gpus += n.gpus();
      }
    }
    metrics.loanedNodes.set(loaned);
    metrics.loanedGpus.set(gpus);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Status, for the REST resource

  synchronized Map<String, Object> status() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("enabled", true);
    out.put("round", rounds);
    out.put("roundLatencyMs", lastRoundLatencyMs);
    List<Map<String, Object>> loaned = new ArrayList<>();
    List<Map<String, Object>> pools = new ArrayList<>();
    Set<String> fencedNow = fenced;
    for (NodeView n : reader.nodes()) {
      boolean owned = ownedByInference(n.id());
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("node", n.id());
      node.put("label", n.label());
      node.put("gpus", n.gpus());
      node.put("usedGpus", n.containers().stream().mapToInt(ContainerView::gpus).sum());
      node.put("owner", owned ? "inference" : "training");
      node.put("loaned", owned && settings.trainingLabel().equals(n.label()));
      node.put("fenced", fencedNow.contains(n.id()));
      pools.add(node);
      if (Boolean.TRUE.equals(node.get("loaned"))) {
        loaned.add(node);
      }
    }
    out.put("nodes", pools);
    out.put("loanedNodes", loaned);
    List<Map<String, Object>> jobs = new ArrayList<>();
    for (ElasticApps.App a : apps.all()) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("application", a.id);
      j.put("minWorkers", a.shape.minWorkers());
      j.put("maxWorkers", a.shape.maxWorkers());
      j.put("gpusPerWorker", a.shape.gpusPerWorker());
      j.put("predictedRuntimeS", a.shape.predictedRuntimeS());
      Allocation target = book.target(a.id);
      j.put("targetWorkers", target.totalWorkers());
      j.put("targetByNode", target.workersByServer());
      j.put("actualWorkers", lastInput == null ? 0 : lastInput.liveWorkers(a.id));
      j.put("askedWorkers", a.askedWorkers());
      j.put("change", lastPlan == null || lastPlan.changes().get(a.id) == null ? "NONE" : lastPlan.changes().get(a.id).name());
      jobs.add(j);
    }
    out.put("applications", jobs);
    Map<String, Object> plan = new LinkedHashMap<>();
    if (lastPlan != null) {
      Map<String, Object> targets = new TreeMap<>();
      lastPlan.targets().forEach((id, alloc) -> targets.put(id, alloc.workersByServer()));
      plan.put("targets", targets);
      Map<String, String> changes = new TreeMap<>();
      lastPlan.changes().forEach((id, c) -> changes.put(id, c.name()));
      plan.put("changes", changes);
    }
    out.put("plan", plan);
    out.put("reclaimsInFlight", reclaims.inFlight().stream().map(PlanningLoop::describe).toList());
    out.put("reclaimsDone", reclaims.finished().stream().map(PlanningLoop::describe).toList());
    out.put("drainingContainers", drains.size());
    return out;
  }

  static Map<String, Object> describe(Reclaim r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", r.id());
    m.put("phase", r.phase().name());
    m.put("nodes", r.nodes());
    m.put("returnedNodes", r.returnedNodes());
    m.put("requestedMs", r.requestedMs());
    m.put("deadlineMs", r.deadlineMs());
    m.put("finishedMs", r.finishedMs());
    m.put("tookMs", r.tookMs());
    m.put("late", r.phase() == Reclaim.Phase.DONE && r.late());
    m.put("jobs", r.jobActions());
    m.put("containersShrunk", r.containersShrunk());
    m.put("containersPreempted", r.containersPreempted());
    m.put("plannedCostGpuS", Math.round(r.plannedCostGpuS()));
    m.put("gpuSecondsLost", Math.round(r.gpuSecondsLost()));
    return m;
  }
}
