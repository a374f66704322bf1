package io.aryl.sls;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples the RM once a second while SLS runs: GPUs allocated of the cluster's, containers
 * allocated so far, and the JVM's heap. SLS's own metrics know memory and vcores only; GPUs are
 * what Aryl schedules.
 */
final class ClusterSampler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterSampler.class);

  /**
   * One sample: seconds since the start, nodes, GPUs allocated and in total, containers allocated
   * so far, heap MB.
   */
  record Sample(
      double atS,
      int nodes,
      long allocatedGpus,
      long totalGpus,
      long containersAllocated,
      long heapUsedMb) {}

  private final ResourceManager rm;
  private final long startNs = System.nanoTime();
  private final List<Sample> samples = new ArrayList<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "aryl-sls-sampler");
            t.setDaemon(true);
            return t;
          });

  ClusterSampler(ResourceManager rm) {
    this.rm = rm;
  }

  // The schedule's future would only hold the failure that ends it, which sampleOrLog() logs.
  @SuppressWarnings("FutureReturnValueIgnored")
  ClusterSampler start() {
    timer.scheduleAtFixedRate(this::sampleOrLog, 0, 1, TimeUnit.SECONDS);
    return this;
  }

  /**
   * One sample. A failure ends the sampling, as it ends any fixed-rate schedule; it is logged, so
   * that a run whose samples stop early says why.
   */
  private void sampleOrLog() {
    try {
      sample();
    } catch (RuntimeException | Error e) {
      LOG.error("cluster sampling stops", e);
      throw e;
    }
  }

  private void sample() {
    long allocated = 0;
    long total = 0;
    int nodes = 0;
    AbstractYarnScheduler<?, ?> scheduler = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
    for (SchedulerNode n : scheduler.getNodeTracker().getAllNodes()) {
      allocated += n.getAllocatedResource().getResourceValue(SlsJobFormat.GPU);
      total += n.getTotalResource().getResourceValue(SlsJobFormat.GPU);
      nodes++;
    }
    QueueMetrics root = scheduler.getRootQueueMetrics();
    long containers = 0;
    if (root != null) {
      // A queue's own metrics count the default partition; each labelled partition has metrics of
      // its own.
      containers = root.getAggregateAllocatedContainers();
      for (String label : rm.getRMContext().getNodeLabelManager().getClusterNodeLabelNames()) {
        containers += root.getPartitionQueueMetrics(label).getAggregateAllocatedContainers();
      }
    }
    Runtime jvm = Runtime.getRuntime();
    Sample s =
        new Sample(
            (System.nanoTime() - startNs) / 1e9,
            nodes,
            allocated,
            total,
            containers,
            (jvm.totalMemory() - jvm.freeMemory()) >> 20);
    synchronized (samples) {
      samples.add(s);
    }
  }

  List<Sample> samples() {
    synchronized (samples) {
      return List.copyOf(samples);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
