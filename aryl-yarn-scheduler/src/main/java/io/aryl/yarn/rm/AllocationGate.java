package io.aryl.yarn.rm;

import io.aryl.core.job.JobShape;
import io.aryl.core.model.Allocation;
import io.aryl.yarn.engine.Promises;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AbstractLeafQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;

/**
 * What an elastic application's ApplicationMaster heartbeat passes on to the Capacity Scheduler:
 * its worker asks only as far as the plan grants them, so a job not admitted asks for nothing and
 * cannot hold part of its gang, and an admitted one asks only for the nodes the plan chose. After a
 * round the grants are passed on at once ({@link #push}), as the next heartbeat would. The asks it
 * grants from are kept by the {@link AskLedger}; the proposals that follow are checked by {@link
 * ProposalCheck}.
 */
final class AllocationGate {
  /**
   * The key of a moved job's grant among its asks (the ApplicationMaster's are keyed by priority
   * and request id).
   */
  private static final String MOVE_KEY = "move";

  private final CapacityScheduler scheduler;

  /** The Capacity Scheduler's own normalisation of asks, which it keeps to its subclasses. */
  private final Consumer<List<ResourceRequest>> normalize;

  private final ElasticApps apps;
  private final AskLedger ledger;
  private final RoundRunner rounds;

  AllocationGate(
      CapacityScheduler scheduler,
      Consumer<List<ResourceRequest>> normalize,
      ElasticApps apps,
      AskLedger ledger,
      RoundRunner rounds) {
    this.scheduler = scheduler;
    this.normalize = normalize;
    this.apps = apps;
    this.ledger = ledger;
    this.rounds = rounds;
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
    // The ApplicationMaster's heartbeat and the planning loop's push both come here.
    synchronized (app) {
      boolean changed = ledger.record(app, attempt, ask);
      return grantedAsks(app, attempt, changed);
    }
  }

  /**
   * Hands a round's grants to the Capacity Scheduler at once, as the applications' next heartbeats
   * would: without this, a job admitted now would wait for its ApplicationMaster's next heartbeat
   * before any node could take it.
   */
  void push(Set<String> appIds) {
    for (String id : appIds) {
      var sa = scheduler.getSchedulerApplications().get(ApplicationId.fromString(id));
      FiCaSchedulerApp attempt = sa == null ? null : sa.getCurrentAppAttempt();
      if (attempt == null || attempt.isWaitingForAMContainer()) {
        continue;
      }
      List<ResourceRequest> asks = new ArrayList<>(asks(attempt, List.of()));
      normalize.accept(asks);
      boolean updated;
      attempt.getWriteLock().lock();
      try {
        updated = !attempt.isStopped() && attempt.updateResourceRequests(asks);
      } finally {
        attempt.getWriteLock().unlock();
      }
      if (updated && attempt.getQueue() instanceof AbstractLeafQueue q) {
        q.getOrderingPolicy().demandUpdated(attempt);
      }
    }
  }

  /**
   * The asks the plan grants the application now, its moved workers' first.
   *
   * @param changed whether the heartbeat changed the application's asks: new demand
   */
  private List<ResourceRequest> grantedAsks(
      ElasticApps.App app, FiCaSchedulerApp attempt, boolean changed) {
    String appId = app.id;
    Promises promises = rounds.promises(); // one round's book and fences for the whole heartbeat
    Allocation target = promises.book().target(appId);
    Map<String, Integer> need = new TreeMap<>();
    Map<String, Integer> live = LiveWorkers.byNode(attempt, rounds.nodeLookup());
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
    int granted = promises.book().outstanding(appId, LiveWorkers.of(attempt) - moving);
    if (changed && app.askedWorkers() > granted) {
      rounds.requestRound(); // new demand: plan for it now rather than at the next tick
    }
    // A move's new workers go first, under their own request id, so that the ApplicationMaster
    // knows them for what they are (not a grow); the ApplicationMaster's own asks get the rest.
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
      out.addAll(strictAsks(app, e.getKey(), any, n, need));
    }
    if (moveGrant == 0) {
      app.sentNames.remove(MOVE_KEY); // its zeroes were sent above, once
    }
    return out;
  }

  /**
   * One of the application's asks, granted {@code n} workers, as strict asks on the nodes that
   * still {@code need} them (taken out of {@code need}), their racks, and a strict ANY ask; the
   * names this ask was last sent for and not now go to zero, or the Capacity Scheduler keeps their
   * old counts.
   */
  private List<ResourceRequest> strictAsks(
      ElasticApps.App app, String key, ResourceRequest any, int n, Map<String, Integer> need) {
    Map<String, Integer> placed = new TreeMap<>();
    Map<String, Integer> racks = new TreeMap<>();
    for (Map.Entry<String, Integer> nd : need.entrySet()) {
      if (n == 0) {
        break;
      }
      String rack = rounds.nodeLookup().rackOf(nd.getKey());
      int k = Math.min(n, nd.getValue());
      if (k <= 0 || rack == null) {
        continue;
      }
      n -= k;
      nd.setValue(nd.getValue() - k);
      placed.put(nd.getKey(), k);
      racks.merge(rack, k, Integer::sum);
    }
    List<ResourceRequest> out = new ArrayList<>();
    placed.forEach((node, k) -> out.add(localAsk(any, node, k, true)));
    racks.forEach((rack, k) -> out.add(localAsk(any, rack, k, false)));
    Set<String> names = new HashSet<>();
    names.addAll(placed.keySet());
    names.addAll(racks.keySet());
    for (String old : app.sentNames.getOrDefault(key, Set.of())) {
      if (!names.contains(old)) {
        out.add(localAsk(any, old, 0, !old.startsWith("/")));
      }
    }
    app.sentNames.put(key, names);
    ResourceRequest strictAny = ResourceRequest.clone(any);
    strictAny.setNumContainers(placed.values().stream().mapToInt(Integer::intValue).sum());
    strictAny.setRelaxLocality(false);
    out.add(strictAny);
    return out;
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
}
