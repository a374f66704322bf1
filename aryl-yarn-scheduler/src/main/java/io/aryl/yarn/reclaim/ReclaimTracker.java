package io.aryl.yarn.reclaim;

import io.aryl.core.reclaim.ReclaimPlan;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Reclaims in flight and the most recent finished ones; the set of fenced nodes follows from them. */
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
    Map<String, String> actions = new TreeMap<>();
    plan.impacts().forEach((job, impact) -> actions.put(job, impact.action().name()));
    Reclaim r = new Reclaim(nextId++, plan.servers(), nowMs, deadlineMs, plan.costGpuS(), actions);
    inFlight.add(r);
    return r;
  }

  public synchronized List<Reclaim> inFlight() {
    return List.copyOf(inFlight);
  }

  /** Finished reclaims, newest first. */
  public synchronized List<Reclaim> finished() {
    return List.copyOf(finished);
  }

  /** Nodes of reclaims in flight that are not yet returned: they take no new containers. */
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

  /** Marks the node returned; moves its reclaim to the finished list when it was the last. */
  public synchronized void nodeReturned(Reclaim r, String node, long nowMs) {
    r.nodeReturned(node, nowMs);
    if (r.phase() == Reclaim.Phase.DONE && inFlight.remove(r)) {
      finished.addFirst(r);
      while (finished.size() > HISTORY) {
        finished.removeLast();
      }
    }
  }
}
