package io.aryl.yarn;

import io.aryl.yarn.round.PlanBook;
import io.aryl.core.model.Allocation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;
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

  /**
   * The asks to pass on for this heartbeat of the application's ApplicationMaster: what the plan grants, as strict
   * node-level asks on the nodes it chose. Strict asks keep the Capacity Scheduler from offering the application any
   * other node; were the grant passed as an ANY ask, the first application in the queue would propose (and be
   * refused) on every node it was not given, again and again, before a later application got its turn there.
   */
  List<ResourceRequest> asks(FiCaSchedulerApp attempt, List<ResourceRequest> ask) {
    String appId = attempt.getApplicationId().toString();
    ElasticApps.App app = apps.get(appId).orElse(null);
    if (app == null || attempt.isWaitingForAMContainer()) {
      return ask; // not elastic, or the ApplicationMaster's own container: the stock path
    }
    synchronized (app) { // the ApplicationMaster's heartbeat and the planning loop's push both come here
      return grantedAsks(app, attempt, ask);
    }
  }

  private List<ResourceRequest> grantedAsks(ElasticApps.App app, FiCaSchedulerApp attempt, List<ResourceRequest> ask) {
    String appId = app.id;
    boolean changed = false;
    for (ResourceRequest rr : ask) {
      if (ResourceRequest.ANY.equals(rr.getResourceName())) {
        ResourceRequest before = app.asks.put(askKey(rr), ResourceRequest.clone(rr));
        changed |= before == null || before.getNumContainers() != rr.getNumContainers();
      }
      // Node and rack asks of the ApplicationMaster are dropped: the plan places workers.
    }
    Allocation target = loop.book().target(appId);
    Map<String, Integer> need = new TreeMap<>();
    Map<String, Integer> live = liveWorkersByNode(attempt);
    target.workersByServer().forEach((node, w) -> {
      int n = w - live.getOrDefault(node, 0);
      if (n > 0) {
        need.put(node, n);
      }
    });
    int granted = loop.book().outstanding(appId, liveWorkers(attempt));
    if (changed && app.askedWorkers() > granted) {
      loop.requestRound(); // new demand: plan for it now rather than at the next tick
    }
    List<ResourceRequest> out = new ArrayList<>();
    for (Map.Entry<String, ResourceRequest> e : app.asks.entrySet()) {
      ResourceRequest any = e.getValue();
      int n = Math.min(any.getNumContainers(), granted);
      granted -= n;
      Map<String, Integer> placed = new TreeMap<>();
      Map<String, Integer> racks = new TreeMap<>();
      for (Map.Entry<String, Integer> nd : need.entrySet()) {
        if (n == 0) {
          break;
        }
        String rack = loop.rackOf(nd.getKey());
        int k = Math.min(n, nd.getValue());
        if (k <= 0 || rack == null) {
          continue;
        }
        n -= k;
        nd.setValue(nd.getValue() - k);
        placed.put(nd.getKey(), k);
        racks.merge(rack, k, Integer::sum);
      }
      Set<String> names = new HashSet<>();
      placed.forEach((node, k) -> out.add(localAsk(any, node, k, true)));
      racks.forEach((rack, k) -> out.add(localAsk(any, rack, k, false)));
      names.addAll(placed.keySet());
      names.addAll(racks.keySet());
      // Names asked for before and not now go to zero, or the Capacity Scheduler keeps the old count.
      Set<String> previous = app.sentNames.getOrDefault(e.getKey(), Set.of());
      for (String old : previous) {
        if (!names.contains(old)) {
          out.add(localAsk(any, old, 0, !old.startsWith("/")));
        }
      }
      app.sentNames.put(e.getKey(), names);
      ResourceRequest strictAny = ResourceRequest.clone(any);
      strictAny.setNumContainers(placed.values().stream().mapToInt(Integer::intValue).sum());
      strictAny.setRelaxLocality(false);
      out.add(strictAny);
    }
    return out;
  }

  private static String askKey(ResourceRequest rr) {
    return rr.getPriority().getPriority() + "/" + rr.getAllocationRequestId() + "/" + rr.getCapability();
  }

  /** A node or rack ask; only the ANY ask may carry a label expression. */
  private static ResourceRequest localAsk(ResourceRequest any, String name, int count, boolean relax) {
    ResourceRequest r = ResourceRequest.clone(any);
    r.setResourceName(name);
    r.setNumContainers(count);
    r.setRelaxLocality(relax);
    r.setNodeLabelExpression(null);
    return r;
  }

  private Map<String, Integer> liveWorkersByNode(FiCaSchedulerApp attempt) {
    Map<String, Integer> out = new HashMap<>();
    for (RMContainer c : attempt.getLiveContainers()) {
      if (!c.isAMContainer() && c.getNodeId() != null) {
        String name = loop.nodeNameOf(c.getNodeId());
        if (name != null) {
          out.merge(name, 1, Integer::sum);
        }
      }
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
