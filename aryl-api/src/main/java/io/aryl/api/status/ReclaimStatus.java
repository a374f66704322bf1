package io.aryl.api.status;

import java.util.List;
import java.util.Map;

/**
 * One reclaim, "return N loaned nodes to inference by the deadline": an entry of {@code
 * reclaimsInFlight} and {@code reclaimsDone} in the status, and the answer ({@code 201}) to {@code
 * POST /ws/v1/cluster/aryl/reclaims}.
 *
 * @param id the reclaim's number, growing
 * @param phase where it is
 * @param requested how many nodes were asked back
 * @param nodes every node chosen to return, substitutes for lost nodes included
 * @param returnedNodes the nodes back in the inference pool so far
 * @param lostNodes nodes whose NodeManager left the cluster before they were returned
 * @param replacements each lost node to the loaned node chosen in its place
 * @param shortBy lost nodes nothing could replace
 * @param requestedMs epoch milliseconds of the request
 * @param deadlineMs epoch milliseconds by which the nodes must be back
 * @param finishedMs epoch milliseconds it ended, or -1 while it runs
 * @param tookMs milliseconds from the request to its end, or -1 while it runs
 * @param late whether it ended after its deadline (false while it runs)
 * @param jobs what the planner decided for each affected application, by application id
 * @param containersShrunk flexible workers released
 * @param containersPreempted containers preempted
 * @param plannedCostGpuS the planner's estimate of the work it costs, GPU-seconds
 * @param gpuSecondsLost the work actually lost, GPU-seconds
 */
public record ReclaimStatus(
    long id,
    Phase phase,
    int requested,
    List<String> nodes,
    List<String> returnedNodes,
    List<String> lostNodes,
    Map<String, String> replacements,
    int shortBy,
    long requestedMs,
    long deadlineMs,
    long finishedMs,
    long tookMs,
    boolean late,
    Map<String, Action> jobs,
    int containersShrunk,
    int containersPreempted,
    long plannedCostGpuS,
    long gpuSecondsLost) {
  public ReclaimStatus {
    nodes = Copies.list(nodes);
    returnedNodes = Copies.list(returnedNodes);
    lostNodes = Copies.list(lostNodes);
    replacements = Copies.map(replacements);
    jobs = Copies.map(jobs);
  }

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

  /** What a reclaim does to an affected application. */
  public enum Action {
    /** Its flexible workers on the nodes are released; it keeps running. */
    SHRINK,
    /** Its containers on the nodes are preempted after the grace. */
    PREEMPT
  }

  /** Whether it has ended. */
  public boolean done() {
    return phase == Phase.DONE;
  }
}
