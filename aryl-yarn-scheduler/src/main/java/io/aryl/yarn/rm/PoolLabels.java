package io.aryl.yarn.rm;

import io.aryl.yarn.conf.ArylConf;
import io.aryl.yarn.conf.ArylSettings;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the two pools need of the cluster before Aryl starts: node labels on, a queue for each pool
 * that may use its label, and both labels exclusive. Anything else stops the ResourceManager's
 * start with what to set.
 */
final class PoolLabels {
  private static final Logger LOG = LoggerFactory.getLogger(PoolLabels.class);

  private PoolLabels() {}

  /** Node labels are on and each pool's queue exists and may use its label. */
  static void checkQueues(
      Configuration conf, ArylSettings settings, Function<String, CSQueue> queues) {
    if (!YarnConfiguration.areNodeLabelsEnabled(conf)) {
      throw new YarnRuntimeException(
          "Aryl needs node labels: set " + YarnConfiguration.NODE_LABELS_ENABLED + "=true");
    }
    checkQueue(
        ArylConf.INFERENCE_QUEUE, settings.inferenceQueue(), settings.inferenceLabel(), queues);
    checkQueue(ArylConf.TRAINING_QUEUE, settings.trainingQueue(), settings.trainingLabel(), queues);
  }

  private static void checkQueue(
      ArylConf key, String queuePath, String label, Function<String, CSQueue> queues) {
    CSQueue q = queues.apply(queuePath);
    if (q == null || !q.getQueuePath().equals(queuePath)) {
      throw new YarnRuntimeException(
          "Aryl: "
              + key.key()
              + "="
              + queuePath
              + " names no queue; add it to yarn.scheduler.capacity.<parent>.queues in capacity-scheduler.xml");
    }
    Set<String> labels = q.getAccessibleNodeLabels();
    if (labels == null || !(labels.contains(label) || labels.contains("*"))) {
      throw new YarnRuntimeException(
          "Aryl: queue "
              + queuePath
              + " ("
              + key.key()
              + ") cannot use node label '"
              + label
              + "'; set yarn.scheduler.capacity."
              + queuePath
              + ".accessible-node-labels="
              + label);
    }
  }

  /**
   * Creates the two exclusive labels if missing; a label that exists but is not exclusive stops the
   * start.
   */
  static void ensureExclusive(RMNodeLabelsManager labels, ArylSettings settings)
      throws IOException {
    for (String label : List.of(settings.inferenceLabel(), settings.trainingLabel())) {
      if (!labels.getClusterNodeLabelNames().contains(label)) {
        labels.addToCluserNodeLabels(List.of(NodeLabel.newInstance(label, true)));
        LOG.info("Aryl created the exclusive node label '{}'", label);
      } else if (!labels.isExclusiveNodeLabel(label)) {
        throw new YarnRuntimeException(
            "Aryl: node label '"
                + label
                + "' exists but is not exclusive;"
                + " pools must be exclusive labels (exclusivity is fixed when a label is created)");
      }
    }
  }
}
