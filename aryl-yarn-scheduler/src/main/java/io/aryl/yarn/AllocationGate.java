package io.aryl.yarn;

import io.aryl.yarn.round.PlanBook;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ResourceCommitRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.SchedulerContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * Where the plan meets the Capacity Scheduler's allocation path.
 *
 * <ul>
 *   <li>{@link #asks}: an elastic application's worker asks reach the Capacity Scheduler only as far as the plan grants
 *       them, so a job not admitted asks for nothing and cannot hold part of its gang.
 *   <li>{@link #accepts}: a proposal is vetoed when it would put an elastic worker on a node the plan did not choose,
 *       any container on a fenced node, or another application's GPUs into room promised to an admitted gang.
 * </ul>
 */
final class AllocationGate {
  private final ElasticApps apps;
  private final PlanningLoop loop;

  AllocationGate(ElasticApps apps, PlanningLoop loop) {
    this.apps = apps;
    this.loop = loop;
  }

  /** The asks to pass on for this heartbeat of the application's ApplicationMaster. */
  List<ResourceRequest> asks(FiCaSchedulerApp attempt, List<ResourceRequest> ask) {
    String appId = attempt.getApplicationId().toString();
    ElasticApps.App app = apps.get(appId).orElse(null);
    if (app == null || attempt.isWaitingForAMContainer()) {
      return ask; // not elastic, or the ApplicationMaster's own container: the stock path
    }
    for (ResourceRequest rr : ask) {
      if (ResourceRequest.ANY.equals(rr.getResourceName())) {
        app.asks.put(rr.getPriority().getPriority() + "/" + rr.getAllocationRequestId(), ResourceRequest.clone(rr));
      }
      // Node and rack asks are dropped: the plan places workers.
    }
    int granted = loop.book().outstanding(appId, liveWorkers(attempt));
    List<ResourceRequest> out = new ArrayList<>();
    for (ResourceRequest rr : app.asks.values()) {
      ResourceRequest pass = ResourceRequest.clone(rr);
      int n = Math.min(rr.getNumContainers(), granted);
      granted -= n;
      pass.setNumContainers(n);
      out.add(pass);
    }
    return out;
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
    if (loop.fenced().contains(nodeId)) {
      return false;
    }
    String appId = app.getApplicationId().toString();
    boolean reservation = !request.getContainersToReserve().isEmpty();
    if (apps.isElastic(appId) && !app.isWaitingForAMContainer()) {
      // A gang never waits on a reservation: the plan only admits what fits now.
      return !reservation && loop.book().mayPlace(appId, nodeId, liveWorkersOn(app, node));
    }
    int gpus = RmReader.gpus(reservation ? request.getTotalReservedResource() : request.getTotalAllocatedResource());
    if (gpus == 0) {
      return true;
    }
    Map<String, Integer> promised = loop.book().promisedOn(nodeId);
    if (promised.isEmpty()) {
      return true;
    }
    return RmReader.gpus(node.getUnallocatedResource()) - gpus >= unfilledPromiseGpus(node, promised);
  }

  private int unfilledPromiseGpus(FiCaSchedulerNode node, Map<String, Integer> promised) {
    Map<String, Integer> live = new HashMap<>();
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      if (!c.isAMContainer()) {
        live.merge(c.getApplicationAttemptId().getApplicationId().toString(), 1, Integer::sum);
      }
    }
    int gpus = 0;
    for (Map.Entry<String, Integer> p : promised.entrySet()) {
      int missing = p.getValue() - live.getOrDefault(p.getKey(), 0);
      if (missing > 0) {
        gpus += missing * apps.get(p.getKey()).map(a -> a.shape.gpusPerWorker()).orElse(0);
      }
    }
    return gpus;
  }

  static int liveWorkers(FiCaSchedulerApp app) {
    int n = 0;
    for (RMContainer c : app.getLiveContainers()) {
      if (!c.isAMContainer()) {
        n++;
      }
    }
    return n;
  }

  static int liveWorkersOn(FiCaSchedulerApp app, FiCaSchedulerNode node) {
    int n = 0;
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      if (!c.isAMContainer() && c.getApplicationAttemptId().getApplicationId().equals(app.getApplicationId())) {
        n++;
      }
    }
    return n;
  }
}
