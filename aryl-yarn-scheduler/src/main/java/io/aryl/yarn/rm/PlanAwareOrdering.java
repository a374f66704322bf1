package io.aryl.yarn.rm;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Predicate;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.IteratorSelector;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.SchedulableEntity;

/**
 * FIFO, except that elastic applications with nothing to be given are not offered a node: while a
 * node heartbeat is being served, those the plan gave nothing on that node; on the Capacity
 * Scheduler's asynchronous thread (on by default since Hadoop 3.5.0), those the plan has not
 * admitted. Set it as the training queue's {@code ordering-policy}.
 *
 * <p>Why: an admitted gang asks only for its planned nodes, so on any other node the Capacity
 * Scheduler would still compute its user limit and headroom, only to find nothing to do; and a job
 * waiting for admission would be walked on every node, again and again. With thousands of jobs
 * waiting that walk costs more than the allocations themselves: under SLS at 2,000 nodes it took
 * most of a core. Without Aryl (off, or another scheduler) it is plain FIFO.
 *
 * <p>Configured by its public name, {@code io.aryl.yarn.PlanAwareOrderingPolicy}, which is this
 * class.
 */
public class PlanAwareOrdering<S extends SchedulableEntity> extends FifoOrderingPolicy<S> {
  private static final ThreadLocal<Predicate<SchedulableEntity>> OFFERED = new ThreadLocal<>();

  /** Set by the queue's own ArylScheduler: who is offered a node outside a heartbeat it serves. */
  private volatile Predicate<SchedulableEntity> outsideHeartbeats;

  /** The applications offered nodes when no node heartbeat of ArylScheduler is being served. */
  void offerOutsideHeartbeats(Predicate<SchedulableEntity> offered) {
    outsideHeartbeats = offered;
  }

  /** Runs {@code heartbeat} with only the applications {@code offered} accepts offered the node. */
  static void serving(Predicate<SchedulableEntity> offered, Runnable heartbeat) {
    serving(
        offered,
        () -> {
          heartbeat.run();
          return null;
        });
  }

  /**
   * Runs {@code allocation} (on one node) with only the applications {@code offered} accepts
   * offered the node; inside another such call, the outer one's applications are offered again once
   * it returns.
   */
  static <T> T serving(
      Predicate<SchedulableEntity> offered, java.util.function.Supplier<T> allocation) {
    Predicate<SchedulableEntity> outer = OFFERED.get();
    OFFERED.set(offered);
    try {
      return allocation.get();
    } finally {
      if (outer == null) {
        OFFERED.remove();
      } else {
        OFFERED.set(outer);
      }
    }
  }

  @Override
  public Iterator<S> getAssignmentIterator(IteratorSelector sel) {
    Iterator<S> all = super.getAssignmentIterator(sel);
    Predicate<SchedulableEntity> offered = OFFERED.get();
    if (offered == null) {
      offered = outsideHeartbeats;
    }
    if (offered == null) {
      return all;
    }
    Predicate<SchedulableEntity> test = offered;
    return new Iterator<>() {
      private S next = advance();

      private S advance() {
        while (all.hasNext()) {
          S s = all.next();
          if (test.test(s)) {
            return s;
          }
        }
        return null;
      }

      @Override
      public boolean hasNext() {
        return next != null;
      }

      @Override
      public S next() {
        if (next == null) {
          throw new NoSuchElementException();
        }
        S out = next;
        next = advance();
        return out;
      }
    };
  }
}
