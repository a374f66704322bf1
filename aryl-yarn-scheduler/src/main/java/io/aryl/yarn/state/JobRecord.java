package io.aryl.yarn.state;

import java.util.Map;

/**
 * One elastic job's progress, as stored in {@link Jobs}.
 *
 * @param attainedBaseS seconds of work done at the pace of the job's minimum width
 * @param sinceChangeS seconds since its workers last changed
 * @param workersByNode where its workers ran: after a restart, the nodes to wait for
 */
public record JobRecord(
    double attainedBaseS, double sinceChangeS, Map<String, Integer> workersByNode) {
  public JobRecord {
    workersByNode = Map.copyOf(workersByNode);
  }
}
