package io.aryl.yarn.reclaim;

import io.aryl.core.reclaim.ReclaimPlan;
import io.aryl.yarn.state.ReclaimRecord;
import io.aryl.yarn.state.Reclaims;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reclaims in flight and the most recent finished ones; the set of fenced nodes follows from them.
 * Its whole content is durable ({@link #toRecord}, {@link #restore}): a newly active scheduler
 * resumes every reclaim where it was.
 */
public final class ReclaimTracker {
  /** Finished reclaims kept for the REST resource. */
  public static final int HISTORY = 100;

  private final List<Reclaim> inFlight = new ArrayList<>();
  private final Deque<Reclaim> finished = new ArrayDeque<>();
  private long nextId = 1;

  /** Starts a reclaim of the plan's nodes; refuses a node already being returned. */
  public synchronized Reclaim start(ReclaimPlan plan, long nowMs, long deadlineMs) {
    if (!plan.isFeasible()) {
      throw new IllegalArgumentException(plan.infeasibleReason().orElse("infeasible"));
    }
    Set<String> busy = fencedNodes();
    for (String n : plan.servers()) {
      if (busy.contains(n)) {
        throw new IllegalStateException("node " + n + " is already being returned");
      }
    }
    Reclaim r =
        new Reclaim(nextId++, plan.servers(), nowMs, deadlineMs, plan.costGpuS(), actions(plan));
    inFlight.add(r);
    return r;
  }

  /** SHRINK or PREEMPT for each job the plan touches. */
  public static Map<String, String> actions(ReclaimPlan plan) {
    Map<String, String> actions = new TreeMap<>();
    plan.impacts().forEach((job, impact) -> actions.put(job, impact.action().name()));
    return actions;
  }

  /**
   * Forgets a reclaim just started that could not be stored: it never happened (its id is not
   * reused).
   */
  public synchronized void abandon(Reclaim r) {
    inFlight.remove(r);
  }

  public synchronized List<Reclaim> inFlight() {
    return List.copyOf(inFlight);
  }

  /** Finished reclaims, newest first. */
  public synchronized List<Reclaim> finished() {
    return List.copyOf(finished);
  }

  /**
   * Nodes of reclaims in flight that are neither returned nor lost: they take no new containers.
   */
  public synchronized Set<String> fencedNodes() {
    Set<String> out = new HashSet<>();
    for (Reclaim r : inFlight) {
      out.addAll(r.pendingNodes());
    }
    return out;
  }

  /** Records a container of the reclaim shrunk; false if it was already recorded. */
  public boolean recordShrunk(Reclaim r, String containerId, double lostGpuS) {
    return r.recordShrunk(containerId, lostGpuS);
  }

  /** Records a container of the reclaim preempted; false if it was already recorded. */
  public boolean recordPreempted(Reclaim r, String containerId, double lostGpuS) {
    return r.recordPreempted(containerId, lostGpuS);
  }

  /** True the first time the job is charged a shrink's pause by the reclaim. */
  public boolean chargeJob(Reclaim r, String appId) {
    return r.chargeJob(appId);
  }

  /**
   * Marks the node returned; moves its reclaim to the finished list when it was the last.
   *
   * @return true if this finished the reclaim
   */
  public synchronized boolean nodeReturned(Reclaim r, String node, long nowMs) {
    boolean done = r.nodeReturned(node, nowMs);
    retireIfDone(r);
    return done;
  }

  /**
   * The node left the cluster before it was returned; {@code substitute} takes its place, or null
   * for none.
   *
   * @return true if this finished the reclaim
   */
  public synchronized boolean nodeLost(
      Reclaim r,
      String node,
      String substitute,
      Map<String, String> substituteActions,
      long nowMs) {
    if (substitute != null && fencedNodes().contains(substitute)) {
      throw new IllegalStateException("node " + substitute + " is already being returned");
    }
    boolean done = r.nodeLost(node, substitute, substituteActions, nowMs);
    retireIfDone(r);
    return done;
  }

  private void retireIfDone(Reclaim r) {
    if (r.phase() == Reclaim.Phase.DONE && inFlight.remove(r)) {
      finished.addFirst(r);
      while (finished.size() > HISTORY) {
        finished.removeLast();
      }
    }
  }

  /** Everything, as stored. */
  public synchronized Reclaims toRecord() {
    return new Reclaims(
        nextId,
        inFlight.stream().map(Reclaim::toRecord).toList(),
        finished.stream().map(Reclaim::toRecord).toList());
  }

  /**
   * Replaces what this tracker holds with the stored reclaims.
   *
   * @throws IllegalArgumentException when the record contradicts itself (a reclaim id at or above
   *     the next id, a node in two reclaims in flight)
   */
  public synchronized void restore(Reclaims stored) {
    List<Reclaim> flying = new ArrayList<>();
    Set<String> fenced = new HashSet<>();
    long maxId = 0;
    for (ReclaimRecord r : stored.inFlight()) {
      Reclaim reclaim = Reclaim.fromRecord(r);
      if (reclaim.phase() != Reclaim.Phase.DRAINING) {
        throw new IllegalArgumentException(
            "reclaim " + r.id() + " is listed in flight but its phase is " + r.phase());
      }
      for (String n : reclaim.pendingNodes()) {
        if (!fenced.add(n)) {
          throw new IllegalArgumentException(
              "node " + n + " is being returned by two reclaims in flight");
        }
      }
      flying.add(reclaim);
      maxId = Math.max(maxId, r.id());
    }
    Deque<Reclaim> done = new ArrayDeque<>();
    for (ReclaimRecord r : stored.finished()) {
      done.addLast(Reclaim.fromRecord(r));
      maxId = Math.max(maxId, r.id());
    }
    if (stored.nextId() <= maxId) {
      throw new IllegalArgumentException(
          "nextId must be above every stored reclaim id (" + maxId + "), was " + stored.nextId());
    }
    inFlight.clear();
    inFlight.addAll(flying);
    finished.clear();
    finished.addAll(done);
    nextId = stored.nextId();
  }
}
