package io.aryl.core.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The outcome of a decision: the allocation every job should have next, and how that differs from
 * now.
 *
 * <p>A job absent from {@link #targets()} should not run: a queued job stays queued, a running one
 * is preempted.
 *
 * <p>A round also records why, where it decides it: where admission put each queued job it left
 * waiting ({@link #waiting()}), and why each elastic job it runs below its maximum was not widened
 * ({@link #belowMax()}). The reasons explain the decision and are not part of it: two plans are
 * equal when they decide the same.
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
  private final Map<String, QueuePlace> waiting;
  private final Map<String, BelowMax> belowMax;

  private Plan(
      Map<String, Allocation> targets,
      Map<String, Change> changes,
      Map<String, QueuePlace> waiting,
      Map<String, BelowMax> belowMax) {
    this.targets = targets;
    this.changes = changes;
    this.waiting = waiting;
    this.belowMax = belowMax;
  }

  /**
   * The plan that takes {@code before} to {@code targets}. The targets must form a valid state of
   * the same cluster (no over-committed server, workers within min..max on allowed types of servers
   * serving training); anything else is refused, as {@link ClusterState} refuses it.
   */
  @SuppressWarnings("ReferenceEquality") // ids compared by identity first, as said below
  public static Plan between(ClusterState before, Map<String, Allocation> targets) {
    JobAllocations t = JobAllocations.of(targets);
    before.checkAllocations(t);
    // Both are sorted by job id: walk them side by side rather than look every target up.
    TreeMap<String, Change> changes = new TreeMap<>();
    JobAllocations running = before.allocations();
    int i = 0;
    for (int k = 0; k < t.size(); k++) {
      String id = t.jobAt(k);
      // Mostly the very same id string on both sides: compared by identity first.
      while (i < running.size() && running.jobAt(i) != id && running.jobAt(i).compareTo(id) < 0) {
        changes.put(running.jobAt(i++), Change.PREEMPT);
      }
      Allocation now = Allocation.EMPTY;
      if (i < running.size() && running.jobAt(i).equals(id)) {
        now = running.allocationAt(i++);
      }
      Allocation next = t.allocationAt(k);
      if (now.isEmpty()) {
        changes.put(id, Change.START);
      } else if (next.totalWorkers() > now.totalWorkers()) {
        changes.put(id, Change.GROW);
      } else if (next.totalWorkers() < now.totalWorkers()) {
        changes.put(id, Change.SHRINK);
      } else if (!next.equals(now)) {
        changes.put(id, Change.MOVE);
      }
    }
    for (; i < running.size(); i++) {
      changes.put(running.jobAt(i), Change.PREEMPT);
    }
    return new Plan(t, Collections.unmodifiableMap(changes), Map.of(), Map.of());
  }

  /**
   * This plan with the reasons its round recorded.
   *
   * @param waiting where admission put each queued job the plan leaves waiting, by job id (none may
   *     run)
   * @param belowMax why each job the plan runs below its maximum was not widened, by job id (each
   *     must run)
   */
  public Plan withReasons(Map<String, QueuePlace> waiting, Map<String, BelowMax> belowMax) {
    for (String id : waiting.keySet()) {
      if (targets.containsKey(id)) {
        throw new IllegalArgumentException("waiting job(" + id + ") runs in the plan");
      }
    }
    for (String id : belowMax.keySet()) {
      if (!targets.containsKey(id)) {
        throw new IllegalArgumentException(
            "job(" + id + ") said to run below its maximum does not run in the plan");
      }
    }
    return new Plan(
        targets,
        changes,
        Collections.unmodifiableMap(waiting),
        Collections.unmodifiableMap(belowMax));
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

  /**
   * Where admission put each queued job the round left waiting, by job id; empty for a plan no
   * round made. A job that was running and is preempted is not among them.
   */
  public Map<String, QueuePlace> waiting() {
    return waiting;
  }

  /**
   * Why the round did not widen each elastic job it runs below the job's {@code maxWorkers}, by job
   * id; empty for a plan no round made. A job the plan runs at its maximum, or does not run, is not
   * among them.
   */
  public Map<String, BelowMax> belowMax() {
    return belowMax;
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
