package io.aryl.yarn.rm;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * An application attempt's workers that run: its live containers, but for its ApplicationMaster's.
 * Read from the scheduler's attempt and nodes at the moment of asking, as the allocation path needs
 * them: a heartbeat's grant and a proposal's check count what runs now, not what the last round
 * read.
 */
final class LiveWorkers {
  private LiveWorkers() {}

  /** How many workers of the attempt run. */
  static int of(FiCaSchedulerApp attempt) {
    int n = 0;
    for (RMContainer c : attempt.getLiveContainers()) {
      if (!c.isAMContainer()) {
        n++;
      }
    }
    return n;
  }

  /** How many workers of the attempt's application run on the node. */
  static int on(FiCaSchedulerApp attempt, FiCaSchedulerNode node) {
    int n = 0;
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      if (!c.isAMContainer()
          && c.getApplicationAttemptId().getApplicationId().equals(attempt.getApplicationId())) {
        n++;
      }
    }
    return n;
  }

  /** The attempt's workers by node name; a worker on a node no longer known is left out. */
  static Map<String, Integer> byNode(FiCaSchedulerApp attempt, NodeLookup nodes) {
    Map<String, Integer> out = new HashMap<>();
    for (RMContainer c : attempt.getLiveContainers()) {
      if (!c.isAMContainer() && c.getNodeId() != null) {
        String name = nodes.nameOf(c.getNodeId());
        if (name != null) {
          out.merge(name, 1, Integer::sum);
        }
      }
    }
    return out;
  }
}
