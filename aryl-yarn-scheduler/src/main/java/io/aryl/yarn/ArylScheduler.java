package io.aryl.yarn;

import io.aryl.api.conf.PoolConf;
import io.aryl.api.reclaim.ReclaimRequest;
import io.aryl.api.status.HistorySample;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import io.aryl.yarn.engine.Lifecycle;
import io.aryl.yarn.engine.Promises;
import io.aryl.yarn.state.CorruptStateException;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.StateStore;
import io.aryl.yarn.state.StateStores;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AbstractLeafQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.NodeScopedCapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ResourceCommitRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeLabelsUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Capacity Scheduler with Aryl's policy: gang admission of base workers, elastic extras by knapsack,
 * best-fit-decreasing placement, loaned inference nodes, and least-cost reclaims. Set
 * {@code yarn.resourcemanager.scheduler.class} to this class; {@code aryl.scheduler.enabled=false} makes it the stock
 * Capacity Scheduler again.
 *
 * <p>Only a few hooks are overridden; the decisions live in aryl-core and the small classes of this package:
 * {@link PlanningLoop} (rounds, shrinks, reclaims), {@link AllocationGate} (asks and proposals), {@link ElasticApps},
 * {@link SubmissionAdmission} and {@link SubmissionCheck} (what a job's shape must meet in its queue),
 * {@link PoolLabels} (what the pools need before the start), {@link NodeOffers} (to whom a node is offered).
 */
public class ArylScheduler extends NodeScopedCapacityScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(ArylScheduler.class);

  private ArylSettings settings = ArylSettings.defaults();
  private final ElasticApps apps = new ElasticApps();
  private final NodeOffers offers = new NodeOffers(apps);
  /** Whether a node with nothing promised has anyone to be offered to: scans re-checked every 20 ms, at most 1 s old. */
  private final UnplannedDemand unplanned = new UnplannedDemand(this::unplannedAsking, System::nanoTime, 20, 1_000);
  /** How often each node's containers changed; counted whether Aryl is on or not yet. */
  private final NodeChangeCounts nodeChanges = new NodeChangeCounts();
  /** Where Aryl stands in this ResourceManager: off, standby, recovering, active, deposed or stopped. */
  private final Lifecycle lifecycle = new Lifecycle();
  private ArylMetrics metrics;
  private StateStore store;
  private DurableState state;
  /** Set once, when this scheduler becomes active (RECOVERING): what the lifecycle says runs. */
  private volatile PlanningLoop loop;
  private volatile AllocationGate gate;
  /** What a job's shape must meet in its queue; its caps are re-read with the queues. */
  private SubmissionCheck submissions;
  /** Null when Aryl is off. */
  private SubmissionAdmission admission;
  /** The charts' samples; this ResourceManager's memory only, bounded. */
  private final StatusHistory history = new StatusHistory();

  @Override
  public void serviceInit(Configuration conf) throws Exception {
    super.serviceInit(conf);
    settings = readSettings(conf);
    if (!settings.enabled()) {
      lifecycle.move(Lifecycle.State.NEW, Lifecycle.State.OFF);
      LOG.info("Aryl is off ({}=false): scheduling as the stock CapacityScheduler", ArylConf.ENABLED.key());
      return;
    }
    PoolLabels.checkQueues(conf, settings, this::getQueue);
    try {
      submissions = new SubmissionCheck(settings, this::getQueue,
          () -> RmReader.gpus(getMaximumResourceCapability()));
      submissions.readCaps(getConfiguration());
    } catch (IllegalArgumentException e) {
      throw new YarnRuntimeException("Aryl configuration: " + e.getMessage(), e);
    }
    admission = new SubmissionAdmission(this::getRMContext, apps, submissions);
    metrics = ArylMetrics.register(settings.metricsQuantileWindowS());
    if (settings.webappNavLink()) {
      // The RM's own configuration object: its web app is set up from it after the scheduler is initialised.
      io.aryl.yarn.web.ArylNavLink.install(conf);
    }
    lifecycle.move(Lifecycle.State.NEW, Lifecycle.State.STANDBY);
  }

  /**
   * Runs when this ResourceManager becomes active (a standby initialises its scheduler but starts it only on
   * failover): claims Aryl's state store, fencing any earlier active scheduler, and resumes from what it holds.
   */
  @Override
  public void serviceStart() throws Exception {
    super.serviceStart();
    if (lifecycle.get() != Lifecycle.State.STANDBY) {
      return; // off
    }
    PoolLabels.ensureExclusive(getRMContext().getNodeLabelManager(), settings);
    store = StateStores.open(settings, getConfig(), getRMContext().getResourceManager());
    try {
      state = DurableState.open(store, System.currentTimeMillis());
    } catch (CorruptStateException e) {
      throw new YarnRuntimeException(e.getMessage(), e);
    } catch (IOException e) {
      throw new YarnRuntimeException("Aryl could not read its state at " + store.kind() + " " + store.location()
          + ": " + e.getMessage() + " (" + ArylConf.STATE_STORE.key() + ")", e);
    }
    PlanningLoop started;
    try {
      started = new PlanningLoop(this, settings, lifecycle, apps, metrics, state);
    } catch (CorruptStateException e) {
      throw new YarnRuntimeException(e.getMessage(), e);
    }
    loop = started;
    gate = new AllocationGate(apps, started, this::labelOf);
    offerAdmittedOutsideHeartbeats();
    lifecycle.move(Lifecycle.State.STANDBY, Lifecycle.State.RECOVERING); // the loop is in place for whoever asks
    started.start();
    LOG.info("Aryl started: pools {}={} and {}={}, round every {} ms, shrink grace {} ms, state in {} {} (epoch {})",
        settings.inferenceLabel(), settings.inferenceQueue(), settings.trainingLabel(), settings.trainingQueue(),
        settings.roundIntervalMs(), settings.shrinkGraceMs(), store.kind(), store.location(), state.epoch());
  }

  @Override
  public void serviceStop() throws Exception {
    lifecycle.stop();
    PlanningLoop l = loop;
    if (l != null) {
      l.close();
    }
    if (metrics != null) {
      ArylMetrics.unregister();
    }
    if (store != null) {
      store.close();
    }
    super.serviceStop();
  }

  static ArylSettings readSettings(Configuration conf) {
    Map<String, String> raw = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith(ArylConf.PREFIX) || e.getKey().startsWith(PoolConf.PREFIX)) {
        raw.put(e.getKey(), conf.get(e.getKey()));
      }
    }
    try {
      return ArylSettings.from(raw);
    } catch (IllegalArgumentException e) {
      throw new YarnRuntimeException("Aryl configuration: " + e.getMessage(), e);
    }
  }

  /**
   * Reloads the queues ({@code yarn rmadmin -refreshQueues}, a failover) and with them the per-queue caps. A wrong cap
   * fails the refresh with its key and value; the caps in force stay as they were.
   */
  @Override
  public void reinitialize(Configuration newConf, RMContext rmContext, boolean validation) throws IOException {
    super.reinitialize(newConf, rmContext, validation);
    if (loop != null && !validation) {
      offerAdmittedOutsideHeartbeats(); // the queues' ordering policies are new
    }
    if (submissions != null && !validation) {
      try {
        submissions.readCaps(getConfiguration());
      } catch (IllegalArgumentException e) {
        throw new IOException("Aryl configuration: " + e.getMessage() + " (the caps in force are unchanged: "
            + submissions.caps() + ")", e);
      }
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Hooks

  @Override
  public void handle(SchedulerEvent event) {
    if (submissions != null) { // Aryl is on
      switch (event.getType()) {
        case APP_ADDED -> {
          if (!admission.admit((AppAddedSchedulerEvent) event)) {
            return;
          }
        }
        case APP_REMOVED -> {
          AppRemovedSchedulerEvent e = (AppRemovedSchedulerEvent) event;
          String id = e.getApplicationID().toString();
          PlanningLoop l = loop;
          if (l != null) {
            l.applicationFinished(id, e.getFinalState() == RMAppState.FINISHED);
          }
          apps.remove(id);
        }
        default -> { }
      }
    }
    super.handle(event);
    switch (event.getType()) {
      case NODE_LABELS_UPDATE, NODE_RESOURCE_UPDATE, NODE_ATTRIBUTES_UPDATE -> nodeChanges.nodesChanged();
      default -> { }
    }
  }

  /** A move to another queue meets that queue's caps as a submission would ({@link SubmissionAdmission}). */
  @Override
  public void preValidateMoveApplication(ApplicationId appId, String newQueue) throws YarnException {
    super.preValidateMoveApplication(appId, newQueue);
    if (admission != null) {
      admission.checkMove(appId, newQueue);
    }
  }

  /** The scheduler node with this name, or null. */
  FiCaSchedulerNode nodeNamed(String nodeName) {
    PlanningLoop l = loop;
    FiCaSchedulerNode indexed = l == null ? null : l.nodeNamed(nodeName);
    if (indexed != null) {
      return indexed;
    }
    // Registered since the last round indexed the nodes: a scan, as rare as that.
    for (FiCaSchedulerNode n : getNodeTracker().getAllNodes()) {
      if (n.getNodeName().equals(nodeName)) {
        return n;
      }
    }
    return null;
  }

  /** The queues' ordering policies are new (start-up, a refresh): tell the plan-aware ones whom to offer nodes to. */
  private void offerAdmittedOutsideHeartbeats() {
    PlanningLoop l = loop;
    for (CSQueue q : getCapacitySchedulerQueueManager().getQueues().values()) {
      if (q instanceof AbstractLeafQueue leaf && leaf.getOrderingPolicy() instanceof PlanAwareOrderingPolicy<?> p) {
        p.offerOutsideHeartbeats(offers.anywhere(id -> l.book().admitted(id)));
      }
    }
  }

  @Override
  protected void nodeUpdate(org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode rmNode) {
    PlanningLoop loop = this.loop;
    if (loop != null) {
      loop.roundIfDemandPending();
    }
    FiCaSchedulerNode node = getNode(rmNode.getNodeID());
    int containers = node == null ? 0 : node.getNumContainers();
    super.nodeUpdate(rmNode); // what it allocates, it allocates through allocatingOn
    // A container the RM completed after it was launched stays on its node until the node reports it finished; the
    // heartbeat that does removes it there, after (and without) the container's completion.
    if (node != null && node.getNumContainers() != containers) {
      nodeChanges.changed(rmNode.getNodeID());
    }
  }

  /**
   * Every attempt to allocate on a node — in its heartbeat, on the asynchronous scheduling thread, on a promised
   * node — offers it to the plain applications, those waiting for their ApplicationMaster's container, and the
   * elastic ones the plan promised workers on that node ({@link NodeOffers#onNode}).
   *
   * <p>Why on the asynchronous thread too: that thread walks every node, offering each to the queue's applications in
   * turn until one takes a container. An admitted job asks only for its planned nodes, so offered any other one it
   * takes nothing, after its user limit, headroom and asks were computed all the same. Offered every node by every
   * admitted job, one step of the walk took milliseconds with hundreds of jobs admitted: under SLS at 5,000 nodes the
   * walk stepped through ~140 nodes a second, each step allocating at most one container, and ApplicationMasters
   * waited seconds for a step to reach them.
   */
  @Override
  protected <T> T allocatingOn(FiCaSchedulerNode node, java.util.function.Supplier<T> allocation) {
    PlanningLoop loop = this.loop;
    if (loop == null) {
      return allocation.get();
    }
    return PlanAwareOrderingPolicy.serving(offers.onNode(loop.promises().book().promisedOn(node.getNodeName())),
        allocation);
  }

  /**
   * A node on which the plan promised nothing is offered only to applications outside the plan ({@link NodeOffers});
   * while none of them asks for containers, there is no one to offer it to.
   */
  @Override
  protected boolean noOneToOffer(FiCaSchedulerNode node) {
    PlanningLoop loop = this.loop;
    return loop != null && loop.promises().book().promisedOn(node.getNodeName()).isEmpty()
        && !unplanned.mayBeAsking();
  }

  /** With Aryl on, an idle walk slows down; off, the scheduler is the stock one in this as in everything else. */
  @Override
  protected boolean pausesIdleWalk() {
    return loop != null;
  }

  /** Whether an application offered every node ({@link NodeOffers#offeredEveryNode}) has containers pending. */
  private boolean unplannedAsking() {
    for (SchedulerApplication<FiCaSchedulerApp> app : applications.values()) {
      FiCaSchedulerApp attempt = app.getCurrentAppAttempt();
      if (attempt != null && offers.offeredEveryNode(attempt)
          && !zero(attempt.getAppAttemptResourceUsage().getAllPending())) {
        return true;
      }
    }
    return false;
  }

  /** A container lost before its application took it brings its request back: someone may be asking again. */
  @Override
  public void completedContainer(RMContainer container, ContainerStatus status, RMContainerEventType event) {
    super.completedContainer(container, status, event);
    unplanned.changed();
  }

  /** Every container's end passes here, those of an attempt that ended too (which skip {@link #completedContainer}). */
  @Override
  protected void completedContainerInternal(RMContainer container, ContainerStatus status,
      RMContainerEventType event) {
    super.completedContainerInternal(container, status, event);
    nodeChanges.changed(container.getNodeId());
  }

  /** Containers a NodeManager reports after a restart of the ResourceManager, put back on their node. */
  @Override
  public void recoverContainersOnNode(List<NMContainerStatus> containerReports, RMNode node) {
    try {
      super.recoverContainersOnNode(containerReports, node);
    } finally {
      nodeChanges.changed(node.getNodeID());
    }
  }

  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release, List<String> blacklistAdditions,
      List<String> blacklistRemovals, ContainerUpdates updateRequests) {
    AllocationGate gate = this.gate;
    if (gate != null) {
      FiCaSchedulerApp attempt = getApplicationAttempt(attemptId);
      if (attempt != null && offers.offeredEveryNode(attempt)
          && (ask != null && !ask.isEmpty() || schedulingRequests != null && !schedulingRequests.isEmpty())) {
        unplanned.changed(); // before the asks are pending: a scan that missed them cannot clear them away
      }
      if (attempt != null && attempt.getApplicationAttemptId().equals(attemptId)) {
        ask = gate.asks(attempt, ask);
        Allocation allocation = super.allocate(attemptId, ask, schedulingRequests, release, blacklistAdditions,
            blacklistRemovals, updateRequests);
        gate.handedOver(attempt, allocation == null ? null : allocation.getContainers());
        return allocation;
      }
    }
    return super.allocate(attemptId, ask, schedulingRequests, release, blacklistAdditions, blacklistRemovals,
        updateRequests);
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public boolean tryCommit(Resource cluster, ResourceCommitRequest r, boolean updatePending) {
    AllocationGate gate = this.gate;
    ResourceCommitRequest<FiCaSchedulerApp, FiCaSchedulerNode> request = r;
    if (gate != null && !gate.accepts(request)) {
      // What super.tryCommit would have done for a refused proposal, or the app's unconfirmed counter leaks.
      if (request.getContainersToAllocate() != null && !request.getContainersToAllocate().isEmpty()) {
        request.getFirstAllocatedOrReservedContainer().getAllocatedOrReservedContainer()
            .getSchedulerApplicationAttempt().decUnconfirmedRes(request.getTotalAllocatedResource());
      }
      return false; // a node counted for nothing is only read again
    }
    AllocationGate.Allocating allocating = gate == null ? new AllocationGate.Allocating() : gate.allocating(request);
    boolean committed = true; // on an exception too: a node counted for nothing is only read again
    try {
      committed = commit(cluster, r, updatePending);
      return committed;
    } finally {
      if (committed) {
        nodeChanges.committed(r);
      }
      allocating.ended(committed); // after the node's change is counted: a round then reads the worker on it
    }
  }

  /** The Capacity Scheduler's own commit, once the gate passed the request; tests read the RM in between. */
  @SuppressWarnings("rawtypes")
  boolean commit(Resource cluster, ResourceCommitRequest r, boolean updatePending) {
    return super.tryCommit(cluster, r, updatePending);
  }

  /** How many times each node's containers changed: what the planning loop reads again. */
  NodeChangeCounts nodeChanges() {
    return nodeChanges;
  }

  /** The node's label in the label manager now: "" for the default partition. */
  private String labelOf(NodeId node) {
    Set<String> labels = getRMContext().getNodeLabelManager().getLabelsOnNode(node);
    return labels.isEmpty() ? "" : labels.iterator().next();
  }

  /**
   * Hands a new round's grants to the Capacity Scheduler at once, as the application's next heartbeat would: without
   * this, a job admitted now would wait for its ApplicationMaster's next heartbeat before any node could take it.
   */
  void pushGrants(Set<String> appIds) {
    for (String id : appIds) {
      var sa = getSchedulerApplications().get(ApplicationId.fromString(id));
      FiCaSchedulerApp attempt = sa == null ? null : sa.getCurrentAppAttempt();
      if (attempt == null || attempt.isWaitingForAMContainer()) {
        continue;
      }
      List<ResourceRequest> asks = new java.util.ArrayList<>(gate.asks(attempt, List.of()));
      normalizeResourceRequests(asks);
      boolean updated;
      attempt.getWriteLock().lock();
      try {
        updated = !attempt.isStopped() && attempt.updateResourceRequests(asks);
      } finally {
        attempt.getWriteLock().unlock();
      }
      if (updated && attempt.getQueue() instanceof org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity
          .AbstractLeafQueue q) {
        q.getOrderingPolicy().demandUpdated(attempt);
      }
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // For the REST resource, operators and tests

  /** The settings in force. */
  public ArylSettings settings() {
    return settings;
  }

  /** Whether Aryl runs in this scheduler now: active, or recovering after it became active. */
  public boolean arylEnabled() {
    return lifecycle.running();
  }

  /** Where Aryl stands in this ResourceManager. */
  public Lifecycle.State lifecycle() {
    return lifecycle.get();
  }

  /** Aryl's durable state, or null before this scheduler became active. */
  public DurableState durableState() {
    return state;
  }

  /** The metrics source, or null when Aryl is off. */
  public ArylMetrics metrics() {
    return metrics;
  }

  /** Runs one planning round now (the loop also runs them on its own). */
  public void runRound() {
    requireEnabled().round();
  }

  /**
   * {@code GET /ws/v1/cluster/aryl}: plan, nodes and loans, applications' target vs actual workers, reclaims, and the
   * loan controller's target in force; {@link SchedulerStatus#disabled()} while Aryl does not run here.
   */
  public SchedulerStatus arylStatus() {
    PlanningLoop l = loop;
    if (l == null) {
      return SchedulerStatus.disabled();
    }
    return StatusReport.of(l.statusInputs(), settings, store, state.epoch());
  }

  /** The last hours of loaned nodes, queued jobs and GPUs used, one sample a minute (for Aryl's page). */
  public StatusHistory history() {
    return history;
  }

  /** After a planning round: keeps a sample of the status for the charts when one is due (once a minute). */
  void sampleHistory(long nowMs) {
    PlanningLoop l = loop;
    if (l != null && history.due(nowMs)) {
      history.add(HistorySample.of(nowMs, StatusReport.of(l.statusInputs(), settings, store, state.epoch())));
    }
  }

  /**
   * Lends the named inference nodes to training now, as an operator asked: each must be at home with nothing running
   * on it; they are stored as being lent, then relabelled.
   *
   * @throws IllegalArgumentException naming a node that cannot be lent, and why
   * @throws IllegalStateException while a loan controller's target decides what is lent
   * @throws ArylUnavailableException while recovering, or when the loan cannot be stored
   */
  public io.aryl.api.loan.LendAnswer lend(List<String> nodes) {
    return requireEnabled().lend(nodes);
  }

  /**
   * Puts the loan controller's target in force once stored: how many inference nodes may be on loan, by when the
   * ones above must be back. Rounds lend idle inference nodes and reclaim lent ones to meet it.
   *
   * @throws StaleEpochException when a controller of a newer epoch set the target in force
   * @throws IllegalArgumentException for a value out of range, naming it
   * @throws ArylUnavailableException when it cannot be stored
   */
  public io.aryl.api.loan.LoanTargetAccepted acceptLoanTarget(io.aryl.api.loan.LoanTarget target) {
    PlanningLoop l = requireEnabled();
    io.aryl.yarn.engine.RoundEngine engine = l.engine();
    engine.acceptLoanTarget(target.epoch(), target.controller(), target.maxOnLoan(), target.returnByMs(),
        target.decidedMs(), target.reason(), System.currentTimeMillis());
    l.requestRound(); // lend or reclaim now, not at the next tick
    var status = engine.status();
    return new io.aryl.api.loan.LoanTargetAccepted(status.loanTarget(), status.places().size(),
        lifecycle.get() == Lifecycle.State.RECOVERING);
  }

  /**
   * Returns {@code nodes} loaned nodes to inference: the least-cost ones are fenced, drained, and relabelled.
   *
   * @return the reclaim (id, nodes, jobs affected), as the status lists it
   * @throws IllegalArgumentException if fewer nodes are on loan
   * @throws ArylUnavailableException while Aryl recovers after becoming active, or cannot store the reclaim
   */
  public ReclaimStatus requestReclaim(ReclaimRequest request) {
    return StatusReport.reclaim(requireEnabled().requestReclaim(request.nodes(), request.gpuType(),
        request.deadlineMs()));
  }

  private PlanningLoop requireEnabled() {
    PlanningLoop l = loop;
    return switch (lifecycle.get()) {
      case OFF -> throw new IllegalStateException("Aryl is off (" + ArylConf.ENABLED.key() + "=false)");
      case NEW, STANDBY, STOPPED -> throw new IllegalStateException("Aryl is not active in this ResourceManager");
      case RECOVERING, ACTIVE, DEPOSED -> l;
    };
  }
}
