package io.aryl.yarn.state;

import java.util.List;
import java.util.Map;

/**
 * One reclaim, as stored.
 *
 * @param id unique across restarts
 * @param requested how many nodes were asked back
 * @param nodes every node chosen to return, substitutes for lost nodes included
 * @param requestedMs when it was asked, epoch ms
 * @param deadlineMs when the nodes must be back, epoch ms
 * @param plannedCostGpuS the planner's estimate of the work it costs
 * @param jobActions SHRINK or PREEMPT per affected job
 * @param returned nodes relabelled inference
 * @param lost nodes whose NodeManager left the cluster before they were returned
 * @param replacements lost node to the node chosen in its place
 * @param shortBy nodes it could not return: lost with no other loaned node to take their place
 * @param shrunk containers shrunk
 * @param preempted containers preempted
 * @param chargedJobs jobs already charged a shrink's pause by this reclaim
 * @param gpuSecondsLost work lost, GPU-seconds
 * @param phase DRAINING or DONE
 * @param finishedMs when it was done, epoch ms, or -1
 */
public record ReclaimRecord(
    long id,
    int requested,
    List<String> nodes,
    long requestedMs,
    long deadlineMs,
    double plannedCostGpuS,
    Map<String, String> jobActions,
    List<String> returned,
    List<String> lost,
    Map<String, String> replacements,
    int shortBy,
    List<String> shrunk,
    List<String> preempted,
    List<String> chargedJobs,
    double gpuSecondsLost,
    String phase,
    long finishedMs) {}
