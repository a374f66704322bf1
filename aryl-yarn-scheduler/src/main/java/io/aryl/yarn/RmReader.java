package io.aryl.yarn;

import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/** Reads the ResourceManager's nodes, containers and elastic applications into a round's plain views. */
final class RmReader {
  private final ArylScheduler scheduler;
  private final ElasticApps apps;
  private final String trainingQueue;

  RmReader(ArylScheduler scheduler, ElasticApps apps, String trainingQueue) {
    this.scheduler = scheduler;
    this.apps = apps;
    this.trainingQueue = trainingQueue;
  }

  static int gpus(Resource r) {
    if (r == null) {
      return 0;
    }
    for (ResourceInformation ri : r.getResources()) {
      if (ResourceInformation.GPU_URI.equals(ri.getName())) {
        return (int) ri.getValue();
      }
    }
    return 0;
  }

  static ContainerView view(RMContainer c) {
    return new ContainerView(c.getContainerId().toString(),
        c.getApplicationAttemptId().getApplicationId().toString(), c.getContainerId().getContainerId(),
        gpus(c.getAllocatedResource()), c.isAMContainer());
  }

  List<NodeView> nodes() {
    List<NodeView> out = new ArrayList<>();
    for (FiCaSchedulerNode n : scheduler.getNodeTracker().getAllNodes()) {
      List<ContainerView> cs = new ArrayList<>();
      for (RMContainer c : n.getCopiedListOfRunningContainers()) {
        cs.add(view(c));
      }
      out.add(new NodeView(n.getNodeName(), n.getPartition(), gpus(n.getTotalResource()), cs));
    }
    return out;
  }

  /** Elastic applications of the training queue (or its sub-queues) whose ApplicationMaster is running. */
  Map<String, AppView> elasticApps(long startMs) {
    Map<String, AppView> out = new TreeMap<>();
    for (Map.Entry<org.apache.hadoop.yarn.api.records.ApplicationId, SchedulerApplication<FiCaSchedulerApp>> e
        : scheduler.getSchedulerApplications().entrySet()) {
      String id = e.getKey().toString();
      ElasticApps.App app = apps.get(id).orElse(null);
      FiCaSchedulerApp attempt = e.getValue().getCurrentAppAttempt();
      if (app == null || attempt == null || attempt.isStopped() || attempt.isWaitingForAMContainer()) {
        continue;
      }
      if (!(attempt.getQueue() instanceof CSQueue q) || !inTrainingQueue(q.getQueuePath())) {
        continue;
      }
      out.put(id, new AppView(id, app.shape, Math.max(0, (app.submitMs - startMs) / 1000.0), app.askedWorkers()));
    }
    return out;
  }

  boolean inTrainingQueue(String queuePath) {
    return queuePath.equals(trainingQueue) || queuePath.startsWith(trainingQueue + ".");
  }
}
