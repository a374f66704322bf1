package io.aryl.yarn.rm;

import io.aryl.yarn.round.PlanBook;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AbstractLeafQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * To whom the Capacity Scheduler offers each node, by the promises in force ({@link NodeOffers}):
 * in an allocation on one node, on its asynchronous walk of the nodes (through the plan-aware
 * queues' ordering policies, {@link PlanAwareOrdering}), and whether a node with nothing promised
 * has anyone to be offered to at all ({@link UnplannedDemand}).
 */
final class PlanAwareOffers {
  private final CapacityScheduler scheduler;
  private final NodeOffers offers;

  /**
   * Whether a node with nothing promised has anyone to be offered to: scans re-checked every 20 ms,
   * at most 1 s old.
   */
  private final UnplannedDemand unplanned =
      new UnplannedDemand(this::unplannedAsking, System::nanoTime, 20, 1_000);

  PlanAwareOffers(CapacityScheduler scheduler, ElasticApps apps) {
    this.scheduler = scheduler;
    this.offers = new NodeOffers(apps);
  }

  /**
   * Runs an allocation on the node offering it only to the applications that may take something
   * there: plain ones, those waiting for their ApplicationMaster's container, and the elastic ones
   * the book promised workers on it.
   */
  <T> T allocatingOn(FiCaSchedulerNode node, PlanBook book, Supplier<T> allocation) {
    return PlanAwareOrdering.serving(
        offers.onNode(book.promisedOn(node.getNodeName())), allocation);
  }

  /** A node with nothing promised, while no application outside the plan asks for containers. */
  boolean noOneToOffer(FiCaSchedulerNode node, PlanBook book) {
    return book.promisedOn(node.getNodeName()).isEmpty() && !unplanned.mayBeAsking();
  }

  /**
   * The attempt's ApplicationMaster asks for containers: if the attempt is offered every node, an
   * application outside the plan may be asking now. Called before its asks are pending, so that a
   * scan that missed them cannot clear them away.
   */
  void asking(FiCaSchedulerApp attempt) {
    if (offers.offeredEveryNode(attempt)) {
      unplanned.changed();
    }
  }

  /** A container ended before its application took it: someone may be asking again. */
  void containerCompleted() {
    unplanned.changed();
  }

  /**
   * The queues' ordering policies are new (start-up, a refresh): tells the plan-aware ones whom to
   * offer nodes outside heartbeats, by the book in force whenever they ask.
   */
  void offerAdmittedOutsideHeartbeats(Supplier<PlanBook> book) {
    for (CSQueue q : scheduler.getCapacitySchedulerQueueManager().getQueues().values()) {
      if (q instanceof AbstractLeafQueue leaf
          && leaf.getOrderingPolicy() instanceof PlanAwareOrdering<?> p) {
        p.offerOutsideHeartbeats(offers.anywhere(id -> book.get().admitted(id)));
      }
    }
  }

  /**
   * Whether an application offered every node ({@link NodeOffers#offeredEveryNode}) has containers
   * pending.
   */
  private boolean unplannedAsking() {
    for (SchedulerApplication<FiCaSchedulerApp> app :
        scheduler.getSchedulerApplications().values()) {
      FiCaSchedulerApp attempt = app.getCurrentAppAttempt();
      if (attempt != null
          && offers.offeredEveryNode(attempt)
          && !zero(attempt.getAppAttemptResourceUsage().getAllPending())) {
        return true;
      }
    }
    return false;
  }

  private static boolean zero(Resource r) {
    for (var ri : r.getResources()) {
      if (ri.getValue() != 0) {
        return false;
      }
    }
    return true;
  }
}
