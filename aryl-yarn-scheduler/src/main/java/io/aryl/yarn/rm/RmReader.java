package io.aryl.yarn.rm;

import io.aryl.core.job.JobShape;
import io.aryl.yarn.conf.GpuCatalog;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.TenantShares;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeAttribute;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * Reads the ResourceManager's nodes, containers, applications and the training queue's teams into a
 * round's plain views.
 */
final class RmReader {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RmReader.class);

  /**
   * A plain application's pending containers are planned as a queued job predicted to take this
   * long: shortest first, so an ordinary application is served before any elastic job's extra
   * workers and never starved by them.
   */
  static final long PLAIN_PREDICTED_RUNTIME_S = 1;

  private final CapacityScheduler scheduler;
  private final NodeChangeCounts nodeChanges;
  private final ElasticApps apps;
  private final PlainAsks plainAsks;
  private final String trainingQueue;
  private final String trainingLabel;
  private final GpuCatalog gpus;

  /** The GPU type error last logged for each node: each is logged once, until it changes. */
  private final Map<String, String> loggedGpuErrors =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final NodeViews views;

  /** Attempts whose ApplicationMaster container was seen flagged as such: not looked up again. */
  private Set<ApplicationAttemptId> amFlagged = new HashSet<>();

  RmReader(
      CapacityScheduler scheduler,
      NodeChangeCounts nodeChanges,
      ElasticApps apps,
      PlainAsks plainAsks,
      String trainingQueue,
      String trainingLabel,
      GpuCatalog gpus) {
    this(
        scheduler,
        nodeChanges,
        apps,
        plainAsks,
        trainingQueue,
        trainingLabel,
        gpus,
        NodeViews.SWEEP_ROUNDS);
  }

  /**
   * @param sweepRounds rounds in which every node's containers are read once, changed or not (0:
   *     never)
   */
  RmReader(
      CapacityScheduler scheduler,
      NodeChangeCounts nodeChanges,
      ElasticApps apps,
      PlainAsks plainAsks,
      String trainingQueue,
      String trainingLabel,
      GpuCatalog gpus,
      int sweepRounds) {
    this.scheduler = scheduler;
    this.nodeChanges = nodeChanges;
    this.apps = apps;
    this.plainAsks = plainAsks;
    this.trainingQueue = trainingQueue;
    this.trainingLabel = trainingLabel;
    this.gpus = gpus;
    this.views = new NodeViews(this::view, nodeChanges, sweepRounds);
  }

  static int gpus(Resource r) {
    if (r == null) {
      return 0;
    }
    for (ResourceInformation ri : r.getResources()) {
      if (ResourceInformation.GPU_URI.equals(ri.getName())) {
        return (int) ri.getValue();
      }
    }
    return 0;
  }

  static ContainerView view(RMContainer c) {
    return new ContainerView(
        c.getContainerId().toString(),
        c.getApplicationAttemptId().getApplicationId().toString(),
        c.getContainerId().getContainerId(),
        gpus(size(c)),
        c.isAMContainer());
  }

  /**
   * What the container holds: {@link RMContainer#getAllocatedResource} without its lock, which a
   * round reading thousands of containers waited on behind each new container's state transitions.
   * The field is read as the locked getter reads it; a resize it misses is seen when the node is
   * next read (at the latest, its sweep).
   */
  static Resource size(RMContainer c) {
    return c.getContainer().getResource();
  }

  /** Every node of the scheduler, sorted by name. */
  List<NodeView> nodes() {
    return nodes(scheduler.getNodeTracker().getAllNodes(), Set.of());
  }

  /**
   * These nodes, sorted by name; a node's view is built again only once it changed (see {@link
   * NodeViews}).
   *
   * @param unflaggedAm ApplicationMaster containers the ResourceManager has not flagged as such yet
   *     ({@link RunningApps#unflaggedAm}): their views say what they are
   */
  List<NodeView> nodes(Collection<FiCaSchedulerNode> all, Set<ContainerId> unflaggedAm) {
    List<NodeView> out = views.of(all);
    for (ContainerId id : unflaggedAm) {
      RMContainer c = scheduler.getRMContainer(id);
      FiCaSchedulerNode node = c == null ? null : scheduler.getNode(c.getNodeId());
      int i = node == null ? -1 : views.indexOf(node.getNodeName());
      if (i >= 0) {
        out.set(i, asAmContainer(out.get(i), id.toString()));
      }
    }
    return out;
  }

  /** The view with this container marked as an ApplicationMaster's. */
  private static NodeView asAmContainer(NodeView n, String containerId) {
    List<ContainerView> cs = new ArrayList<>(n.containers().size());
    for (ContainerView c : n.containers()) {
      cs.add(
          c.id().equals(containerId)
              ? new ContainerView(c.id(), c.appId(), c.seq(), c.gpus(), true)
              : c);
    }
    return new NodeView(n.id(), n.label(), n.gpus(), cs, n.gpuType(), n.gpuTypeError());
  }

  /** Node views built (rather than kept) so far. */
  long nodeViewsBuilt() {
    return views.rebuilt();
  }

  /**
   * Nodes whose containers a sweep found changed though no change was counted (see {@link
   * NodeViews}).
   */
  long unsignalledNodeChanges() {
    return views.unsignalled();
  }

  /** Changes whenever {@link #nodes} finds nodes joined or gone since the read before. */
  long nodeMembership() {
    return views.membership();
  }

  private NodeView view(FiCaSchedulerNode n, List<RMContainer> running) {
    List<ContainerView> cs = new ArrayList<>(running.size());
    for (RMContainer c : running) {
      cs.add(view(c));
    }
    if (!trainingLabel.equals(n.getPartition())) {
      // Only the training pool is planned on: a node's GPU type matters (and is checked) once it is
      // in it.
      return new NodeView(n.getNodeName(), n.getPartition(), gpus(n.getTotalResource()), cs);
    }
    GpuCatalog.Resolution type = gpus.resolve(n.getNodeName(), attributes(n));
    if (type.known()) {
      loggedGpuErrors.remove(n.getNodeName());
    } else if (!type.error().equals(loggedGpuErrors.put(n.getNodeName(), type.error()))) {
      LOG.error("Aryl leaves node {} out of its plan: {}", n.getNodeName(), type.error());
    }
    return new NodeView(
        n.getNodeName(),
        n.getPartition(),
        gpus(n.getTotalResource()),
        cs,
        type.type(),
        type.error());
  }

  /** The node's attributes by name (without prefix) and value. */
  private static Map<String, String> attributes(FiCaSchedulerNode n) {
    Set<NodeAttribute> set = n.getNodeAttributes();
    if (set == null || set.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new TreeMap<>();
    for (NodeAttribute a : set) {
      out.put(a.getAttributeKey().getAttributeName(), a.getAttributeValue());
    }
    return out;
  }

  /**
   * The elastic applications of the training queue (or its sub-queues) whose ApplicationMaster is
   * running, and those of their ApplicationMasters' containers the ResourceManager has not flagged
   * as such yet.
   *
   * <p>Read them before the nodes, and pass the latter to {@link #nodes(Collection, Set)}. An
   * application counts as running once its attempt has its master container; the container is
   * flagged a moment later, on another thread. A round that read the nodes first and the
   * applications after saw, for each ApplicationMaster started in between, a running application
   * with a container that was not an ApplicationMaster's: a worker, as it planned it, of a size the
   * node had no room for. Under SLS at 5,000 nodes such rounds failed on an over-committed node
   * every few seconds.
   */
  RunningApps runningApps(long startMs) {
    Map<String, AppView> out = new TreeMap<>();
    Set<ContainerId> unflagged = new HashSet<>();
    Set<ApplicationAttemptId> flagged = new HashSet<>();
    for (Map.Entry<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> e :
        scheduler.getSchedulerApplications().entrySet()) {
      ElasticApps.App app = apps.get(e.getKey());
      FiCaSchedulerApp attempt = app == null ? null : running(e.getValue());
      String queue = attempt == null ? null : trainingQueuePath(attempt);
      if (queue == null) {
        continue;
      }
      out.put(
          app.id,
          new AppView(
              app.id,
              app.shape,
              Math.max(0, (app.submitMs - startMs) / 1000.0),
              app.askedOrAllocating(),
              tenantOf(queue),
              false));
      ApplicationAttemptId attemptId = attempt.getApplicationAttemptId();
      if (amFlagged.contains(attemptId)) {
        flagged.add(attemptId); // flagged once, flagged for good
        continue;
      }
      ContainerId master = masterContainer(e.getKey(), attemptId);
      RMContainer am = master == null ? null : attempt.getRMContainer(master);
      if (am != null) {
        // Its node's view may hold the container as it was before it was flagged: read again until
        // flagged for good.
        nodeChanges.changed(am.getNodeId());
      }
      if (am != null && !am.isAMContainer()) {
        unflagged.add(master);
      } else {
        flagged.add(attemptId);
      }
    }
    amFlagged = flagged;
    return new RunningApps(out, unflagged);
  }

  /**
   * @param views the running elastic applications, by id
   * @param unflaggedAm their ApplicationMasters' containers that the ResourceManager had not
   *     flagged as such yet
   */
  record RunningApps(Map<String, AppView> views, Set<ContainerId> unflaggedAm) {}

  private ContainerId masterContainer(ApplicationId appId, ApplicationAttemptId attemptId) {
    RMApp rmApp = scheduler.getRMContext().getRMApps().get(appId);
    RMAppAttempt rmAttempt = rmApp == null ? null : rmApp.getRMAppAttempt(attemptId);
    Container master = rmAttempt == null ? null : rmAttempt.getMasterContainer();
    return master == null ? null : master.getId();
  }

  /**
   * Applications of the training queue without Aryl's tags that wait for GPU containers in the
   * training partition: each one's pending containers of its largest GPU size, as one rigid gang
   * the plan makes room for. Their running containers stay theirs: the plan never moves them.
   */
  Map<String, AppView> plainDemand(long startMs) {
    Map<String, AppView> out = new TreeMap<>();
    Set<ApplicationAttemptId> asking = new HashSet<>();
    for (Map.Entry<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> e :
        scheduler.getSchedulerApplications().entrySet()) {
      FiCaSchedulerApp attempt = apps.get(e.getKey()) != null ? null : running(e.getValue());
      String queue = attempt == null ? null : trainingQueuePath(attempt);
      if (queue == null) {
        continue;
      }
      asking.add(attempt.getApplicationAttemptId());
      String id = e.getKey().toString();
      int gpus = 0;
      int count = 0;
      for (ResourceRequest rr : attempt.getAppSchedulingInfo().getAllResourceRequests()) {
        int g = gpus(rr.getCapability());
        if (!ResourceRequest.ANY.equals(rr.getResourceName())
            || g <= 0
            || !trainingLabel.equals(rr.getNodeLabelExpression())) {
          continue;
        }
        // Less what its ApplicationMaster's last ask counted again: containers it had not seen.
        int wanted = plainAsks.wanted(attempt.getApplicationAttemptId(), rr);
        if (wanted <= 0) {
          continue;
        }
        if (g > gpus) {
          gpus = g;
          count = 0;
        }
        if (g == gpus) {
          count += wanted;
        }
      }
      if (count > 0) {
        int n = Math.min(count, JobShape.MAX_WORKERS_LIMIT);
        var rmApp = scheduler.getRMContext().getRMApps().get(e.getKey());
        double submitS =
            Math.max(0, (rmApp == null ? startMs : rmApp.getSubmitTime()) - startMs) / 1000.0;
        out.put(
            id,
            new AppView(
                id,
                new JobShape(n, n, gpus, PLAIN_PREDICTED_RUNTIME_S, ""),
                submitS,
                n,
                tenantOf(queue),
                true));
      }
    }
    plainAsks.retainOnly(asking);
    return out;
  }

  /**
   * The teams of the training pool: each child queue of the training queue, with the fraction of
   * the training partition its Capacity Scheduler capacity guarantees it. None when the training
   * queue is a leaf.
   */
  TenantShares tenantShares() {
    CSQueue training = scheduler.getQueue(trainingQueue);
    if (training == null
        || training.getChildQueues() == null
        || training.getChildQueues().isEmpty()) {
      return TenantShares.NONE;
    }
    double whole = training.getQueueCapacities().getAbsoluteCapacity(trainingLabel);
    Map<String, Double> shares = new TreeMap<>();
    for (CSQueue child : training.getChildQueues()) {
      double abs = child.getQueueCapacities().getAbsoluteCapacity(trainingLabel);
      shares.put(child.getQueueShortName(), whole <= 0 ? 0 : Math.min(1, abs / whole));
    }
    return TenantShares.of(shares);
  }

  /** The application's current attempt once its ApplicationMaster runs; else null. */
  private static FiCaSchedulerApp running(SchedulerApplication<FiCaSchedulerApp> app) {
    FiCaSchedulerApp attempt = app.getCurrentAppAttempt();
    return attempt == null || attempt.isStopped() || attempt.isWaitingForAMContainer()
        ? null
        : attempt;
  }

  /** The attempt's queue path when it is the training queue or below it; else null. */
  private String trainingQueuePath(FiCaSchedulerApp attempt) {
    return attempt.getQueue() instanceof CSQueue q && inTrainingQueue(q.getQueuePath())
        ? q.getQueuePath()
        : null;
  }

  boolean inTrainingQueue(String queuePath) {
    return queuePath.equals(trainingQueue) || queuePath.startsWith(trainingQueue + ".");
  }

  /**
   * The team of a queue below the training queue: the training queue's child it is in; "" for the
   * queue itself.
   */
  String tenantOf(String queuePath) {
    if (!queuePath.startsWith(trainingQueue + ".")) {
      return "";
    }
    String below = queuePath.substring(trainingQueue.length() + 1);
    int dot = below.indexOf('.');
    return dot < 0 ? below : below.substring(0, dot);
  }
}
