package io.aryl.yarn.rm;

import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.engine.Lifecycle;
import io.aryl.yarn.state.CorruptStateException;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.StateStore;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ResourceCommitRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aryl inside one ResourceManager: the parts the scheduler's hooks hand over to, made when the
 * scheduler is initialised with Aryl on ({@link #init}) and started when this ResourceManager
 * becomes active ({@link #start}). It holds the applications Aryl knows, to whom nodes are offered
 * ({@link PlanAwareOffers}), the submission checks, the metrics, and once started the state store
 * ({@link ArylStore}), the rounds ({@link RoundRunner}) and the allocation path's checks ({@link
 * AllocationGate}, {@link AskLedger}, {@link ProposalCheck}).
 *
 * <p>{@link ArylOperations} is its face to the REST resource, operators and tests.
 */
public final class ArylRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(ArylRuntime.class);

  private final CapacityScheduler scheduler;
  private final ArylSettings settings;
  private final Lifecycle lifecycle;

  /** The Capacity Scheduler's own normalisation of asks, which it keeps to its subclasses. */
  private final Consumer<List<ResourceRequest>> normalize;

  private final NodeChangeCounts nodeChanges;
  private final ElasticApps apps = new ElasticApps();

  /** What plain applications' asks counted again: read by the rounds, written by heartbeats. */
  private final PlainAsks plainAsks = new PlainAsks();

  private final PlanAwareOffers offers;
  private final SubmissionCheck submissions;
  private final SubmissionAdmission admission;
  private final ArylMetrics metrics;
  private final StatusHistory history = new StatusHistory();

  /** Set once, when this ResourceManager becomes active: closed at the stop. */
  private volatile ArylStore store;

  /** Set once, when this ResourceManager becomes active. */
  private volatile RoundRunner runner;

  /**
   * The allocation path's checks, set once after the runner: what a heartbeat passes on, the asks
   * it grants from, and whether a proposal may be committed.
   */
  private record AllocationPath(AllocationGate gate, AskLedger ledger, ProposalCheck proposals) {}

  private volatile AllocationPath path;

  private ArylRuntime(
      CapacityScheduler scheduler,
      ArylSettings settings,
      Lifecycle lifecycle,
      NodeChangeCounts nodeChanges,
      Consumer<List<ResourceRequest>> normalize) {
    this.scheduler = scheduler;
    this.settings = settings;
    this.lifecycle = lifecycle;
    this.nodeChanges = nodeChanges;
    this.normalize = normalize;
    this.offers = new PlanAwareOffers(scheduler, apps);
    this.submissions =
        new SubmissionCheck(
            settings,
            scheduler::getQueue,
            () -> RmReader.gpus(scheduler.getMaximumResourceCapability()));
    this.admission = new SubmissionAdmission(scheduler::getRMContext, apps, submissions);
    this.metrics = ArylMetrics.register(settings.metricsQuantileWindowS());
  }

  /**
   * Aryl on a Capacity Scheduler that was just initialised: its queues are checked against the
   * pools, and the caps of every queue read; a wrong one stops the start, naming the key and the
   * value.
   *
   * @param nodeChanges the scheduler's count of each node's container changes (counted whether Aryl
   *     runs or not)
   * @param normalize the Capacity Scheduler's own normalisation of asks
   */
  public static ArylRuntime init(
      CapacityScheduler scheduler,
      Configuration conf,
      ArylSettings settings,
      Lifecycle lifecycle,
      NodeChangeCounts nodeChanges,
      Consumer<List<ResourceRequest>> normalize) {
    PoolLabels.checkQueues(conf, settings, scheduler::getQueue);
    ArylRuntime runtime;
    try {
      runtime = new ArylRuntime(scheduler, settings, lifecycle, nodeChanges, normalize);
      runtime.submissions.readCaps(scheduler.getConfiguration());
    } catch (IllegalArgumentException e) {
      ArylMetrics.unregister();
      throw new YarnRuntimeException("Aryl configuration: " + e.getMessage(), e);
    }
    return runtime;
  }

  /**
   * Runs when this ResourceManager becomes active (a standby initialises its scheduler but starts
   * it only on failover): claims Aryl's state store, fencing any earlier active scheduler, and
   * resumes from what it holds.
   */
  public void start() throws IOException {
    PoolLabels.ensureExclusive(scheduler.getRMContext().getNodeLabelManager(), settings);
    store =
        ArylStore.open(
            settings, scheduler.getConfig(), scheduler.getRMContext().getResourceManager());
    DurableState state = store.claim();
    RoundRunner started;
    try {
      started =
          new RoundRunner(
              scheduler,
              settings,
              lifecycle,
              apps,
              plainAsks,
              metrics,
              state,
              nodeChanges,
              this::pushGrants,
              this::sampleHistory);
    } catch (CorruptStateException e) {
      throw new YarnRuntimeException(e.getMessage(), e);
    }
    runner = started;
    AskLedger ledger = new AskLedger(apps);
    path =
        new AllocationPath(
            new AllocationGate(scheduler, normalize, apps, ledger, started),
            ledger,
            new ProposalCheck(apps, started, this::labelOf));
    offers.offerAdmittedOutsideHeartbeats(started::book);
    lifecycle.move(
        Lifecycle.State.STANDBY,
        Lifecycle.State.RECOVERING); // the runner is in place for whoever asks
    started.start();
    LOG.info(
        "Aryl started: pools {}={} and {}={}, round every {} ms, shrink grace {} ms, state in {} {} (epoch {})",
        settings.inferenceLabel(),
        settings.inferenceQueue(),
        settings.trainingLabel(),
        settings.trainingQueue(),
        settings.roundIntervalMs(),
        settings.shrinkGraceMs(),
        store.store().kind(),
        store.store().location(),
        state.epoch());
  }

  public void stop() {
    RoundRunner r = runner;
    if (r != null) {
      r.close();
    }
    ArylMetrics.unregister();
    ArylStore s = store;
    if (s != null) {
      s.close();
    }
  }

  /**
   * The queues were reloaded ({@code yarn rmadmin -refreshQueues}, a failover): their caps and
   * ordering policies.
   */
  public void queuesReloaded() throws IOException {
    RoundRunner r = runner;
    if (r != null) {
      offers.offerAdmittedOutsideHeartbeats(r::book); // the queues' ordering policies are new
    }
    try {
      submissions.readCaps(scheduler.getConfiguration());
    } catch (IllegalArgumentException e) {
      throw new IOException(
          "Aryl configuration: "
              + e.getMessage()
              + " (the caps in force are unchanged: "
              + submissions.caps()
              + ")",
          e);
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // What the scheduler's hooks hand over

  /**
   * A new application meets its queue's caps ({@link SubmissionAdmission}); false if it was
   * rejected.
   */
  public boolean admit(AppAddedSchedulerEvent event) {
    return admission.admit(event);
  }

  /** A move to another queue meets that queue's caps as a submission would. */
  public void checkMove(ApplicationId appId, String newQueue) throws YarnException {
    admission.checkMove(appId, newQueue);
  }

  /** Called on the scheduler's event thread: the next round hands the finish to the engine. */
  public void applicationRemoved(ApplicationId appId, RMAppState finalState) {
    String id = appId.toString();
    RoundRunner r = runner;
    if (r != null) {
      r.applicationFinished(id, finalState == RMAppState.FINISHED);
    }
    apps.remove(id);
  }

  /** Before a node heartbeat allocates: a round now if new demand came since the last one. */
  public void beforeNodeHeartbeat() {
    RoundRunner r = runner;
    if (r != null) {
      r.roundIfDemandPending();
    }
  }

  /**
   * Runs an allocation on the node offering it only to the applications that may take something
   * there: plain ones, those waiting for their ApplicationMaster's container, and the elastic ones
   * the plan promised workers on it.
   */
  public <T> T allocatingOn(FiCaSchedulerNode node, java.util.function.Supplier<T> allocation) {
    RoundRunner r = runner;
    return r == null ? allocation.get() : offers.allocatingOn(node, r.book(), allocation);
  }

  /** A node with nothing promised, while no application outside the plan asks for containers. */
  public boolean noOneToOffer(FiCaSchedulerNode node) {
    RoundRunner r = runner;
    return r != null && offers.noOneToOffer(node, r.book());
  }

  /** Whether Aryl plans this ResourceManager's rounds (an idle walk then slows down). */
  public boolean planning() {
    return runner != null;
  }

  /** A container ended before its application took it: someone may be asking again. */
  public void containerCompleted() {
    offers.containerCompleted();
  }

  /**
   * An ApplicationMaster's heartbeat: its asks reach the Capacity Scheduler only as far as the plan
   * grants them.
   *
   * @param attempt the application's attempt the scheduler has, or null
   * @param current whether the heartbeat is of that attempt (an earlier attempt's passes as it is)
   * @param schedulingRequests whether the heartbeat carries scheduling requests
   * @param allocate the Capacity Scheduler's own allocate, with the asks to pass on
   */
  public Allocation allocate(
      FiCaSchedulerApp attempt,
      boolean current,
      List<ResourceRequest> ask,
      boolean schedulingRequests,
      java.util.function.Function<List<ResourceRequest>, Allocation> allocate) {
    AllocationPath p = path;
    if (p == null) {
      return allocate.apply(ask);
    }
    if (attempt != null && ((ask != null && !ask.isEmpty()) || schedulingRequests)) {
      offers.asking(attempt); // before the asks are pending
    }
    if (attempt == null || !current) {
      return allocate.apply(ask);
    }
    Allocation allocation = allocate.apply(p.gate().asks(attempt, ask));
    List<Container> handed = allocation == null ? null : allocation.getContainers();
    if (apps.get(attempt.getApplicationId()) == null) {
      plainAsks.answered(attempt.getApplicationAttemptId(), ask, handed);
    } else {
      p.ledger().handedOver(attempt, handed);
    }
    return allocation;
  }

  /**
   * Whether the allocation path may commit the proposal; false also before Aryl runs here, then
   * every one passes.
   */
  public boolean refuses(ResourceCommitRequest<FiCaSchedulerApp, FiCaSchedulerNode> request) {
    AllocationPath p = path;
    return p != null && !p.proposals().accepts(request);
  }

  /**
   * The proposal's workers, taken out of their asks while they are committed ({@link
   * AskLedger#allocating}).
   */
  public AllocatingWorkers allocating(
      ResourceCommitRequest<FiCaSchedulerApp, FiCaSchedulerNode> request) {
    AllocationPath p = path;
    return p == null ? new AllocatingWorkers() : p.ledger().allocating(request);
  }

  // ---------------------------------------------------------------------------------------------------------------

  /** The node's label in the label manager now: "" for the default partition. */
  private String labelOf(NodeId node) {
    Set<String> labels = scheduler.getRMContext().getNodeLabelManager().getLabelsOnNode(node);
    return labels.isEmpty() ? "" : labels.iterator().next();
  }

  /** A round's grants, handed to the Capacity Scheduler at once ({@link AllocationGate#push}). */
  private void pushGrants(Set<String> appIds) {
    path.gate().push(appIds);
  }

  /**
   * After a planning round: keeps a sample of the status for the charts when one is due (once a
   * minute).
   */
  private void sampleHistory(long nowMs) {
    RoundRunner r = runner;
    if (r != null && history.due(nowMs)) {
      history.add(io.aryl.api.status.HistorySample.of(nowMs, operations().status()));
    }
  }

  /** Its face to the REST resource, operators and tests. */
  public ArylOperations operations() {
    return new ArylOperations(this);
  }

  // For ArylOperations, in this package.
  ArylSettings settings() {
    return settings;
  }

  Lifecycle lifecycle() {
    return lifecycle;
  }

  RoundRunner runner() {
    return runner;
  }

  StateStore store() {
    ArylStore s = store;
    return s == null ? null : s.store();
  }

  DurableState state() {
    ArylStore s = store;
    return s == null ? null : s.state();
  }

  ArylMetrics metrics() {
    return metrics;
  }

  StatusHistory history() {
    return history;
  }
}
