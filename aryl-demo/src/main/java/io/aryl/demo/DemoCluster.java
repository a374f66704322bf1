package io.aryl.demo;

import io.aryl.yarn.ArylMetrics;
import io.aryl.yarn.ArylScheduler;
import java.io.File;
import java.net.URL;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.api.protocolrecords.ReplaceLabelsOnNodeRequest;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;

/**
 * A MiniYARNCluster configured from the conf-templates files: {@code inference} nodes labelled inference, then
 * {@code training} labelled training, then one unlabelled node where ApplicationMasters run; every node with
 * {@code gpusPerNode} fake GPUs. The RM web UI is on a fixed port.
 */
final class DemoCluster implements AutoCloseable {
  static final String GPU = "yarn.io/gpu";
  private static final String TEMPLATES = "aryl-conf/";

  private final MiniYARNCluster cluster;
  private YarnConfiguration conf;
  private final int inference;
  private final int training;

  private DemoCluster(MiniYARNCluster cluster, int inference, int training) {
    this.cluster = cluster;
    this.inference = inference;
    this.training = training;
  }

  /** The templates' properties (yarn-site, capacity-scheduler, resource-types, node-resources), then the demo's. */
  static YarnConfiguration conf(File workDir, int gpusPerNode, int webPort, boolean aryl) {
    YarnConfiguration conf = new YarnConfiguration();
    for (String file : List.of("yarn-site.xml", "capacity-scheduler.xml", "resource-types.xml",
        "node-resources.xml")) {
      URL url = DemoCluster.class.getClassLoader().getResource(TEMPLATES + file);
      if (url == null) {
        throw new IllegalStateException("template " + TEMPLATES + file + " is not on the classpath");
      }
      Configuration t = new Configuration(false);
      t.addResource(url);
      // set(), not addResource(): the Capacity Scheduler re-reads capacity-scheduler.xml from the classpath and only
      // properties set in the overlay win over it.
      for (Map.Entry<String, String> e : t) {
        conf.set(e.getKey(), t.get(e.getKey()));
      }
    }
    conf.set(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR, new File(workDir, "node-labels").toURI().toString());
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, true);
    conf.setInt("yarn.nodemanager.resource-type." + GPU, gpusPerNode);
    conf.setInt("yarn.resource-types." + GPU + ".maximum-allocation", gpusPerNode);
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 200);
    conf.setInt(YarnConfiguration.YARN_MINICLUSTER_NM_PMEM_MB, 16384);
    conf.setInt(YarnConfiguration.NM_VCORES, 16);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 2);
    conf.setBoolean("aryl.scheduler.enabled", aryl);
    conf.setLong("aryl.scheduler.round-interval-ms", 500);
    conf.setLong("aryl.scheduler.shrink-grace-ms", 3000);
    // Each demo cluster is new: its durable Aryl state lives and dies with its work directory.
    conf.set("aryl.scheduler.state-store.dir", new File(workDir, "aryl-state").toURI().toString());
    // A NodeManager stops in ~1 s instead of ~34 s.
    conf.setLong("yarn.nodemanager.log.retain-seconds", 0);
    conf.setLong("yarn.nodemanager.delete.debug-delay-sec", -1);
    conf.setLong("yarn.nodemanager.sleep-delay-before-sigkill.ms", 100);
    conf.setLong("yarn.nodemanager.process-kill-wait.ms", 100);
    // The web UI on a fixed port a person can open; the RPC ports stay ephemeral (not the well-known 8030-8033).
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "localhost:" + webPort);
    for (String key : List.of(YarnConfiguration.RM_ADDRESS, YarnConfiguration.RM_SCHEDULER_ADDRESS,
        YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS, YarnConfiguration.RM_ADMIN_ADDRESS)) {
      conf.set(key, "localhost:0");
    }
    // The ApplicationMasters and workers of the jobs.
    conf.set("aryl.am.staging-dir", new File(workDir, "staging").toURI().toString());
    conf.setLong("aryl.am.settle-ms", 500);
    conf.setInt("aryl.am.heartbeat-ms", 300);
    // Every job's ApplicationMaster is a JVM on this machine: start them on the quick compiler and one GC thread.
    String env = "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX,JAVA_TOOL_OPTIONS=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";
    if (System.getenv("JAVA_HOME") == null) {
      // AM launch commands use $JAVA_HOME/bin/java: give containers this JVM's.
      env += ",JAVA_HOME=" + System.getProperty("java.home");
    }
    conf.set(YarnConfiguration.NM_ADMIN_USER_ENV, env);
    return conf;
  }

  static DemoCluster start(String name, YarnConfiguration conf, int inference, int training) throws Exception {
    ResourceUtils.resetResourceTypes(conf);
    MiniYARNCluster cluster = new MiniYARNCluster(name, inference + training + 1, 1, 1, false);
    DemoCluster c = new DemoCluster(cluster, inference, training);
    try {
      cluster.init(conf);
      cluster.start();
      if (!cluster.waitForNodeManagersToConnect(60_000)) {
        throw new IllegalStateException("the NodeManagers did not connect within 60 s");
      }
      c.conf = new YarnConfiguration(cluster.getConfig());
      c.labelPools();
    } catch (Exception | Error e) {
      c.close();
      throw e;
    }
    return c;
  }

  private void labelPools() throws Exception {
    var mgr = rm().getRMContext().getNodeLabelManager();
    for (String label : List.of("inference", "training")) {
      if (!mgr.getClusterNodeLabelNames().contains(label)) {
        mgr.addToCluserNodeLabels(List.of(NodeLabel.newInstance(label, true)));
      }
    }
    Map<NodeId, Set<String>> labels = new HashMap<>();
    for (int i = 0; i < inference + training; i++) {
      labels.put(nodeId(i), Set.of(i < inference ? "inference" : "training"));
    }
    rm().getRMContext().getRMAdminService().replaceLabelsOnNode(ReplaceLabelsOnNodeRequest.newInstance(labels));
  }

  YarnConfiguration conf() {
    return conf;
  }

  ResourceManager rm() {
    return cluster.getResourceManager();
  }

  ResourceScheduler scheduler() {
    return rm().getResourceScheduler();
  }

  /** Aryl's metrics, or null when Aryl is off. */
  ArylMetrics arylMetrics() {
    return scheduler() instanceof ArylScheduler a ? a.metrics() : null;
  }

  NodeId nodeId(int i) {
    return cluster.getNodeManager(i).getNMContext().getNodeId();
  }

  int inferenceNodes() {
    return inference;
  }

  int trainingNodes() {
    return training;
  }

  String webAddress() {
    return "http://" + rm().getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS);
  }

  /** The pools now, from the scheduler's nodes (a node being relabelled may be missing for a moment). */
  Pools pools() {
    int infNodes = 0;
    int trainingLabelled = 0;
    int loanedNodes = 0;
    long trainingGpus = 0;
    long trainingUsed = 0;
    long loanedGpus = 0;
    for (int i = 0; i < inference + training; i++) {
      SchedulerNode node = scheduler().getSchedulerNode(nodeId(i));
      if (node == null) {
        continue;
      }
      String partition = node.getPartition();
      long total = node.getTotalResource().getResourceValue(GPU);
      if ("inference".equals(partition)) {
        infNodes++;
      } else if ("training".equals(partition)) {
        trainingLabelled++;
        trainingGpus += total;
        trainingUsed += node.getAllocatedResource().getResourceValue(GPU);
        if (i < inference) {
          loanedNodes++;
          loanedGpus += total;
        }
      }
    }
    return new Pools(infNodes, trainingLabelled - loanedNodes, loanedNodes, trainingUsed, trainingGpus, loanedGpus);
  }

  /** Nodes per pool and GPUs of the training partition. */
  record Pools(int inferenceNodes, int trainingNodes, int loanedNodes, long trainingUsedGpus, long trainingGpus,
      long loanedGpus) {}

  @Override
  public void close() {
    List<RuntimeException> errors = new ArrayList<>();
    try {
      cluster.stop();
    } catch (RuntimeException e) {
      errors.add(e);
    }
    if (!errors.isEmpty()) {
      throw errors.get(0);
    }
  }
}
