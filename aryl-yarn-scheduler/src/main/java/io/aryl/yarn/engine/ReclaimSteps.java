package io.aryl.yarn.engine;

import io.aryl.core.job.CheckpointReport;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Server;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.reclaim.ReclaimPlan;
import io.aryl.core.reclaim.ReclaimPlanner;
import io.aryl.core.reclaim.ReclaimRequest;
import io.aryl.core.victim.Fate;
import io.aryl.yarn.conf.ArylConf;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.engine.Drains.Drain;
import io.aryl.yarn.engine.Drains.Reason;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.reclaim.ReclaimTracker;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries reclaims out, step by step: the least-cost loaned nodes are chosen ({@link
 * ReclaimPlanner}) and fenced; their containers drained (flexible workers of jobs that stay above
 * their minimum are shrunk; a job that would fall below is preempted as a whole, as {@link
 * Reclaim#fateOf} says; anything else is preempted), killed at the grace or one round before the
 * deadline; each node is relabelled {@code inference} once nothing runs on it. A node whose
 * NodeManager leaves the cluster before it is back is replaced by another loaned node, so the
 * reclaim still returns what was asked.
 *
 * <p>It decides and records; the engine stores the reclaims and the drains before any of it reaches
 * the cluster.
 */
final class ReclaimSteps {
  private static final Logger LOG = LoggerFactory.getLogger(ReclaimSteps.class);

  private final ArylSettings settings;
  private final ReclaimTracker tracker;
  private final Drains drains;
  private final JobProgressMeter progress;
  private final ReclaimCostModel costs;
  private final ReclaimPlanner planner;

  /** Told of every node returned to inference. */
  private final Consumer<String> returned;

  ReclaimSteps(
      ArylSettings settings,
      ReclaimTracker tracker,
      Drains drains,
      JobProgressMeter progress,
      Consumer<String> returned) {
    this.settings = settings;
    this.tracker = tracker;
    this.drains = drains;
    this.progress = progress;
    this.costs =
        new ReclaimCostModel(
            ReclaimCostModel.defaults().restartOverheadS(), settings.policy().rescaleOverheadS());
    this.planner = new ReclaimPlanner(costs);
    this.returned = returned;
  }

  /**
   * Starts the reclaim a loan target below what is on loan asks for: {@code servers} nodes back by
   * {@code deadlineMs}, least cost first. Lent nodes the round cannot plan on (gone, or of no known
   * GPU type) wait until it can: the reclaim is not started, and a warning says why.
   */
  void startForLoanTarget(
      int servers, long deadlineMs, ClusterState state, long nowMs, Tally tally) {
    try {
      start(servers, null, deadlineMs, state, nowMs, tally);
    } catch (IllegalArgumentException e) {
      LOG.warn("Aryl cannot start the reclaim the loan target asks for yet: {}", e.getMessage());
    }
  }

  /**
   * Refuses a reclaim that names a GPU type the cluster does not declare.
   *
   * @param gpuType the type the reclaim asks for; null for any
   * @throws IllegalArgumentException naming the type and the declared ones
   */
  void requireDeclared(String gpuType) {
    if (gpuType != null && settings.gpus().type(gpuType).isEmpty()) {
      throw new IllegalArgumentException(
          "gpuType '"
              + gpuType
              + "' is not one of "
              + ArylConf.GPU_TYPES.key()
              + " "
              + settings.gpus().types().keySet());
    }
  }

  /**
   * Chooses and records a reclaim of {@code servers} loaned nodes by {@code deadlineMs} (0: the
   * default deadline). Nothing is fenced or drained until the caller stored it and calls {@link
   * #advance}.
   *
   * @throws IllegalArgumentException when not enough nodes are on loan
   */
  Reclaim start(
      int servers, String gpuType, long deadlineMs, ClusterState state, long nowMs, Tally tally) {
    ReclaimPlan plan = planner.plan(state, new ReclaimRequest(servers, gpuType));
    if (!plan.isFeasible()) {
      throw new IllegalArgumentException(
          "reclaim of " + servers + " node(s) refused: " + plan.infeasibleReason().get());
    }
    long deadline = deadlineMs > 0 ? deadlineMs : nowMs + settings.reclaimDeadlineMs();
    Reclaim r = tracker.start(plan, nowMs, deadline);
    tally.reclaimsStarted++;
    LOG.info(
        "Aryl reclaim {} started: nodes {}, deadline in {} ms, planned cost {} GPU-s, jobs {}",
        r.id(),
        r.nodes(),
        deadline - nowMs,
        Math.round(plan.costGpuS()),
        r.jobActions());
    return r;
  }

  /**
   * True while the reclaim that drains {@code d} still returns its node: else the kill is no longer
   * needed.
   */
  boolean stillReturning(Drain d) {
    for (Reclaim r : tracker.inFlight()) {
      if (r.id() == d.reclaimId()) {
        return r.pendingNodes().contains(d.node());
      }
    }
    return false;
  }

  /**
   * Moves every reclaim in flight forward: replaces lost nodes, drains what runs on the nodes still
   * to return, records as returned an empty node already labelled {@code inference}, and asks for
   * the other empty ones to be relabelled.
   *
   * @param elasticMinWorkers an elastic job's minimum workers, 0 for any other application (an
   *     elastic job's workers are shrunk or it is preempted, as {@link Reclaim#fateOf} says)
   * @param checkpoints each job's last checkpoint as its ApplicationMaster reported it
   * @return the relabels of empty nodes; {@link #relabelled} records each one carried out
   */
  List<Action> advance(
      List<NodeView> nodes,
      ClusterState state,
      ToIntFunction<String> elasticMinWorkers,
      Function<String, CheckpointReport> checkpoints,
      long nowMs,
      Tally tally) {
    if (tracker.inFlight().isEmpty()) {
      return List.of(); // most rounds: no map of every node by name
    }
    Map<String, NodeView> byId = new HashMap<>();
    nodes.forEach(n -> byId.put(n.id(), n));
    replaceLostNodes(byId, state, nowMs, tally);
    List<Action> relabels = new ArrayList<>();
    for (Reclaim r : tracker.inFlight()) {
      long killAt =
          Math.max(
              nowMs,
              Math.min(
                  nowMs + settings.shrinkGraceMs(), r.deadlineMs() - settings.roundIntervalMs()));
      for (String nodeId : r.pendingNodes()) {
        NodeView n = byId.get(nodeId);
        if (n == null) {
          continue; // cannot happen: lost nodes were replaced above
        }
        if (n.isEmpty()) {
          if (settings.inferenceLabel().equals(n.label())) {
            // Relabelled already (by this scheduler before it stopped, or a moment ago): only its
            // record is missing.
            nodeReturned(r, nodeId, nowMs, tally);
          } else {
            relabels.add(new Action.Relabel(nodeId, settings.inferenceLabel()));
          }
          continue;
        }
        for (ContainerView c : n.containers()) {
          int minWorkers = c.amContainer() ? 0 : elasticMinWorkers.applyAsInt(c.appId());
          if (minWorkers > 0 && r.fateOf(c.appId(), minWorkers, nodes) == Fate.SHRINK) {
            if (drain(r, c, nodeId, killAt) && recordShrunk(r, c, nodes, tally)) {
              tally.containersShrunk++;
            }
          } else if (minWorkers > 0) {
            preemptJob(r, c.appId(), nodes, killAt, checkpoints, nowMs, tally);
          } else if (drain(r, c, nodeId, killAt)
              && recordPreempted(r, c, checkpoints, nowMs, tally)) {
            tally.containersPreempted++;
          }
        }
      }
    }
    return relabels;
  }

  /**
   * The node was relabelled {@code inference} after it was found empty: if a reclaim in flight
   * returns it, it is recorded as returned. The relabel comes first and its record after: a
   * scheduler that stops in between finds the node still pending, already labelled inference and
   * empty, and records it then ({@link #advance}).
   */
  void relabelled(String nodeId, long nowMs, Tally tally) {
    for (Reclaim r : tracker.inFlight()) {
      if (r.pendingNodes().contains(nodeId)) {
        nodeReturned(r, nodeId, nowMs, tally);
        return;
      }
    }
  }

  private void nodeReturned(Reclaim r, String nodeId, long nowMs, Tally tally) {
    boolean done = tracker.nodeReturned(r, nodeId, nowMs);
    returned.accept(nodeId);
    if (done) {
      finished(r, tally);
    }
  }

  /**
   * A node that left the cluster (its NodeManager died or was decommissioned) cannot be returned:
   * another loaned node takes its place, chosen by the same least-cost rule, so the reclaim still
   * returns as many as it was asked for.
   */
  private void replaceLostNodes(
      Map<String, NodeView> byId, ClusterState state, long nowMs, Tally tally) {
    Set<String> taken = new HashSet<>(tracker.fencedNodes());
    for (Reclaim r : tracker.inFlight()) {
      for (String nodeId : r.pendingNodes()) {
        if (byId.containsKey(nodeId)) {
          continue;
        }
        ReclaimPlan plan = planner.plan(withFenced(state, taken), ReclaimRequest.any(1));
        String substitute = plan.isFeasible() ? plan.servers().get(0) : null;
        boolean done =
            tracker.nodeLost(
                r,
                nodeId,
                substitute,
                substitute == null ? Map.of() : ReclaimTracker.actions(plan),
                nowMs);
        if (substitute != null) {
          taken.add(substitute);
          LOG.warn(
              "Aryl reclaim {}: node {} left the cluster before it was returned; {} returns in its place",
              r.id(),
              nodeId,
              substitute);
        } else {
          LOG.warn(
              "Aryl reclaim {}: node {} left the cluster before it was returned, and no other node is on loan:"
                  + " the reclaim returns {} node(s) fewer",
              r.id(),
              nodeId,
              r.shortBy());
        }
        if (done) {
          finished(r, tally);
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

  /**
   * A job that falls below its minimum stops as a whole: every worker of it drains, wherever it
   * runs, and is killed at the grace also on a node the reclaim does not return ({@link
   * Drain#stopsJob}). The stop is counted as one preemption of the job, in the round its workers
   * start draining: the rounds after, and a scheduler resuming the reclaim after a restart, find
   * them draining already and count nothing.
   */
  private void preemptJob(
      Reclaim r,
      String appId,
      List<NodeView> nodes,
      long killAt,
      Function<String, CheckpointReport> checkpoints,
      long nowMs,
      Tally tally) {
    boolean stopsNow = false;
    for (NodeView n : nodes) {
      for (ContainerView c : n.containers()) {
        if (c.appId().equals(appId)
            && !c.amContainer()
            && drains.add(Drain.stop(c.id(), appId, n.id(), killAt, Reason.RECLAIM, r.id()))) {
          stopsNow = true;
          if (recordPreempted(r, c, checkpoints, nowMs, tally)) {
            tally.containersPreempted++;
          }
        }
      }
    }
    if (stopsNow) {
      progress.preempted(appId);
    }
  }

  /**
   * A shrink pauses every GPU of the job while it re-forms its group (the cost model's shrink
   * cost), so the job is charged once per reclaim, with its first shrunk container.
   */
  private boolean recordShrunk(Reclaim r, ContainerView c, List<NodeView> nodes, Tally tally) {
    double lost =
        tracker.chargeJob(r, c.appId()) ? jobGpus(c.appId(), nodes) * costs.rescaleOverheadS() : 0;
    boolean fresh = tracker.recordShrunk(r, c.id(), lost);
    if (fresh) {
      tally.gpuSecondsLost += Math.round(lost);
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

  /** Priced as the plan priced it: the work since the job's last checkpoint, and a restart. */
  private boolean recordPreempted(
      Reclaim r,
      ContainerView c,
      Function<String, CheckpointReport> checkpoints,
      long nowMs,
      Tally tally) {
    double since =
        checkpoints
            .apply(c.appId())
            .sinceCheckpointS(nowMs, progress.get(c.appId()).sinceChangeS());
    double lost = c.gpus() * (since + costs.restartOverheadS());
    boolean fresh = tracker.recordPreempted(r, c.id(), lost);
    if (fresh) {
      tally.gpuSecondsLost += Math.round(lost);
    }
    return fresh;
  }

  private void finished(Reclaim r, Tally tally) {
    tally.reclaimsFinished++;
    if (r.tookMs() >= 0) {
      tally.reclaimDurationsMs.add(r.tookMs());
    }
    if (r.late()) {
      tally.reclaimsLate++;
    }
    LOG.info(
        "Aryl reclaim {} done in {} ms{}: nodes {}, lost {}, {} containers shrunk, {} preempted, {} GPU-s lost",
        r.id(),
        r.tookMs(),
        r.late() ? " (LATE)" : "",
        r.returnedNodes(),
        r.lostNodes(),
        r.containersShrunk(),
        r.containersPreempted(),
        Math.round(r.gpuSecondsLost()));
    if (r.shortBy() > 0) {
      LOG.warn(
          "Aryl reclaim {} returned {} of the {} node(s) asked: {} lost with no loaned node left to take their"
              + " place",
          r.id(),
          r.returnedNodes().size(),
          r.requested(),
          r.shortBy());
    }
  }
}
