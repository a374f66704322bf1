package io.aryl.demo;

import io.aryl.api.status.NodeStatus;
import io.aryl.conf.TemplateConf;
import io.aryl.yarn.ArylScheduler;
import io.aryl.yarn.rm.ArylMetrics;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
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
 * A MiniYARNCluster configured from the conf-templates files: {@code inference} nodes labelled
 * inference, then {@code training} labelled training, then one unlabelled node where
 * ApplicationMasters run; every node with {@code gpusPerNode} fake GPUs. The RM web UI is on a
 * fixed port.
 *
 * <p>With slow inference GPUs ({@code inferenceSpeed < 1}) the inference nodes' GPUs are of type
 * {@value #SLOW_TYPE} at that training speed and the others {@value #FAST_TYPE} at speed 1,
 * declared to the scheduler as an operator does: {@code aryl.scheduler.gpu-types} and {@code
 * aryl.scheduler.gpu-type.nodes} rules on node names. Every NodeManager of a MiniYARNCluster is on
 * one host, so names differ by port only (node attributes, per host, cannot tell them apart), and
 * MiniYARNCluster gives its NodeManagers ephemeral ports; the ports are therefore chosen before the
 * start, written into the rules, and set in each NodeManager's configuration between its init and
 * its start.
 */
final class DemoCluster implements AutoCloseable {
  static final String GPU = "yarn.io/gpu";

  /** The GPU type of the inference nodes when they train slower. */
  static final String SLOW_TYPE = "t4";

  /** The GPU type of the other nodes then. */
  static final String FAST_TYPE = "a100";

  /**
   * NodeManager ports are chosen here: below Linux's ephemeral range and the AM's worker master
   * ports (20000+).
   */
  private static final int PORTS_FROM = 10_000;

  private static final int PORTS_TO = 20_000;

  private final MiniYARNCluster cluster;
  private YarnConfiguration conf;
  private final int inference;
  private final int training;

  private DemoCluster(MiniYARNCluster cluster, int inference, int training) {
    this.cluster = cluster;
    this.inference = inference;
    this.training = training;
  }

  /**
   * The templates' properties (yarn-site, capacity-scheduler, resource-types, node-resources), then
   * the demo's.
   */
  static YarnConfiguration conf(File workDir, int gpusPerNode, int webPort, boolean aryl) {
    YarnConfiguration conf = new YarnConfiguration();
    TemplateConf.overlay(conf, TemplateConf.NEW_CLUSTER);
    conf.set(
        YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR,
        new File(workDir, "node-labels").toURI().toString());
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
    // The web UI on a fixed port a person can open; the RPC ports stay ephemeral (not the
    // well-known 8030-8033).
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "localhost:" + webPort);
    for (String key :
        List.of(
            YarnConfiguration.RM_ADDRESS,
            YarnConfiguration.RM_SCHEDULER_ADDRESS,
            YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS,
            YarnConfiguration.RM_ADMIN_ADDRESS)) {
      conf.set(key, "localhost:0");
    }
    // The ApplicationMasters and workers of the jobs.
    conf.set("aryl.am.staging-dir", new File(workDir, "staging").toURI().toString());
    conf.setLong("aryl.am.settle-ms", 500);
    conf.setInt("aryl.am.heartbeat-ms", 300);
    // Every job's ApplicationMaster is a JVM on this machine: start them on the quick compiler and
    // one GC thread.
    String env =
        "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX,JAVA_TOOL_OPTIONS=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";
    if (System.getenv("JAVA_HOME") == null) {
      // AM launch commands use $JAVA_HOME/bin/java: give containers this JVM's.
      env += ",JAVA_HOME=" + System.getProperty("java.home");
    }
    conf.set(YarnConfiguration.NM_ADMIN_USER_ENV, env);
    return conf;
  }

  /**
   * Starts the cluster.
   *
   * @param inferenceSpeed training speed of the inference nodes' GPUs; below 1 the nodes get GPU
   *     types (see above)
   */
  static DemoCluster start(
      String name, YarnConfiguration conf, int inference, int training, double inferenceSpeed)
      throws Exception {
    int labelled = inference + training;
    int[] ports = inferenceSpeed < 1 ? freePorts(labelled) : null;
    if (ports != null) {
      typeNodes(conf, ports, inference, inferenceSpeed);
    }
    ResourceUtils.resetResourceTypes(conf);
    MiniYARNCluster cluster = new MiniYARNCluster(name, labelled + 1, 1, 1, false);
    DemoCluster c = new DemoCluster(cluster, inference, training);
    try {
      cluster.init(conf);
      if (ports != null) {
        // MiniYARNCluster sets every NodeManager's address to port 0 in its init; the container
        // manager binds what
        // its configuration (the NodeManager's own) says when it starts.
        for (int i = 0; i < labelled; i++) {
          cluster
              .getNodeManager(i)
              .getConfig()
              .set(YarnConfiguration.NM_ADDRESS, MiniYARNCluster.getHostname() + ":" + ports[i]);
        }
      }
      cluster.start();
      if (ports != null) {
        for (int i = 0; i < labelled; i++) {
          int port = cluster.getNodeManager(i).getNMContext().getNodeId().getPort();
          if (port != ports[i]) {
            throw new IllegalStateException(
                "NodeManager "
                    + i
                    + " is on port "
                    + port
                    + ", not "
                    + ports[i]
                    + ": the GPU type rules would not name it");
          }
        }
      }
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

  /**
   * The scheduler's GPU types: {@value #SLOW_TYPE} at {@code speed} on the first {@code inference}
   * ports, then {@value #FAST_TYPE} at 1 on the others, and {@value #FAST_TYPE} for nodes no rule
   * names (the ApplicationMasters').
   */
  static void typeNodes(Configuration conf, int[] ports, int inference, double speed) {
    conf.set("aryl.scheduler.gpu-types", FAST_TYPE + "," + SLOW_TYPE);
    conf.set("aryl.scheduler.gpu-type", FAST_TYPE);
    conf.set("aryl.scheduler.gpu-type." + FAST_TYPE + ".speed", "1.0");
    conf.set(
        "aryl.scheduler.gpu-type." + SLOW_TYPE + ".speed", String.format(Locale.ROOT, "%s", speed));
    List<String> slow = new ArrayList<>();
    List<String> fast = new ArrayList<>();
    for (int i = 0; i < ports.length; i++) {
      (i < inference ? slow : fast).add(Integer.toString(ports[i]));
    }
    StringBuilder rules = new StringBuilder();
    if (!slow.isEmpty()) {
      rules.append(SLOW_TYPE).append("=[^:]+:(").append(String.join("|", slow)).append(')');
    }
    if (!fast.isEmpty()) {
      rules
          .append(rules.length() > 0 ? " " : "")
          .append(FAST_TYPE)
          .append("=[^:]+:(")
          .append(String.join("|", fast))
          .append(')');
    }
    conf.set("aryl.scheduler.gpu-type.nodes", rules.toString());
  }

  /** {@code n} distinct ports free now, from {@link #PORTS_FROM} to {@link #PORTS_TO}. */
  static int[] freePorts(int n) {
    Random random = new Random();
    Set<Integer> out = new LinkedHashSet<>();
    for (int attempt = 0; out.size() < n && attempt < 10_000; attempt++) {
      int port = PORTS_FROM + random.nextInt(PORTS_TO - PORTS_FROM);
      if (out.contains(port)) {
        continue;
      }
      try {
        new ServerSocket(port).close();
        out.add(port);
      } catch (IOException taken) {
        // another one
      }
    }
    if (out.size() < n) {
      throw new IllegalStateException("no " + n + " free ports in " + PORTS_FROM + "-" + PORTS_TO);
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Node port to training speed, in thousandths: what the workers read ({@link
   * WorkerScript#SPEEDS_ENV}).
   */
  String speedsFile(double inferenceSpeed) {
    int slow = (int) Math.max(1, Math.round(inferenceSpeed * 1000));
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < inference + training + 1; i++) {
      out.append(nodeId(i).getPort()).append(' ').append(i < inference ? slow : 1000).append('\n');
    }
    return out.toString();
  }

  /**
   * The GPU type the scheduler gives each loaned node, e.g. {@code "t4 (speed 0.5)"}, by node name;
   * empty when Aryl is off or nothing is on loan. (A node's type is resolved once it is in the
   * training pool.)
   */
  Map<String, String> loanedGpuTypes() {
    Map<String, String> out = new java.util.TreeMap<>();
    if (scheduler() instanceof ArylScheduler a && a.aryl().running()) {
      for (NodeStatus n : a.aryl().status().loanedNodes()) {
        out.put(n.node(), n.gpuType() + " (speed " + n.gpuSpeed() + ")");
      }
    }
    return out;
  }

  /** The GPU type rules the scheduler was given, or empty. */
  String gpuTypeRules() {
    return conf.get("aryl.scheduler.gpu-type.nodes", "");
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
    rm().getRMContext()
        .getRMAdminService()
        .replaceLabelsOnNode(ReplaceLabelsOnNodeRequest.newInstance(labels));
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
    return scheduler() instanceof ArylScheduler a ? a.aryl().metrics() : null;
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

  /**
   * The pools now, from the scheduler's nodes (a node being relabelled may be missing for a
   * moment).
   */
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
    return new Pools(
        infNodes,
        trainingLabelled - loanedNodes,
        loanedNodes,
        trainingUsed,
        trainingGpus,
        loanedGpus);
  }

  /** The inference nodes (host:port) on loan to training now. */
  java.util.Set<String> lentNodes() {
    java.util.Set<String> lent = new java.util.HashSet<>();
    for (int i = 0; i < inference; i++) {
      SchedulerNode node = scheduler().getSchedulerNode(nodeId(i));
      if (node != null && "training".equals(node.getPartition())) {
        lent.add(nodeId(i).toString());
      }
    }
    return lent;
  }

  /** Nodes per pool and GPUs of the training partition. */
  record Pools(
      int inferenceNodes,
      int trainingNodes,
      int loanedNodes,
      long trainingUsedGpus,
      long trainingGpus,
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
