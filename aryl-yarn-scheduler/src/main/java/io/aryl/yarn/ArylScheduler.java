package io.aryl.yarn;

import io.aryl.api.conf.PoolConf;
import io.aryl.yarn.conf.ArylConf;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.engine.Lifecycle;
import io.aryl.yarn.rm.AllocatingWorkers;
import io.aryl.yarn.rm.ArylOperations;
import io.aryl.yarn.rm.ArylRuntime;
import io.aryl.yarn.rm.NodeChangeCounts;
import io.aryl.yarn.state.StateStores;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.NodeScopedCapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ResourceCommitRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Capacity Scheduler with Aryl's policy: gang admission of base workers, elastic extras by
 * knapsack, best-fit-decreasing placement, loaned inference nodes, and least-cost reclaims. Set
 * {@code yarn.resourcemanager.scheduler.class} to this class; {@code aryl.scheduler.enabled=false}
 * makes it the stock Capacity Scheduler again.
 *
 * <p>It overrides a few of the Capacity Scheduler's hooks and holds one lifecycle ({@link
 * Lifecycle}: off, standby, recovering, active, deposed, stopped); everything else is {@link
 * ArylRuntime}'s, in {@code io.aryl.yarn.rm}, and the decisions are the round engine's ({@code
 * io.aryl.yarn.engine}) and aryl-core's.
 */
public class ArylScheduler extends NodeScopedCapacityScheduler implements ArylOperations.Provider {
  private static final Logger LOG = LoggerFactory.getLogger(ArylScheduler.class);

  /** Where Aryl stands in this ResourceManager: one state in one field. */
  private final Lifecycle lifecycle = new Lifecycle();

  /** How often each node's containers changed; counted whether Aryl is on or not yet. */
  private final NodeChangeCounts nodeChanges = new NodeChangeCounts();

  /** Null while Aryl is off; made at init. */
  private volatile ArylRuntime runtime;

  /** How a wrong set-up stops the start: one line in the daemon, an exception elsewhere. */
  private final StartRefusal refusal = StartRefusal.ofThisJvm();

  /**
   * Checks Aryl's settings and where its state goes before the Capacity Scheduler reads its own,
   * and Aryl's queues after; a wrong one stops the start ({@link StartRefusal}), naming the key and
   * the value.
   */
  @Override
  public void serviceInit(Configuration conf) throws Exception {
    ArylSettings settings;
    try {
      settings = readSettings(conf);
      if (settings.enabled()) {
        locateState(settings, conf);
      }
    } catch (YarnRuntimeException e) {
      throw refusal.refuse(e);
    }
    super.serviceInit(conf);
    if (!settings.enabled()) {
      lifecycle.move(Lifecycle.State.NEW, Lifecycle.State.OFF);
      LOG.info(
          "Aryl is off ({}=false): scheduling as the stock CapacityScheduler",
          ArylConf.ENABLED.key());
      return;
    }
    try {
      runtime =
          ArylRuntime.init(
              this, conf, settings, lifecycle, nodeChanges, this::normalizeResourceRequests);
    } catch (YarnRuntimeException e) {
      throw refusal.refuse(e);
    }
    if (settings.webappNavLink()) {
      // The RM's own configuration object: its web app is set up from it after the scheduler is
      // initialised.
      io.aryl.yarn.web.ArylNavLink.install(conf);
    }
    lifecycle.move(Lifecycle.State.NEW, Lifecycle.State.STANDBY);
  }

  /**
   * Where Aryl will keep its state, decided at initialisation so that a refusal (state in a
   * temporary folder, or left behind by an upgrade) comes before the ResourceManager starts.
   */
  private static void locateState(ArylSettings settings, Configuration conf) {
    try {
      StateStores.Location where = StateStores.locate(settings, conf);
      LOG.info(
          "Aryl's state store: {}{} ({})",
          where.kind().name().toLowerCase(java.util.Locale.ROOT),
          where.directory().isEmpty() ? "" : " " + where.directory(),
          where.why());
    } catch (IllegalArgumentException e) {
      throw new YarnRuntimeException("Aryl configuration: " + e.getMessage(), e);
    }
  }

  /**
   * Runs when this ResourceManager becomes active: Aryl claims its state store and resumes from it.
   */
  @Override
  public void serviceStart() throws Exception {
    super.serviceStart();
    if (lifecycle.get() == Lifecycle.State.STANDBY) {
      runtime.start();
    }
  }

  @Override
  public void serviceStop() throws Exception {
    lifecycle.stop();
    ArylRuntime r = runtime;
    if (r != null) {
      r.stop();
    }
    super.serviceStop();
  }

  /**
   * The settings of the {@code aryl.} keys of {@code conf}; a wrong one is refused naming the key
   * and the value.
   */
  public static ArylSettings readSettings(Configuration conf) {
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
   * Reloads the queues ({@code yarn rmadmin -refreshQueues}, a failover) and with them the
   * per-queue caps. A wrong cap fails the refresh with its key and value; the caps in force stay as
   * they were.
   */
  @Override
  public void reinitialize(Configuration newConf, RMContext rmContext, boolean validation)
      throws IOException {
    super.reinitialize(newConf, rmContext, validation);
    ArylRuntime r = runtime;
    if (r != null && !validation) {
      r.queuesReloaded();
    }
  }

  /** What Aryl does in this scheduler now, for the REST resource, operators and tests. */
  @Override
  public ArylOperations aryl() {
    ArylRuntime r = runtime;
    return r == null ? ArylOperations.without(lifecycle) : r.operations();
  }

  /**
   * How often each node's containers changed, as the hooks below count it: what a round reads
   * again.
   */
  public NodeChangeCounts nodeChanges() {
    return nodeChanges;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Hooks

  @Override
  public void handle(SchedulerEvent event) {
    ArylRuntime r = runtime;
    if (r != null) {
      switch (event.getType()) {
        case APP_ADDED -> {
          if (!r.admit((AppAddedSchedulerEvent) event)) {
            return;
          }
        }
        case APP_REMOVED -> {
          AppRemovedSchedulerEvent e = (AppRemovedSchedulerEvent) event;
          r.applicationRemoved(e.getApplicationID(), e.getFinalState());
        }
        default -> {}
      }
    }
    super.handle(event);
    switch (event.getType()) {
      case NODE_LABELS_UPDATE, NODE_RESOURCE_UPDATE, NODE_ATTRIBUTES_UPDATE ->
          nodeChanges.nodesChanged();
      default -> {}
    }
  }

  /** A move to another queue meets that queue's caps as a submission would. */
  @Override
  public void preValidateMoveApplication(ApplicationId appId, String newQueue)
      throws YarnException {
    super.preValidateMoveApplication(appId, newQueue);
    ArylRuntime r = runtime;
    if (r != null) {
      r.checkMove(appId, newQueue);
    }
  }

  @Override
  protected void nodeUpdate(RMNode rmNode) {
    ArylRuntime r = runtime;
    if (r != null) {
      r.beforeNodeHeartbeat();
    }
    FiCaSchedulerNode node = getNode(rmNode.getNodeID());
    int containers = node == null ? 0 : node.getNumContainers();
    super.nodeUpdate(rmNode); // what it allocates, it allocates through allocatingOn
    // A container the RM completed after it was launched stays on its node until the node reports
    // it finished; the
    // heartbeat that does removes it there, after (and without) the container's completion.
    if (node != null && node.getNumContainers() != containers) {
      nodeChanges.changed(rmNode.getNodeID());
    }
  }

  /**
   * Every attempt to allocate on a node — in its heartbeat, on the asynchronous scheduling thread,
   * on a promised node — offers it only to the applications that may take something there ({@link
   * ArylRuntime#allocatingOn}).
   *
   * <p>Why on the asynchronous thread too: that thread walks every node, offering each to the
   * queue's applications in turn until one takes a container. An admitted job asks only for its
   * planned nodes, so offered any other one it takes nothing, after its user limit, headroom and
   * asks were computed all the same. Offered every node by every admitted job, one step of the walk
   * took milliseconds with hundreds of jobs admitted: under SLS at 5,000 nodes the walk stepped
   * through ~140 nodes a second, each step allocating at most one container, and ApplicationMasters
   * waited seconds for a step to reach them.
   */
  @Override
  protected <T> T allocatingOn(FiCaSchedulerNode node, Supplier<T> allocation) {
    ArylRuntime r = runtime;
    return r == null ? allocation.get() : r.allocatingOn(node, allocation);
  }

  /**
   * A node on which the plan promised nothing, while no application outside the plan asks for
   * containers.
   */
  @Override
  protected boolean noOneToOffer(FiCaSchedulerNode node) {
    ArylRuntime r = runtime;
    return r != null && r.noOneToOffer(node);
  }

  /**
   * With Aryl planning, an idle walk slows down; off, the scheduler is the stock one in this as in
   * everything else.
   */
  @Override
  protected boolean pausesIdleWalk() {
    ArylRuntime r = runtime;
    return r != null && r.planning();
  }

  /**
   * A container lost before its application took it brings its request back: someone may be asking
   * again.
   */
  @Override
  public void completedContainer(
      RMContainer container, ContainerStatus status, RMContainerEventType event) {
    super.completedContainer(container, status, event);
    ArylRuntime r = runtime;
    if (r != null) {
      r.containerCompleted();
    }
  }

  /**
   * Every container's end passes here, those of an attempt that ended too (which skip {@link
   * #completedContainer}).
   */
  @Override
  protected void completedContainerInternal(
      RMContainer container, ContainerStatus status, RMContainerEventType event) {
    super.completedContainerInternal(container, status, event);
    nodeChanges.changed(container.getNodeId());
  }

  /**
   * Containers a NodeManager reports after a restart of the ResourceManager, put back on their
   * node.
   */
  @Override
  public void recoverContainersOnNode(List<NMContainerStatus> containerReports, RMNode node) {
    try {
      super.recoverContainersOnNode(containerReports, node);
    } finally {
      nodeChanges.changed(node.getNodeID());
    }
  }

  @Override
  public Allocation allocate(
      ApplicationAttemptId attemptId,
      List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests,
      List<ContainerId> release,
      List<String> blacklistAdditions,
      List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    ArylRuntime r = runtime;
    if (r == null) {
      return super.allocate(
          attemptId,
          ask,
          schedulingRequests,
          release,
          blacklistAdditions,
          blacklistRemovals,
          updateRequests);
    }
    FiCaSchedulerApp attempt = getApplicationAttempt(attemptId);
    boolean current = attempt != null && attempt.getApplicationAttemptId().equals(attemptId);
    return r.allocate(
        attempt,
        current,
        ask,
        schedulingRequests != null && !schedulingRequests.isEmpty(),
        asks ->
            super.allocate(
                attemptId,
                asks,
                schedulingRequests,
                release,
                blacklistAdditions,
                blacklistRemovals,
                updateRequests));
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public boolean tryCommit(Resource cluster, ResourceCommitRequest r, boolean updatePending) {
    ArylRuntime aryl = runtime;
    ResourceCommitRequest<FiCaSchedulerApp, FiCaSchedulerNode> request = r;
    if (aryl != null && aryl.refuses(request)) {
      // What super.tryCommit would have done for a refused proposal, or the app's unconfirmed
      // counter leaks.
      if (request.getContainersToAllocate() != null
          && !request.getContainersToAllocate().isEmpty()) {
        request
            .getFirstAllocatedOrReservedContainer()
            .getAllocatedOrReservedContainer()
            .getSchedulerApplicationAttempt()
            .decUnconfirmedRes(request.getTotalAllocatedResource());
      }
      return false; // a node counted for nothing is only read again
    }
    AllocatingWorkers allocating =
        aryl == null ? new AllocatingWorkers() : aryl.allocating(request);
    boolean committed = true; // on an exception too: a node counted for nothing is only read again
    try {
      committed = commit(cluster, r, updatePending);
      return committed;
    } finally {
      if (committed) {
        nodeChanges.committed(r);
      }
      allocating.ended(
          committed); // after the node's change is counted: a round then reads the worker on it
    }
  }

  /**
   * The Capacity Scheduler's own commit, once Aryl passed the request; tests read the RM in
   * between.
   */
  @SuppressWarnings("rawtypes")
  protected boolean commit(Resource cluster, ResourceCommitRequest r, boolean updatePending) {
    return super.tryCommit(cluster, r, updatePending);
  }
}
