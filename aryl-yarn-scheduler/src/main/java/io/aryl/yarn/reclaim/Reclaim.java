package io.aryl.yarn.reclaim;

import io.aryl.core.victim.Fate;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.state.ReclaimRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One "return N nodes to inference by the deadline": its nodes are fenced (no new containers),
 * drained (flexible workers shrunk, other containers preempted after the grace), then relabelled. A
 * node whose NodeManager leaves the cluster first is lost: another loaned node takes its place when
 * there is one, else the reclaim ends short. A record of what it cost is kept. Mutated only by
 * {@link ReclaimTracker}, under its lock.
 */
public final class Reclaim {
  /** Where a reclaim is. */
  public enum Phase {
    /** Nodes fenced; their containers are being shrunk or preempted. */
    DRAINING,
    /**
     * As many nodes as asked are back in the inference pool, or none is left to take a lost node's
     * place.
     */
    DONE
  }

  private final long id;
  private int requested;
  private final List<String> nodes;
  private final long requestedMs;
  private final long deadlineMs;
  private final double plannedCostGpuS;
  private final Map<String, String> jobActions;
  private final Set<String> returned = new LinkedHashSet<>();
  private final Set<String> lost = new LinkedHashSet<>();
  private final Map<String, String> replacements = new LinkedHashMap<>();
  private int shortBy;
  private final Set<String> shrunk = new LinkedHashSet<>();
  private final Set<String> preempted = new LinkedHashSet<>();
  private final Set<String> chargedJobs = new LinkedHashSet<>();
  private double gpuSecondsLost;
  private Phase phase = Phase.DRAINING;
  private long finishedMs = -1;

  Reclaim(
      long id,
      List<String> nodes,
      long requestedMs,
      long deadlineMs,
      double plannedCostGpuS,
      Map<String, String> jobActions) {
    this.id = id;
    this.requested = nodes.size();
    this.nodes = new ArrayList<>(nodes);
    this.requestedMs = requestedMs;
    this.deadlineMs = deadlineMs;
    this.plannedCostGpuS = plannedCostGpuS;
    this.jobActions = new TreeMap<>(jobActions);
  }

  /** The reclaim as stored. */
  synchronized ReclaimRecord toRecord() {
    return new ReclaimRecord(
        id,
        requested,
        List.copyOf(nodes),
        requestedMs,
        deadlineMs,
        plannedCostGpuS,
        new TreeMap<>(jobActions),
        List.copyOf(returned),
        List.copyOf(lost),
        new LinkedHashMap<>(replacements),
        shortBy,
        List.copyOf(shrunk),
        List.copyOf(preempted),
        List.copyOf(chargedJobs),
        gpuSecondsLost,
        phase.name(),
        finishedMs);
  }

  /** A reclaim read back from the store, exactly as it was. */
  static Reclaim fromRecord(ReclaimRecord r) {
    Reclaim out =
        new Reclaim(
            r.id(),
            r.nodes(),
            r.requestedMs(),
            r.deadlineMs(),
            r.plannedCostGpuS(),
            r.jobActions());
    if (r.requested() < 1 || r.requested() > r.nodes().size()) {
      throw new IllegalArgumentException(
          "reclaim "
              + r.id()
              + ": requested must be 1.."
              + r.nodes().size()
              + ", was "
              + r.requested());
    }
    r.jobActions()
        .forEach(
            (job, action) -> {
              if (!action.equals(Fate.SHRINK.name()) && !action.equals(Fate.PREEMPT.name())) {
                throw new IllegalArgumentException(
                    "reclaim "
                        + r.id()
                        + ": jobActions["
                        + job
                        + "] must be SHRINK or PREEMPT,"
                        + " was "
                        + action);
              }
            });
    out.requested = r.requested();
    out.returned.addAll(r.returned());
    out.lost.addAll(r.lost());
    out.replacements.putAll(r.replacements());
    out.shortBy = r.shortBy();
    out.shrunk.addAll(r.shrunk());
    out.preempted.addAll(r.preempted());
    out.chargedJobs.addAll(r.chargedJobs());
    out.gpuSecondsLost = r.gpuSecondsLost();
    out.phase = Phase.valueOf(r.phase());
    out.finishedMs = r.finishedMs();
    return out;
  }

  public long id() {
    return id;
  }

  /** How many nodes were asked back. */
  public synchronized int requested() {
    return requested;
  }

  /** Every node chosen to return, substitutes for lost nodes included. */
  public synchronized List<String> nodes() {
    return List.copyOf(nodes);
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
  public synchronized Map<String, String> jobActions() {
    return Map.copyOf(jobActions);
  }

  /** What the plan decided for the job, or null if it did not name the job. */
  public synchronized Fate plannedFate(String appId) {
    String action = jobActions.get(appId);
    return action == null ? null : Fate.valueOf(action);
  }

  /**
   * What this reclaim does to an elastic job with a worker on one of its pending nodes: what the
   * plan decided, or, for a job the plan did not name, {@link Fate#of} on the job's workers now and
   * those of them on the pending nodes. A plan does not name a job whose workers there were
   * draining when it was made (a round's snapshot leaves them out: a shrink's, or the old workers
   * of a move), nor one that reached the node since; such a job is preempted only if the reclaim
   * leaves it below its minimum.
   *
   * @param minWorkers the job's minimum
   * @param nodes every node as the round read it
   */
  public Fate fateOf(String appId, int minWorkers, List<NodeView> nodes) {
    Fate planned = plannedFate(appId);
    if (planned != null) {
      return planned;
    }
    Set<String> pending = new HashSet<>(pendingNodes());
    int workers = 0;
    int taken = 0;
    for (NodeView n : nodes) {
      for (ContainerView c : n.containers()) {
        if (c.appId().equals(appId) && !c.amContainer()) {
          workers++;
          taken += pending.contains(n.id()) ? 1 : 0;
        }
      }
    }
    return Fate.of(workers, taken, minWorkers);
  }

  public synchronized Phase phase() {
    return phase;
  }

  public synchronized List<String> returnedNodes() {
    return new ArrayList<>(returned);
  }

  /** Nodes lost before they were returned. */
  public synchronized List<String> lostNodes() {
    return new ArrayList<>(lost);
  }

  /** Lost node to the node chosen in its place. */
  public synchronized Map<String, String> replacements() {
    return new LinkedHashMap<>(replacements);
  }

  /** Nodes it could not return: lost, with no other loaned node to take their place. */
  public synchronized int shortBy() {
    return shortBy;
  }

  /** Nodes still to drain and relabel: chosen, neither returned nor lost. */
  public synchronized List<String> pendingNodes() {
    return nodes.stream().filter(n -> !returned.contains(n) && !lost.contains(n)).toList();
  }

  public synchronized int containersShrunk() {
    return shrunk.size();
  }

  public synchronized int containersPreempted() {
    return preempted.size();
  }

  /**
   * GPU-seconds of work lost: for each container taken, its GPUs times the seconds since its job
   * last changed.
   */
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

  /** True the first time the job is charged a shrink's pause by this reclaim. */
  synchronized boolean chargeJob(String appId) {
    return chargedJobs.add(appId);
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

  /**
   * Records that {@code node} came back; a node not of this reclaim, lost or already back changes
   * nothing.
   *
   * @return true if this made the reclaim done
   */
  synchronized boolean nodeReturned(String node, long nowMs) {
    return nodes.contains(node)
        && !lost.contains(node)
        && returned.add(node)
        && finishIfComplete(nowMs);
  }

  /**
   * The node left the cluster before it was returned; {@code substitute} (another loaned node, with
   * what its jobs must do) takes its place, or, when null, the reclaim returns one node fewer.
   */
  synchronized boolean nodeLost(
      String node, String substitute, Map<String, String> substituteActions, long nowMs) {
    if (phase == Phase.DONE
        || !nodes.contains(node)
        || returned.contains(node)
        || !lost.add(node)) {
      return false;
    }
    if (substitute != null) {
      nodes.add(substitute);
      replacements.put(node, substitute);
      substituteActions.forEach(jobActions::putIfAbsent);
    } else {
      shortBy++;
    }
    return finishIfComplete(nowMs);
  }

  private boolean finishIfComplete(long nowMs) {
    if (phase == Phase.DRAINING && (returned.size() >= requested || pendingNodes().isEmpty())) {
      phase = Phase.DONE;
      finishedMs = nowMs;
      return true;
    }
    return false;
  }
}
