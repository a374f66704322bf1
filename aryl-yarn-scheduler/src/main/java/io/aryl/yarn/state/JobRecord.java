package io.aryl.yarn.state;

import java.util.Map;

/**
 * One elastic job's progress, as stored in {@link Jobs}.
 *
 * @param attainedBaseS seconds of work done at the pace of the job's minimum width
 * @param sinceChangeS seconds since its workers last changed
 * @param workersByNode where its workers ran: after a restart, the nodes to wait for
 * @param preemptions times the scheduler stopped the job as a whole (for a shorter job, a reclaim
 *     or a team's guarantee): aryl+ stops a job for a shorter one only while this is below its
 *     budget, so it is stored before the job is told, and survives a restart or failover
 */
public record JobRecord(
    double attainedBaseS,
    double sinceChangeS,
    Map<String, Integer> workersByNode,
    int preemptions) {
  public JobRecord {
    workersByNode = Map.copyOf(workersByNode);
    if (preemptions < 0) {
      throw new IllegalArgumentException("preemptions must be >= 0, was " + preemptions);
    }
  }
}
