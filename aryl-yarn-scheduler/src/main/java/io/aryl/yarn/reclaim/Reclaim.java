package io.aryl.yarn.reclaim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One "return these nodes to inference by the deadline": its nodes are fenced (no new containers), drained (flexible
 * workers shrunk, other containers preempted after the grace), then relabelled. A record of what it cost is kept.
 * Mutated only by {@link ReclaimTracker}, under its lock.
 */
public final class Reclaim {
  /** Where a reclaim is. */
  public enum Phase {
    /** Nodes fenced; their containers are being shrunk or preempted. */
    DRAINING,
    /** Every node is back in the inference pool. */
    DONE
  }

  private final long id;
  private final List<String> nodes;
  private final long requestedMs;
  private final long deadlineMs;
  private final double plannedCostGpuS;
  private final Map<String, String> jobActions;
  private final Set<String> returned = new LinkedHashSet<>();
  private final Set<String> shrunk = new LinkedHashSet<>();
  private final Set<String> preempted = new LinkedHashSet<>();
  private double gpuSecondsLost;
  private Phase phase = Phase.DRAINING;
  private long finishedMs = -1;

  Reclaim(long id, List<String> nodes, long requestedMs, long deadlineMs, double plannedCostGpuS,
      Map<String, String> jobActions) {
    this.id = id;
    this.nodes = List.copyOf(nodes);
    this.requestedMs = requestedMs;
    this.deadlineMs = deadlineMs;
    this.plannedCostGpuS = plannedCostGpuS;
    this.jobActions = Collections.unmodifiableMap(new TreeMap<>(jobActions));
  }

  public long id() {
    return id;
  }

  public List<String> nodes() {
    return nodes;
  }

  public long requestedMs() {
    return requestedMs;
  }

  public long deadlineMs() {
    return deadlineMs;
  }

  /** The reclaim planner's estimate of the work it costs, GPU-seconds. */
  public double plannedCostGpuS() {
    return plannedCostGpuS;
  }

  /** What the planner decided for each affected job: SHRINK or PREEMPT. */
  public Map<String, String> jobActions() {
    return jobActions;
  }

  public synchronized Phase phase() {
    return phase;
  }

  public synchronized List<String> returnedNodes() {
    return new ArrayList<>(returned);
  }

  public synchronized List<String> pendingNodes() {
    return nodes.stream().filter(n -> !returned.contains(n)).toList();
  }

  public synchronized int containersShrunk() {
    return shrunk.size();
  }

  public synchronized int containersPreempted() {
    return preempted.size();
  }

  /** GPU-seconds of work lost: for each container taken, its GPUs times the seconds since its job last changed. */
  public synchronized double gpuSecondsLost() {
    return gpuSecondsLost;
  }

  public synchronized long finishedMs() {
    return finishedMs;
  }

  /** Milliseconds from the request to the last node's return, or -1 while draining. */
  public synchronized long tookMs() {
    return finishedMs < 0 ? -1 : finishedMs - requestedMs;
  }

  public synchronized boolean late() {
    return finishedMs > deadlineMs;
  }

  synchronized boolean recordShrunk(String containerId, double lostGpuS) {
    if (preempted.contains(containerId) || !shrunk.add(containerId)) {
      return false;
    }
    gpuSecondsLost += lostGpuS;
    return true;
  }

  synchronized boolean recordPreempted(String containerId, double lostGpuS) {
    if (shrunk.contains(containerId) || !preempted.add(containerId)) {
      return false;
    }
    gpuSecondsLost += lostGpuS;
    return true;
  }

  synchronized void nodeReturned(String node, long nowMs) {
    if (nodes.contains(node) && returned.add(node) && returned.size() == nodes.size()) {
      phase = Phase.DONE;
      finishedMs = nowMs;
    }
  }
}
