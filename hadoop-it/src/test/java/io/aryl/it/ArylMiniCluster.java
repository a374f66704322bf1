package io.aryl.it;

import io.aryl.yarn.ArylScheduler;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.api.protocolrecords.ReplaceLabelsOnNodeRequest;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;

/**
 * A MiniYARNCluster configured from exactly the conf-templates files, with test-sized timings: NMs with fake GPU
 * counts, NM web UIs off, nodes named host:port so they can be labelled one by one.
 */
public final class ArylMiniCluster implements AutoCloseable {
  public static final String TEMPLATES = "aryl-conf/";

  private final MiniYARNCluster cluster;
  private final YarnConfiguration conf;
  private final YarnClient client;

  private ArylMiniCluster(MiniYARNCluster cluster, YarnConfiguration conf) {
    this.cluster = cluster;
    this.conf = conf;
    this.client = YarnClient.createYarnClient();
    client.init(conf);
    client.start();
  }

  /** The templates' properties, in the order yarn-site, capacity-scheduler, resource-types, node-resources. */
  public static YarnConfiguration templateConf() {
    YarnConfiguration conf = new YarnConfiguration();
    for (String file : List.of("yarn-site.xml", "capacity-scheduler.xml", "resource-types.xml", "node-resources.xml")) {
      Configuration t = new Configuration(false);
      URL url = ArylMiniCluster.class.getClassLoader().getResource(TEMPLATES + file);
      if (url == null) {
        throw new IllegalStateException("template " + TEMPLATES + file + " is not on the classpath");
      }
      t.addResource(url);
      // set(), not addResource(): the Capacity Scheduler re-reads capacity-scheduler.xml from the classpath and
      // only properties set in the overlay win over it.
      for (Map.Entry<String, String> e : t) {
        conf.set(e.getKey(), t.get(e.getKey()));
      }
    }
    return conf;
  }

  /** Test-only settings on top of the templates: where state lives, fast heartbeats, fast NM stop. */
  public static YarnConfiguration testConf(File workDir) {
    YarnConfiguration conf = templateConf();
    conf.set(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR, new File(workDir, "node-labels").toURI().toString());
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, true);
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 100);
    // MiniYARNCluster gives NMs its own memory default (4 GB), not yarn.nodemanager.resource.memory-mb.
    conf.setInt(YarnConfiguration.YARN_MINICLUSTER_NM_PMEM_MB, 16384);
    conf.setInt(YarnConfiguration.NM_VCORES, 16);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setLong("aryl.scheduler.round-interval-ms", 250);
    conf.setLong("aryl.scheduler.shrink-grace-ms", 2000);
    conf.setLong("yarn.nodemanager.log.retain-seconds", 0);
    conf.setLong("yarn.nodemanager.delete.debug-delay-sec", -1);
    conf.setLong("yarn.nodemanager.sleep-delay-before-sigkill.ms", 100);
    conf.setLong("yarn.nodemanager.process-kill-wait.ms", 100);
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, false);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 2);
    return conf;
  }

  /**
   * Starts {@code inference + training + 1} NMs; the first {@code inference} are labelled inference, the next
   * {@code training} training, and the last stays in the default partition: ApplicationMasters count against the
   * default partition's AM limit, which is zero without a node there.
   */
  public static ArylMiniCluster start(String name, YarnConfiguration conf, int inference, int training)
      throws Exception {
    ResourceUtils.resetResourceTypes(conf);
    MiniYARNCluster cluster = new MiniYARNCluster(name, inference + training + 1, 1, 1, false);
    cluster.init(conf);
    cluster.start();
    if (!cluster.waitForNodeManagersToConnect(30_000)) {
      throw new IllegalStateException("NodeManagers did not connect");
    }
    ArylMiniCluster c = new ArylMiniCluster(cluster, new YarnConfiguration(cluster.getConfig()));
    c.ensureLabels();
    Map<NodeId, Set<String>> labels = new HashMap<>();
    for (int i = 0; i < inference + training; i++) {
      labels.put(c.nodeId(i), Set.of(i < inference ? "inference" : "training"));
    }
    if (!labels.isEmpty()) {
      c.replaceLabels(labels);
    }
    return c;
  }

  /** Creates the two exclusive labels as an operator would with rmadmin, when the scheduler has not. */
  private void ensureLabels() throws Exception {
    var mgr = rm().getRMContext().getNodeLabelManager();
    for (String label : List.of("inference", "training")) {
      if (!mgr.getClusterNodeLabelNames().contains(label)) {
        mgr.addToCluserNodeLabels(List.of(org.apache.hadoop.yarn.api.records.NodeLabel.newInstance(label, true)));
      }
    }
  }

  public YarnConfiguration conf() {
    return conf;
  }

  public YarnClient client() {
    return client;
  }

  public ResourceManager rm() {
    return cluster.getResourceManager();
  }

  public ResourceScheduler scheduler() {
    return rm().getResourceScheduler();
  }

  public ArylScheduler aryl() {
    return (ArylScheduler) scheduler();
  }

  public NodeId nodeId(int i) {
    return cluster.getNodeManager(i).getNMContext().getNodeId();
  }

  /** Scheduler node name of NM i (host:port). */
  public String nodeName(int i) {
    return nodeId(i).toString();
  }

  public void replaceLabels(Map<NodeId, Set<String>> labels) throws Exception {
    rm().getRMContext().getRMAdminService().replaceLabelsOnNode(ReplaceLabelsOnNodeRequest.newInstance(labels));
  }

  public void label(int node, String label) throws Exception {
    replaceLabels(Map.of(nodeId(node), Set.of(label)));
  }

  /** Labels of NM i as the scheduler sees them now. */
  public String partitionOf(int i) {
    var node = rm().getResourceScheduler().getSchedulerNode(nodeId(i));
    return node == null ? null : node.getPartition();
  }

  public int containersOn(int i) {
    var node = rm().getResourceScheduler().getSchedulerNode(nodeId(i));
    return node == null ? 0 : node.getNumContainers();
  }

  public String webAddress() {
    return "http://" + rm().getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS);
  }

  /** HTTP GET on the RM web app; returns status and body. */
  public Http get(String path) throws IOException {
    return http("GET", path, null);
  }

  public Http post(String path, String json) throws IOException {
    return http("POST", path, json);
  }

  private Http http(String method, String path, String body) throws IOException {
    HttpURLConnection c = (HttpURLConnection) URI.create(webAddress() + path).toURL().openConnection();
    c.setRequestMethod(method);
    c.setRequestProperty("Accept", "application/json");
    if (body != null) {
      c.setDoOutput(true);
      c.setRequestProperty("Content-Type", "application/json");
      c.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
    }
    int code = c.getResponseCode();
    InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream();
    String text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    return new Http(code, text);
  }

  /** An HTTP answer. */
  public record Http(int status, String body) {}

  /** Waits until the condition holds, polling every 50 ms; fails with the message after the timeout. */
  public static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Waits up to 60 s (other builds may share the machine) like {@link #await}; a timeout also shows Aryl's status
   * (GET /ws/v1/cluster/aryl), so the failure says what the scheduler planned.
   */
  public void awaitShowingStatus(String what, BooleanSupplier condition) throws InterruptedException {
    try {
      await(what, Duration.ofSeconds(60), condition);
    } catch (AssertionError e) {
      String status;
      try {
        status = get("/ws/v1/cluster/aryl").body();
      } catch (IOException io) {
        status = io.toString();
      }
      throw new AssertionError(e.getMessage() + "; Aryl status: " + status, e);
    }
  }

  public File workDir() {
    return cluster.getTestWorkDir();
  }

  @Override
  public void close() throws Exception {
    List<Exception> errors = new ArrayList<>();
    try {
      client.stop();
    } catch (RuntimeException e) {
      errors.add(e);
    }
    cluster.stop();
    if (!errors.isEmpty()) {
      throw errors.get(0);
    }
  }
}
