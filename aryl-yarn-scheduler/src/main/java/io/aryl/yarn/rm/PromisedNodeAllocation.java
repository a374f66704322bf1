package io.aryl.yarn.rm;

import io.aryl.yarn.round.PlanBook;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.SingleNodeProposal;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * Under asynchronous scheduling, offers each node a round has just promised workers on to the
 * Capacity Scheduler at once, on a thread of its own, rather than when its scheduling thread's walk
 * comes round to it.
 *
 * <p>Why: that thread walks every node in turn, and at thousands of nodes a walk takes seconds. A
 * grant asks only for its planned nodes, so it waited for the walk to reach them: under SLS at
 * 2,000 nodes, 7 s from admission to the first worker (p50), where the stock scheduler's unplaced
 * ask is taken by whichever node comes first. The proposals made here are committed, or refused by
 * {@link ProposalCheck}, as the walk's are.
 */
final class PromisedNodeAllocation implements AutoCloseable {
  private final Function<String, FiCaSchedulerNode> nodeNamed;
  private final Supplier<PlanBook> book;

  /**
   * Proposes at most one container on the node to the applications offered it there; true if it
   * did.
   */
  private final BiPredicate<FiCaSchedulerNode, Map<String, Integer>> proposeOnce;

  private final Set<String> pending = ConcurrentHashMap.newKeySet();
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "aryl-promised-nodes");
            t.setDaemon(true);
            return t;
          });

  PromisedNodeAllocation(
      Function<String, FiCaSchedulerNode> nodeNamed,
      Supplier<PlanBook> book,
      BiPredicate<FiCaSchedulerNode, Map<String, Integer>> proposeOnce) {
    this.nodeNamed = nodeNamed;
    this.book = book;
    this.proposeOnce = proposeOnce;
  }

  /**
   * On the Capacity Scheduler, each node offered only to the applications {@code offers} lets see
   * it.
   */
  static PromisedNodeAllocation on(
      CapacityScheduler scheduler,
      NodeOffers offers,
      Function<String, FiCaSchedulerNode> nodeNamed,
      Supplier<PlanBook> book) {
    return new PromisedNodeAllocation(
        nodeNamed,
        book,
        (node, promised) -> {
          boolean[] proposed = {false};
          PlanAwareOrdering.serving(
              offers.onNode(promised),
              () -> proposed[0] = SingleNodeProposal.proposeOn(scheduler, node));
          return proposed[0];
        });
  }

  /** The nodes of these applications' targets in the current book. */
  void offerTargetsOf(Collection<String> appIds) {
    PlanBook b = book.get();
    boolean added = false;
    for (String app : appIds) {
      for (String node : b.target(app).workersByServer().keySet()) {
        added |= pending.add(node);
      }
    }
    if (added) {
      try {
        thread.execute(this::drain);
      } catch (RejectedExecutionException e) {
        // closing: the scheduling thread's walk still reaches the nodes
      }
    }
  }

  private void drain() {
    for (Iterator<String> it = pending.iterator(); it.hasNext(); ) {
      String name = it.next();
      it.remove();
      FiCaSchedulerNode node = nodeNamed.apply(name);
      if (node == null) {
        continue;
      }
      Map<String, Integer> promised = book.get().promisedOn(name);
      // One proposal per call: as many calls as workers promised there, fewer once one proposes
      // nothing.
      int workers = promised.values().stream().mapToInt(Integer::intValue).sum();
      int proposed = 0;
      while (proposed < workers && proposeOnce.test(node, promised)) {
        proposed++;
      }
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
