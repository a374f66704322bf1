package io.aryl.yarn.rm;

import io.aryl.yarn.engine.Promises;
import io.aryl.yarn.round.PlanBook;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ResourceCommitRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.SchedulerContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * Whether the Capacity Scheduler may commit an allocation proposal ({@code tryCommit}), held to the
 * promises of the last round: a proposal is vetoed when it would put an elastic worker on a node
 * the plan did not choose (or a gang's first workers on room not yet free), any container on a
 * fenced node or on a node relabelled since the proposal, or another application's GPUs into room
 * promised to an admitted gang or to a plain application's pending containers.
 *
 * <p>The strict asks a heartbeat passes on ({@link AllocationGate}) keep an elastic application's
 * proposals on its planned nodes; this check holds every proposal to the promises: those of
 * applications outside the plan too, and those made before a round changed the promises.
 */
final class ProposalCheck {
  private final ElasticApps apps;
  private final RoundRunner rounds;

  /**
   * A node's label as the label manager has it now (the scheduler's node learns a change a moment
   * later).
   */
  private final Function<NodeId, String> labelOf;

  ProposalCheck(ElasticApps apps, RoundRunner rounds, Function<NodeId, String> labelOf) {
    this.apps = apps;
    this.rounds = rounds;
    this.labelOf = labelOf;
  }

  boolean accepts(ResourceCommitRequest<FiCaSchedulerApp, FiCaSchedulerNode> request) {
    if (!request.anythingAllocatedOrReserved()) {
      return true;
    }
    SchedulerContainer<FiCaSchedulerApp, FiCaSchedulerNode> proposal =
        request.getFirstAllocatedOrReservedContainer().getAllocatedOrReservedContainer();
    FiCaSchedulerApp app = proposal.getSchedulerApplicationAttempt();
    FiCaSchedulerNode node = proposal.getSchedulerNode();
    String nodeId = node.getNodeName();
    Promises promises = rounds.promises(); // one round's book and fences for the whole proposal
    if (promises.fenced().contains(nodeId)) {
      return false;
    }
    if (!labelOf.apply(node.getNodeID()).equals(proposal.getNodePartition())) {
      // Relabelled since the proposal was made (a reclaimed node just returned to inference, whose
      // scheduler node still reads training): a worker asked for there would land in the other
      // pool.
      return false;
    }
    String appId = app.getApplicationId().toString();
    boolean reservation = !request.getContainersToReserve().isEmpty();
    if (apps.isElastic(appId) && !app.isWaitingForAMContainer()) {
      // A gang never waits on a reservation: the plan only admits what fits now.
      return !reservation
          && promises.book().mayPlace(appId, nodeId, LiveWorkers.on(app, node))
          && gangFitsNow(app, promises.book());
    }
    int gpus =
        RmReader.gpus(
            reservation ? request.getTotalReservedResource() : request.getTotalAllocatedResource());
    if (gpus == 0) {
      return true;
    }
    PlanBook book = promises.book();
    Map<String, Integer> promised = book.promisedOn(nodeId);
    if (promised.isEmpty()) {
      return true;
    }
    // A plain application's own promise is room made for it: only the others' unfilled promises are
    // kept free.
    return RmReader.gpus(node.getUnallocatedResource()) - gpus
        >= unfilledPromiseGpus(node, promised, book, appId);
  }

  /**
   * Whether a job still short of its gang may take a worker now: only when every node of its target
   * has room for all of its workers still to come. The plan may admit a gang into room that
   * containers being drained still hold; were its first workers allocated as that room trickled
   * free, the next round would find a partial gang, give it up and drain it, and the shrink that
   * made its room would be called off.
   */
  private boolean gangFitsNow(FiCaSchedulerApp attempt, PlanBook book) {
    ElasticApps.App app = apps.get(attempt.getApplicationId().toString()).orElse(null);
    if (app == null || LiveWorkers.of(attempt) >= app.shape.minWorkers()) {
      return true;
    }
    Map<String, Integer> live = LiveWorkers.byNode(attempt, rounds.nodeLookup());
    for (Map.Entry<String, Integer> t : book.target(app.id).workersByServer().entrySet()) {
      int missing = t.getValue() - live.getOrDefault(t.getKey(), 0);
      if (missing <= 0) {
        continue;
      }
      FiCaSchedulerNode node = rounds.nodeLookup().named(t.getKey());
      if (node == null
          || RmReader.gpus(node.getUnallocatedResource()) < missing * app.shape.gpusPerWorker()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The GPUs the node must keep free for the promises on it of applications other than this one.
   */
  private int unfilledPromiseGpus(
      FiCaSchedulerNode node, Map<String, Integer> promised, PlanBook book, String proposer) {
    Map<String, Integer> live = new HashMap<>();
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      if (!c.isAMContainer()) {
        live.merge(c.getApplicationAttemptId().getApplicationId().toString(), 1, Integer::sum);
      }
    }
    int gpus = 0;
    for (Map.Entry<String, Integer> p : promised.entrySet()) {
      if (p.getKey().equals(proposer)) {
        continue;
      }
      // A plain application was promised room for its pending containers, beyond those it runs:
      // until the next round replans it, all of that room stays its own.
      boolean plain = !apps.isElastic(p.getKey());
      int missing = p.getValue() - (plain ? 0 : live.getOrDefault(p.getKey(), 0));
      if (missing > 0) {
        int perWorker = book.gpusPerWorker(p.getKey());
        gpus +=
            missing
                * (perWorker > 0
                    ? perWorker
                    : apps.get(p.getKey()).map(a -> a.shape.gpusPerWorker()).orElse(0));
      }
    }
    return gpus;
  }
}
