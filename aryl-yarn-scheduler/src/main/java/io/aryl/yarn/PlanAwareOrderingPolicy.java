package io.aryl.yarn;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Predicate;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.IteratorSelector;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.SchedulableEntity;

/**
 * FIFO, except that while a node heartbeat is being served, elastic applications the plan gave nothing on that node
 * are not offered it. Set it as the training queue's {@code ordering-policy}.
 *
 * <p>Why: an admitted gang asks only for its planned nodes, so on any other node the Capacity Scheduler would still
 * compute its user limit and headroom, only to find nothing to do. With many jobs admitted that walk, per node and per
 * heartbeat, costs more than the allocations themselves. Outside a node heartbeat of {@link ArylScheduler} (Aryl off,
 * asynchronous scheduling, preemption) it is plain FIFO.
 */
public class PlanAwareOrderingPolicy<S extends SchedulableEntity> extends FifoOrderingPolicy<S> {
  private static final ThreadLocal<Predicate<SchedulableEntity>> OFFERED = new ThreadLocal<>();

  /** Runs {@code heartbeat} with only the applications {@code offered} accepts offered the node. */
  static void serving(Predicate<SchedulableEntity> offered, Runnable heartbeat) {
    OFFERED.set(offered);
    try {
      heartbeat.run();
    } finally {
      OFFERED.remove();
    }
  }

  @Override
  public Iterator<S> getAssignmentIterator(IteratorSelector sel) {
    Iterator<S> all = super.getAssignmentIterator(sel);
    Predicate<SchedulableEntity> offered = OFFERED.get();
    if (offered == null) {
      return all;
    }
    return new Iterator<>() {
      private S next = advance();

      private S advance() {
        while (all.hasNext()) {
          S s = all.next();
          if (offered.test(s)) {
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
