package io.aryl.yarn.rm;

import io.aryl.core.job.JobShape;
import io.aryl.core.model.Allocation;
import io.aryl.yarn.engine.Promises;
import io.aryl.yarn.round.PlanBook;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
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
 *   <li>{@link #asks}: an elastic application's worker asks reach the Capacity Scheduler only as
 *       far as the plan grants them, so a job not admitted asks for nothing and cannot hold part of
 *       its gang.
 *   <li>{@link #accepts}: a proposal is vetoed when it would put an elastic worker on a node the
 *       plan did not choose, any container on a fenced node, or another application's GPUs into
 *       room promised to an admitted gang.
 * </ul>
 */
public final class AllocationGate {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(AllocationGate.class);

  /**
   * The key of a moved job's grant among its asks (the ApplicationMaster's are keyed by priority
   * and request id).
   */
  private static final String MOVE_KEY = "move";

  private final ElasticApps apps;
  private final RoundRunner loop;

  /**
   * A node's label as the label manager has it now (the scheduler's node learns a change a moment
   * later).
   */
  private final Function<NodeId, String> labelOf;

  AllocationGate(ElasticApps apps, RoundRunner loop, Function<NodeId, String> labelOf) {
    this.apps = apps;
    this.loop = loop;
    this.labelOf = labelOf;
  }

  /**
   * The asks to pass on for this heartbeat of the application's ApplicationMaster: what the plan
   * grants, as strict node-level asks on the nodes it chose. Strict asks keep the Capacity
   * Scheduler from offering the application any other node; were the grant passed as an ANY ask,
   * the first application in the queue would propose (and be refused) on every node it was not
   * given, again and again, before a later application got its turn there.
   */
  List<ResourceRequest> asks(FiCaSchedulerApp attempt, List<ResourceRequest> ask) {
    String appId = attempt.getApplicationId().toString();
    ElasticApps.App app = apps.get(appId).orElse(null);
    if (app == null || attempt.isWaitingForAMContainer()) {
      return ask; // not elastic, or the ApplicationMaster's own container: the stock path
    }
    synchronized (
        app) { // the ApplicationMaster's heartbeat and the planning loop's push both come here
      return grantedAsks(app, attempt, ask);
    }
  }

  /**
   * A worker container is never larger in GPUs than the job's declared {@code
   * aryl.gpus-per-worker}: the caps and the plan count that, so an ApplicationMaster asking for
   * more gets containers of the declared size.
   */
  private static void holdToShape(ElasticApps.App app, ResourceRequest rr) {
    int declared = app.shape.gpusPerWorker();
    int asked = RmReader.gpus(rr.getCapability());
    if (asked <= declared) {
      return;
    }
    org.apache.hadoop.yarn.api.records.Resource held =
        org.apache.hadoop.yarn.api.records.Resource.newInstance(rr.getCapability());
    held.setResourceValue(org.apache.hadoop.yarn.api.records.ResourceInformation.GPU_URI, declared);
    rr.setCapability(held);
    if (!app.oversizeLogged) {
      app.oversizeLogged = true;
      LOG.warn(
          "Aryl: {} asks for {}-GPU containers but declared {}={}: its containers get {} GPU(s)",
          app.id,
          asked,
          JobShape.GPUS_PER_WORKER,
          declared,
          declared);
    }
  }

  private List<ResourceRequest> grantedAsks(
      ElasticApps.App app, FiCaSchedulerApp attempt, List<ResourceRequest> ask) {
    String appId = app.id;
    boolean changed = false;
    for (ResourceRequest rr : ask) {
      if (ResourceRequest.ANY.equals(rr.getResourceName())) {
        // The ApplicationMaster still counts workers allocated but not yet handed to it as asked
        // for.
        ResourceRequest outstanding = ResourceRequest.clone(rr);
        holdToShape(app, outstanding);
        outstanding.setNumContainers(
            Math.max(
                0,
                rr.getNumContainers()
                    - app.unseen.getOrDefault(
                        unseenKey(attempt, rr.getPriority(), rr.getAllocationRequestId()), 0)));
        ResourceRequest before = app.asks.put(askKey(rr), outstanding);
        changed |= before == null || before.getNumContainers() != outstanding.getNumContainers();
      }
      // Node and rack asks of the ApplicationMaster are dropped: the plan places workers.
    }
    Promises promises = loop.promises(); // one round's book and fences for the whole heartbeat
    Allocation target = promises.book().target(appId);
    Map<String, Integer> need = new TreeMap<>();
    Map<String, Integer> live = liveWorkersByNode(attempt);
    target
        .workersByServer()
        .forEach(
            (node, w) -> {
              int n = w - live.getOrDefault(node, 0);
              if (n > 0) {
                need.put(node, n);
              }
            });
    // Workers being moved off their nodes are as good as gone: their replacements are granted while
    // they still run.
    int moving = promises.moving(appId);
    int granted = promises.book().outstanding(appId, liveWorkers(attempt) - moving);
    if (changed && app.askedWorkers() > granted) {
      loop.requestRound(); // new demand: plan for it now rather than at the next tick
    }
    // A move's new workers go first, under their own request id, so that the ApplicationMaster
    // knows them for what
    // they are (not a grow); the ApplicationMaster's own asks get the rest.
    List<Map.Entry<String, ResourceRequest>> grants = new ArrayList<>();
    ResourceRequest template = app.asks.values().stream().findFirst().orElse(null);
    int moveGrant = template == null ? 0 : Math.min(moving, granted);
    if (template != null && (moveGrant > 0 || app.sentNames.containsKey(MOVE_KEY))) {
      ResourceRequest move = ResourceRequest.clone(template);
      move.setAllocationRequestId(JobShape.MOVE_REQUEST_ID);
      move.setNumContainers(moveGrant);
      grants.add(Map.entry(MOVE_KEY, move));
      granted -= moveGrant;
    }
    grants.addAll(app.asks.entrySet());
    List<ResourceRequest> out = new ArrayList<>();
    for (Map.Entry<String, ResourceRequest> e : grants) {
      ResourceRequest any = e.getValue();
      int n = e.getKey().equals(MOVE_KEY) ? moveGrant : Math.min(any.getNumContainers(), granted);
      if (!e.getKey().equals(MOVE_KEY)) {
        granted -= n;
      }
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
      // Names asked for before and not now go to zero, or the Capacity Scheduler keeps the old
      // count.
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
    if (moveGrant == 0) {
      app.sentNames.remove(MOVE_KEY); // its zeroes were sent above, once
    }
    return out;
  }

  /**
   * Takes the workers a commit request allocates out of their application's asks before it is
   * committed, as the Capacity Scheduler takes them out of its own pending asks. Without this an
   * ask kept counting workers already allocated until the ApplicationMaster's next heartbeat: a
   * round in between planned the job that many workers more, and pushed the grant at once, so that
   * a node heartbeat could allocate workers nobody asked for (which the ApplicationMaster hands
   * back) and the next gang was planned around them. Until {@link Allocating#ended} the workers
   * count as {@linkplain ElasticApps.App#askedOrAllocating() being allocated}, so that a round
   * reading across the commit does not see them in neither the asks nor the nodes.
   */
  Allocating allocating(ResourceCommitRequest<FiCaSchedulerApp, FiCaSchedulerNode> request) {
    Allocating allocating = new Allocating();
    if (request.getContainersToAllocate() == null) {
      return allocating;
    }
    for (var proposal : request.getContainersToAllocate()) {
      SchedulerContainer<FiCaSchedulerApp, FiCaSchedulerNode> sc =
          proposal.getAllocatedOrReservedContainer();
      FiCaSchedulerApp attempt = sc.getSchedulerApplicationAttempt();
      ElasticApps.App app = apps.get(attempt.getApplicationId().toString()).orElse(null);
      if (app == null || attempt.isWaitingForAMContainer() || sc.getRmContainer() == null) {
        continue;
      }
      Container c = sc.getRmContainer().getContainer();
      synchronized (app) {
        for (Map.Entry<String, ResourceRequest> e : app.asks.entrySet()) {
          ResourceRequest rr = e.getValue();
          if (rr.getNumContainers() > 0
              && rr.getPriority().equals(c.getPriority())
              && rr.getAllocationRequestId() == c.getAllocationRequestId()) {
            String key = e.getKey();
            String unseen = unseenKey(attempt, c.getPriority(), c.getAllocationRequestId());
            app.allocationStarted(); // before it leaves the ask: a round reads the asks first
            addToAsk(app, key, -1);
            app.unseen.merge(unseen, 1, Integer::sum);
            allocating.workers.add(new Allocating.Worker(app, key, unseen));
            break;
          }
        }
      }
    }
    return allocating;
  }

  /** The workers of one commit request, taken out of their asks by {@link #allocating}. */
  public static final class Allocating {
    private record Worker(ElasticApps.App app, String askKey, String unseenKey) {}

    private final List<Worker> workers = new ArrayList<>();

    /**
     * Once the commit ended and, if it committed, its containers are where a round reads them: a
     * worker not committed goes back into its ask.
     */
    public void ended(boolean committed) {
      for (Worker w : workers) {
        synchronized (w.app) {
          if (!committed) {
            addToAsk(w.app, w.askKey, 1);
            w.app.unseen.computeIfPresent(w.unseenKey, (k, n) -> n > 1 ? n - 1 : null);
          }
          w.app.allocationEnded();
        }
      }
    }
  }

  /**
   * The ApplicationMaster was handed these containers: its asks from now on no longer count them.
   */
  void handedOver(FiCaSchedulerApp attempt, List<Container> containers) {
    ElasticApps.App app = apps.get(attempt.getApplicationId().toString()).orElse(null);
    if (app == null || containers == null || containers.isEmpty()) {
      return;
    }
    synchronized (app) {
      for (Container c : containers) {
        app.unseen.computeIfPresent(
            unseenKey(attempt, c.getPriority(), c.getAllocationRequestId()),
            (k, n) -> n > 1 ? n - 1 : null);
      }
    }
  }

  /** Replaces the ask with a copy of it holding {@code delta} more containers (never below 0). */
  private static void addToAsk(ElasticApps.App app, String key, int delta) {
    ResourceRequest rr = app.asks.get(key);
    if (rr != null) {
      ResourceRequest updated = ResourceRequest.clone(rr);
      updated.setNumContainers(Math.max(0, rr.getNumContainers() + delta));
      app.asks.put(key, updated); // swapped whole: rounds read the asks without the lock
    }
  }

  private static String unseenKey(
      FiCaSchedulerApp attempt, Priority priority, long allocationRequestId) {
    return attempt.getApplicationAttemptId()
        + "/"
        + priority.getPriority()
        + "/"
        + allocationRequestId;
  }

  private static String askKey(ResourceRequest rr) {
    return rr.getPriority().getPriority()
        + "/"
        + rr.getAllocationRequestId()
        + "/"
        + rr.getCapability();
  }

  /** A node or rack ask; only the ANY ask may carry a label expression. */
  private static ResourceRequest localAsk(
      ResourceRequest any, String name, int count, boolean relax) {
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
    Promises promises = loop.promises(); // one round's book and fences for the whole proposal
    if (promises.fenced().contains(nodeId)) {
      return false;
    }
    if (!labelOf.apply(node.getNodeID()).equals(proposal.getNodePartition())) {
      // Relabelled since the proposal was made (a reclaimed node just returned to inference, whose
      // scheduler node
      // still reads training): a worker asked for there would land in the other pool.
      return false;
    }
    String appId = app.getApplicationId().toString();
    boolean reservation = !request.getContainersToReserve().isEmpty();
    if (apps.isElastic(appId) && !app.isWaitingForAMContainer()) {
      // A gang never waits on a reservation: the plan only admits what fits now.
      return !reservation
          && promises.book().mayPlace(appId, nodeId, liveWorkersOn(app, node))
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
    if (app == null || liveWorkers(attempt) >= app.shape.minWorkers()) {
      return true;
    }
    Map<String, Integer> live = liveWorkersByNode(attempt);
    for (Map.Entry<String, Integer> t : book.target(app.id).workersByServer().entrySet()) {
      int missing = t.getValue() - live.getOrDefault(t.getKey(), 0);
      if (missing <= 0) {
        continue;
      }
      FiCaSchedulerNode node = loop.nodeNamed(t.getKey());
      if (node == null
          || RmReader.gpus(node.getUnallocatedResource()) < missing * app.shape.gpusPerWorker()) {
        return false;
      }
    }
    return true;
  }

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
      // until the next round
      // replans it, all of that room stays its own.
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
      if (!c.isAMContainer()
          && c.getApplicationAttemptId().getApplicationId().equals(app.getApplicationId())) {
        n++;
      }
    }
    return n;
  }
}
