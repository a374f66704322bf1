package io.aryl.yarn.rm;

import java.util.Map;
import java.util.function.Predicate;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.SchedulableEntity;

/**
 * To whom a plan-aware queue ({@link PlanAwareOrdering}) offers a node: every application that is
 * not elastic, the elastic ones the plan placed, and those waiting for their ApplicationMaster's
 * container (which the plan does not place). One rule, read two ways: in a node's heartbeat
 * "placed" means promised workers on that node; on the asynchronous scheduling thread, which walks
 * nodes outside heartbeats, it means admitted anywhere.
 */
final class NodeOffers {
  private final ElasticApps apps;

  NodeOffers(ElasticApps apps) {
    this.apps = apps;
  }

  /**
   * In the heartbeat of a node on which the plan promised {@code promised} (workers by
   * application).
   */
  Predicate<SchedulableEntity> onNode(Map<String, Integer> promised) {
    Predicate<String> placed =
        promised::containsKey; // made once per heartbeat, not once per application
    return e -> offered(e, placed);
  }

  /**
   * Outside node heartbeats, where {@code admitted} says whether the latest plan placed an
   * application anywhere.
   */
  Predicate<SchedulableEntity> anywhere(Predicate<String> admitted) {
    return e -> offered(e, admitted);
  }

  /**
   * Whether {@code a} is offered every node, wherever the plan placed workers: plain, or waiting
   * for its master.
   */
  boolean offeredEveryNode(FiCaSchedulerApp a) {
    return apps.get(a.getApplicationId()) == null || a.isWaitingForAMContainer();
  }

  private boolean offered(SchedulableEntity e, Predicate<String> placed) {
    if (e instanceof FiCaSchedulerApp a) {
      // By the attempt's application id: getId() builds a new string on every call, once per
      // application per node.
      ElasticApps.App app = apps.get(a.getApplicationId());
      return app == null || a.isWaitingForAMContainer() || placed.test(app.id);
    }
    String id = e.getId();
    return !apps.isElastic(id) || placed.test(id);
  }
}
