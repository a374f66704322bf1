package io.aryl.core.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The outcome of a decision: the allocation every job should have next, and how that differs from now.
 *
 * <p>A job absent from {@link #targets()} should not run: a queued job stays queued, a running one is
 * preempted.
 */
public final class Plan {
  /** How a job's allocation changes. */
  public enum Change {
    /** Queued now, runs next. */
    START,
    /** Runs with more workers. */
    GROW,
    /** Runs with fewer workers (flexible workers are released; the job keeps running). */
    SHRINK,
    /** Same number of workers, some on other servers. */
    MOVE,
    /** Stops running and goes back to the queue. */
    PREEMPT
  }

  private final Map<String, Allocation> targets;
  private final Map<String, Change> changes;

  private Plan(Map<String, Allocation> targets, Map<String, Change> changes) {
    this.targets = targets;
    this.changes = changes;
  }

  /**
   * The plan that takes {@code before} to {@code targets}. The targets must form a valid state of the same
   * cluster (no over-committed server, workers within min..max on allowed types of servers serving training);
   * anything else is refused, as {@link ClusterState} refuses it.
   */
  public static Plan between(ClusterState before, Map<String, Allocation> targets) {
    SortedMap<String, Allocation> t = ClusterState.sortedRunning(targets);
    before.checkAllocations(t);
    // Both are sorted by job id: walk them side by side rather than look every target up.
    TreeMap<String, Change> changes = new TreeMap<>();
    Iterator<Map.Entry<String, Allocation>> running = before.allocations().entrySet().iterator();
    Map.Entry<String, Allocation> was = running.hasNext() ? running.next() : null;
    for (Map.Entry<String, Allocation> e : t.entrySet()) {
      while (was != null && was.getKey().compareTo(e.getKey()) < 0) {
        changes.put(was.getKey(), Change.PREEMPT);
        was = running.hasNext() ? running.next() : null;
      }
      Allocation now = Allocation.EMPTY;
      if (was != null && was.getKey().equals(e.getKey())) {
        now = was.getValue();
        was = running.hasNext() ? running.next() : null;
      }
      Allocation next = e.getValue();
      if (now.isEmpty()) {
        changes.put(e.getKey(), Change.START);
      } else if (next.totalWorkers() > now.totalWorkers()) {
        changes.put(e.getKey(), Change.GROW);
      } else if (next.totalWorkers() < now.totalWorkers()) {
        changes.put(e.getKey(), Change.SHRINK);
      } else if (!next.equals(now)) {
        changes.put(e.getKey(), Change.MOVE);
      }
    }
    for (; was != null; was = running.hasNext() ? running.next() : null) {
      changes.put(was.getKey(), Change.PREEMPT);
    }
    return new Plan(t, Collections.unmodifiableMap(changes));
  }

  /** Allocation by job id of every job that runs after this plan, sorted by job id. */
  public Map<String, Allocation> targets() {
    return targets;
  }

  public Allocation target(String jobId) {
    return targets.getOrDefault(jobId, Allocation.EMPTY);
  }

  /** Jobs whose allocation changes, and how; unchanged jobs are absent. */
  public Map<String, Change> changes() {
    return changes;
  }

  public List<String> jobsWith(Change change) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Change> e : changes.entrySet()) {
      if (e.getValue() == change) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  public List<String> started() {
    return jobsWith(Change.START);
  }

  public List<String> grown() {
    return jobsWith(Change.GROW);
  }

  public List<String> shrunk() {
    return jobsWith(Change.SHRINK);
  }

  public List<String> preempted() {
    return jobsWith(Change.PREEMPT);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Plan p && targets.equals(p.targets) && changes.equals(p.changes);
  }

  @Override
  public int hashCode() {
    return targets.hashCode();
  }

  @Override
  public String toString() {
    return "Plan" + changes;
  }
}
