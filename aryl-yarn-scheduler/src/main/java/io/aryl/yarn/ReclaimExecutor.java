package io.aryl.yarn;

import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Server;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.reclaim.ReclaimPlan;
import io.aryl.core.reclaim.ReclaimPlanner;
import io.aryl.core.reclaim.ReclaimRequest;
import io.aryl.yarn.Drains.Drain;
import io.aryl.yarn.Drains.Reason;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.reclaim.ReclaimTracker;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out reclaims: the least-cost loaned nodes are chosen ({@link ReclaimPlanner}) and fenced; their containers
 * drained (flexible workers of jobs that stay above their minimum are shrunk; a job that would fall below is
 * preempted as a whole; anything else is preempted), killed at the grace or one round before the deadline; each node
 * is relabelled {@code inference} only when the scheduler sees no container on it. A node whose NodeManager leaves the
 * cluster before it is back is replaced by another loaned node, so the reclaim still returns what was asked.
 *
 * <p>It decides and records; the planning loop stores the tracker and the drains before any of it reaches the
 * cluster (see {@link PlanningLoop#commit}).
 */
final class ReclaimExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(ReclaimExecutor.class);

  private final ArylScheduler scheduler;
  private final ArylSettings settings;
  private final ElasticApps apps;
  private final ArylMetrics metrics;
  private final ReclaimTracker tracker;
  private final Drains drains;
  private final JobProgressMeter progress;
  private final CheckpointTimes checkpoints;
  private final ReclaimCostModel costs;
  private final ReclaimPlanner planner;

  ReclaimExecutor(ArylScheduler scheduler, ArylSettings settings, ElasticApps apps, ArylMetrics metrics,
      ReclaimTracker tracker, Drains drains, JobProgressMeter progress, CheckpointTimes checkpoints,
      ReclaimCostModel costs) {
    this.scheduler = scheduler;
    this.settings = settings;
    this.apps = apps;
    this.metrics = metrics;
    this.tracker = tracker;
    this.drains = drains;
    this.progress = progress;
    this.checkpoints = checkpoints;
    this.costs = costs;
    this.planner = new ReclaimPlanner(costs);
  }

  /**
   * Chooses and records a reclaim of {@code servers} loaned nodes by {@code deadlineMs} (0: the default deadline).
   * Nothing is fenced or drained until the caller stored it and calls {@link #advance}.
   *
   * @throws IllegalArgumentException when not enough nodes are on loan
   */
  Reclaim start(int servers, String gpuType, long deadlineMs, ClusterState state, long nowMs) {
    ReclaimPlan plan = planner.plan(state, new ReclaimRequest(servers, gpuType));
    if (!plan.isFeasible()) {
      throw new IllegalArgumentException("reclaim of " + servers + " node(s) refused: " + plan.infeasibleReason().get());
    }
    long deadline = deadlineMs > 0 ? deadlineMs : nowMs + settings.reclaimDeadlineMs();
    Reclaim r = tracker.start(plan, nowMs, deadline);
    metrics.reclaimsStarted.incr();
    LOG.info("Aryl reclaim {} started: nodes {}, deadline in {} ms, planned cost {} GPU-s, jobs {}", r.id(),
        r.nodes(), deadline - nowMs, Math.round(plan.costGpuS()), r.jobActions());
    return r;
  }

  /** True while the reclaim that drains {@code d} still returns its node: else the kill is no longer needed. */
  boolean stillReturning(Drain d) {
    for (Reclaim r : tracker.inFlight()) {
      if (r.id() == d.reclaimId()) {
        return r.pendingNodes().contains(d.node());
      }
    }
    return false;
  }

  /** Moves every reclaim in flight forward: replaces lost nodes, drains, relabels what is empty. */
  void advance(List<NodeView> nodes, ClusterState state, long nowMs) {
    if (tracker.inFlight().isEmpty()) {
      metrics.reclaimsInFlight.set(0);
      return; // most rounds: no map of every node by name
    }
    Map<String, NodeView> byId = new HashMap<>();
    nodes.forEach(n -> byId.put(n.id(), n));
    replaceLostNodes(byId, state, nowMs);
    for (Reclaim r : tracker.inFlight()) {
      long killAt = Math.max(nowMs, Math.min(nowMs + settings.shrinkGraceMs(),
          r.deadlineMs() - settings.roundIntervalMs()));
      for (String nodeId : r.pendingNodes()) {
        NodeView n = byId.get(nodeId);
        if (n == null) {
          continue; // cannot happen: lost nodes were replaced above
        }
        if (n.isEmpty()) {
          relabelIfIdle(r, nodeId, nowMs);
          continue;
        }
        for (ContainerView c : n.containers()) {
          boolean worker = apps.isElastic(c.appId()) && !c.amContainer();
          if (worker && r.actionFor(c.appId()).equals("SHRINK")) {
            if (drain(r, c, nodeId, killAt) && recordShrunk(r, c, nodes)) {
              metrics.containersShrunk.incr();
            }
          } else if (worker) {
            preemptJob(r, c.appId(), nodes, killAt, nowMs);
          } else if (drain(r, c, nodeId, killAt) && recordPreempted(r, c, nowMs)) {
            metrics.containersPreempted.incr();
          }
        }
      }
    }
    metrics.reclaimsInFlight.set(tracker.inFlight().size());
  }

  /**
   * A node that left the cluster (its NodeManager died or was decommissioned) cannot be returned: another loaned node
   * takes its place, chosen by the same least-cost rule, so the reclaim still returns as many as it was asked for.
   */
  private void replaceLostNodes(Map<String, NodeView> byId, ClusterState state, long nowMs) {
    Set<String> taken = new HashSet<>(tracker.fencedNodes());
    for (Reclaim r : tracker.inFlight()) {
      for (String nodeId : r.pendingNodes()) {
        if (byId.containsKey(nodeId)) {
          continue;
        }
        ReclaimPlan plan = planner.plan(withFenced(state, taken), ReclaimRequest.any(1));
        String substitute = plan.isFeasible() ? plan.servers().get(0) : null;
        boolean done = tracker.nodeLost(r, nodeId, substitute,
            substitute == null ? Map.of() : ReclaimTracker.actions(plan), nowMs);
        if (substitute != null) {
          taken.add(substitute);
          LOG.warn("Aryl reclaim {}: node {} left the cluster before it was returned; {} returns in its place",
              r.id(), nodeId, substitute);
        } else {
          LOG.warn("Aryl reclaim {}: node {} left the cluster before it was returned, and no other node is on loan:"
              + " the reclaim returns {} node(s) fewer", r.id(), nodeId, r.shortBy());
        }
        if (done) {
          finished(r);
          break;
        }
      }
    }
  }

  private static ClusterState withFenced(ClusterState state, Set<String> fenced) {
    List<Server> servers = new ArrayList<>();
    for (Server s : state.servers()) {
      servers.add(fenced.contains(s.id()) && !s.fenced() ? s.withFenced(true) : s);
    }
    return ClusterState.of(state.nowS(), servers, state.jobs(), state.allocations());
  }

  private boolean drain(Reclaim r, ContainerView c, String node, long killAt) {
    return drains.add(new Drain(c.id(), c.appId(), node, killAt, Reason.RECLAIM, r.id()));
  }

  /** A job that falls below its minimum stops as a whole: every worker of it drains, wherever it runs. */
  private void preemptJob(Reclaim r, String appId, List<NodeView> nodes, long killAt, long nowMs) {
    for (NodeView n : nodes) {
      for (ContainerView c : n.containers()) {
        if (c.appId().equals(appId) && !c.amContainer() && drain(r, c, n.id(), killAt)
            && recordPreempted(r, c, nowMs)) {
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
    double lost = tracker.chargeJob(r, c.appId()) ? jobGpus(c.appId(), nodes) * costs.rescaleOverheadS() : 0;
    boolean fresh = tracker.recordShrunk(r, c.id(), lost);
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

  /** Priced as the plan priced it: the work since the job's last checkpoint ({@link CheckpointTimes}), and a restart. */
  private boolean recordPreempted(Reclaim r, ContainerView c, long nowMs) {
    double since = checkpoints.sinceCheckpointS(c.appId(), progress.get(c.appId()), nowMs);
    double lost = c.gpus() * (since + costs.restartOverheadS());
    boolean fresh = tracker.recordPreempted(r, c.id(), lost);
    if (fresh) {
      metrics.gpuSecondsLost.incr(Math.round(lost));
    }
    return fresh;
  }

  /**
   * Relabels a node to inference, but only when the scheduler itself says nothing runs there. The relabel comes
   * first and its record after: a scheduler that stops in between finds the node still pending, already labelled
   * inference and empty, and records it then.
   */
  private void relabelIfIdle(Reclaim r, String nodeId, long nowMs) {
    FiCaSchedulerNode node = scheduler.nodeNamed(nodeId);
    if (node == null) {
      return; // gone since the round read it: the next round replaces it
    }
    if (node.getNumContainers() > 0 || node.getReservedContainer() != null) {
      return; // relabelling would not stop what runs there; wait for the drain
    }
    if (!settings.inferenceLabel().equals(node.getPartition())) {
      try {
        scheduler.getRMContext().getNodeLabelManager().replaceLabelsOnNode(
            Map.of(node.getNodeID(), Set.of(settings.inferenceLabel())));
      } catch (IOException e) {
        LOG.warn("Aryl reclaim {}: relabelling {} failed, will retry: {}", r.id(), nodeId, e.toString());
        return;
      }
    }
    if (tracker.nodeReturned(r, nodeId, nowMs)) {
      finished(r);
    }
  }

  private void finished(Reclaim r) {
    metrics.reclaimsFinished.incr();
    if (r.tookMs() >= 0) {
      metrics.reclaimDuration.add(r.tookMs());
    }
    if (r.late()) {
      metrics.reclaimsLate.incr();
    }
    LOG.info("Aryl reclaim {} done in {} ms{}: nodes {}, lost {}, {} containers shrunk, {} preempted, {} GPU-s lost",
        r.id(), r.tookMs(), r.late() ? " (LATE)" : "", r.returnedNodes(), r.lostNodes(), r.containersShrunk(),
        r.containersPreempted(), Math.round(r.gpuSecondsLost()));
    if (r.shortBy() > 0) {
      LOG.warn("Aryl reclaim {} returned {} of the {} node(s) asked: {} lost with no loaned node left to take their"
          + " place", r.id(), r.returnedNodes().size(), r.requested(), r.shortBy());
    }
  }
}
