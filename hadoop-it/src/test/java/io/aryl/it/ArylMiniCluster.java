package io.aryl.it;

import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.conf.TemplateConf;
import io.aryl.yarn.ArylScheduler;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import javax.servlet.Filter;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.ha.HAServiceProtocol.HAServiceState;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.FileSystemBasedConfigurationProvider;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.HAUtil;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.api.protocolrecords.RegisterNodeManagerRequest;
import org.apache.hadoop.yarn.server.api.protocolrecords.RegisterNodeManagerResponse;
import org.apache.hadoop.yarn.server.api.protocolrecords.ReplaceLabelsOnNodeRequest;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceTrackerService;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.ZKRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.apache.hadoop.yarn.webapp.WebApp;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.FilterMapping;
import org.eclipse.jetty.servlet.ServletHandler;

/**
 * A MiniYARNCluster configured from exactly the conf-templates files, with test-sized timings: NMs
 * with fake GPU counts, NM web UIs off, nodes named host:port so they can be labelled one by one.
 *
 * <p>Three modes, chosen by the configuration it is started with:
 *
 * <ul>
 *   <li>{@link #testConf}: one ResourceManager, in-process NodeManagers, ephemeral ports, nothing
 *       recovered;
 *   <li>{@link #restartableConf}: one ResourceManager that {@link #restartRm} really restarts, with
 *       work-preserving recovery from a {@code FileSystemRMStateStore} under the work directory;
 *   <li>{@link #haConf}: two ResourceManagers electing their leader in an embedded ZooKeeper and
 *       recovering from a {@code ZKRMStateStore}; {@link #failover} stops the active one and the
 *       other takes over.
 * </ul>
 *
 * In both recovering modes {@link #rm}, {@link #scheduler}, {@link #aryl} and {@link #webAddress}
 * follow the active ResourceManager, {@link #delayRegistration} holds one NodeManager's next
 * registration back, and {@link #stopNodeManager} stops a NodeManager.
 */
public final class ArylMiniCluster implements AutoCloseable {
  public static final String TEMPLATES = TemplateConf.DIR;

  /**
   * Milliseconds a recovering Aryl waits at most for the nodes that held containers, in the
   * recovering modes.
   */
  public static final long RECOVERY_MAX_WAIT_MS = 20_000;

  /** Milliseconds a job below its minimum keeps its workers, in the recovering modes. */
  public static final long PARTIAL_GANG_GRACE_MS = 10_000;

  /** The two ResourceManagers of the HA mode. */
  public static final List<String> HA_RM_IDS = List.of("rm0", "rm1");

  private final Yarn cluster;
  private final YarnConfiguration conf;
  private final YarnClient client;

  /** The HA mode's ZooKeeper, when start() provided it; else null. */
  private final TestingServer zk;

  private final Set<Integer> stopped = ConcurrentHashMap.newKeySet();

  private ArylMiniCluster(Yarn cluster, YarnConfiguration conf, TestingServer zk) {
    this.cluster = cluster;
    this.conf = conf;
    this.zk = zk;
    this.client = YarnClient.createYarnClient();
    client.init(conf);
    client.start();
  }

  /**
   * The templates' properties, in the order yarn-site, capacity-scheduler, resource-types,
   * node-resources.
   */
  public static YarnConfiguration templateConf() {
    return TemplateConf.overlay(new YarnConfiguration(), TemplateConf.NEW_CLUSTER);
  }

  /**
   * {@link #templateConf()} with another capacity-scheduler.xml template (under {@link
   * TemplateConf#DIR}, e.g. {@link TemplateConf#EXISTING_CLUSTER_CAPACITY_SCHEDULER}) in place of
   * the new-cluster one.
   */
  public static YarnConfiguration templateConf(String capacitySchedulerTemplate) {
    return TemplateConf.overlay(
        new YarnConfiguration(),
        List.of(
            TemplateConf.YARN_SITE,
            capacitySchedulerTemplate,
            TemplateConf.RESOURCE_TYPES,
            TemplateConf.NODE_RESOURCES));
  }

  /**
   * Test-only settings on top of the templates: where state lives, fast heartbeats, fast NM stop.
   */
  public static YarnConfiguration testConf(File workDir) {
    return testConf(workDir, templateConf());
  }

  /**
   * {@link #testConf(File)} on top of these template properties (e.g. {@link
   * #templateConf(String)}).
   */
  public static YarnConfiguration testConf(File workDir, YarnConfiguration templates) {
    YarnConfiguration conf = templates;
    conf.set(
        YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR,
        new File(workDir, "node-labels").toURI().toString());
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, true);
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 100);
    // MiniYARNCluster gives NMs its own memory default (4 GB), not
    // yarn.nodemanager.resource.memory-mb.
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
    conf.set("aryl.scheduler.state-store.dir", arylStateDir(workDir).toURI().toString());
    return conf;
  }

  /**
   * Where Aryl's filesystem state store keeps its state, for a cluster started from {@code
   * testConf(workDir)}.
   */
  public static File arylStateDir(File workDir) {
    return new File(workDir, "aryl-state");
  }

  /**
   * {@link #testConf} for a ResourceManager that {@link #restartRm} restarts: work-preserving
   * recovery from a {@code FileSystemRMStateStore} under {@code workDir} (node labels are there
   * already), and the RM on free ports fixed before the start, so that a restarted RM comes back
   * where NodeManagers and ApplicationMasters look for it.
   */
  public static YarnConfiguration restartableConf(File workDir) {
    YarnConfiguration conf = recoveringConf(workDir);
    conf.set(YarnConfiguration.RM_STORE, FileSystemRMStateStore.class.getName());
    conf.set(
        YarnConfiguration.FS_RM_STATE_STORE_URI, new File(workDir, "rm-state").toURI().toString());
    for (String key : YarnConfiguration.getServiceAddressConfKeys(conf)) {
      conf.set(key, "localhost:" + freePort());
    }
    return conf;
  }

  /**
   * {@link #testConf} for two ResourceManagers ({@link #HA_RM_IDS}) with automatic failover: the
   * embedded elector (ZooKeeper's ActiveStandbyElector) and a {@code ZKRMStateStore}, which fences
   * a deposed RM, in the ZooKeeper at {@code yarn.resourcemanager.zk-address}; {@link #start} runs
   * an embedded one when none is set. Each RM on its own free ports.
   */
  public static YarnConfiguration haConf(File workDir) {
    YarnConfiguration conf = recoveringConf(workDir);
    conf.setBoolean(YarnConfiguration.RM_HA_ENABLED, true);
    conf.set(YarnConfiguration.RM_HA_IDS, String.join(",", HA_RM_IDS));
    conf.set(YarnConfiguration.RM_CLUSTER_ID, "aryl-it");
    conf.setBoolean(YarnConfiguration.AUTO_FAILOVER_ENABLED, true);
    conf.set(YarnConfiguration.RM_STORE, ZKRMStateStore.class.getName());
    // The ZooKeeper session: how long a crashed active RM keeps its lock. A stopped one gives it up
    // at once.
    conf.setInt(YarnConfiguration.RM_ZK_TIMEOUT_MS, 5000);
    conf.setLong(YarnConfiguration.CLIENT_FAILOVER_SLEEPTIME_BASE_MS, 100);
    conf.setLong(YarnConfiguration.CLIENT_FAILOVER_SLEEPTIME_MAX_MS, 500);
    // Becoming active refreshes queues and resource types from the configuration provider's files,
    // not from this
    // configuration (with the default provider: the classpath, where the only
    // capacity-scheduler.xml is Hadoop's test
    // one). The RMs read them from a directory that start() fills with this configuration, as
    // production RMs in HA
    // share theirs.
    conf.set(
        YarnConfiguration.RM_CONFIGURATION_PROVIDER_CLASS,
        FileSystemBasedConfigurationProvider.class.getName());
    conf.set(
        YarnConfiguration.FS_BASED_RM_CONF_STORE, new File(workDir, "rm-conf").toURI().toString());
    for (String id : HA_RM_IDS) {
      for (String key : YarnConfiguration.getServiceAddressConfKeys(conf)) {
        conf.set(HAUtil.addSuffix(key, id), "localhost:" + freePort());
      }
    }
    return conf;
  }

  /** What both recovering modes share. */
  private static YarnConfiguration recoveringConf(File workDir) {
    YarnConfiguration conf = testConf(workDir);
    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
    // The Capacity Scheduler places nothing for this long after a recovery (default 10 s).
    conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 2000);
    // In-process NodeManagers keep the first RM's tracker object and never reach a new one: they
    // must use RPC, which
    // MiniYARNCluster allows with fixed ports only.
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_USE_RPC, true);
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
    // NodeManagers, ApplicationMasters and clients try the RM every 100 ms (default 30 s) and give
    // up after 20 s
    // without one (default 15 min), so that a test whose RM did not come back ends. The RM proxies
    // retry by themselves:
    // no retries inside each attempt (default 10 x 1 s, which the proxies' retry count multiplies).
    conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_RETRY_INTERVAL_MS, 100);
    conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_MAX_WAIT_MS, 20_000);
    conf.setInt(CommonConfigurationKeysPublic.IPC_CLIENT_CONNECT_MAX_RETRIES_KEY, 0);
    conf.setLong("aryl.scheduler.recovery.max-wait-ms", RECOVERY_MAX_WAIT_MS);
    conf.setLong("aryl.scheduler.partial-gang-grace-ms", PARTIAL_GANG_GRACE_MS);
    return conf;
  }

  /**
   * Surefire's number of this test JVM (system property {@code aryl.it.fork}, set from {@code
   * surefire.forkNumber}; 1 outside surefire). Test classes run in two JVMs at once, each giving
   * fixed ports from a slice of its own.
   */
  private static final int FORK = Integer.getInteger("aryl.it.fork", 1);

  /** Ports per slice: four JVMs at most share the range below. */
  private static final int FIXED_PORTS_SLICE = 2_500;

  /**
   * Ports the fixed RM addresses are taken from: below Linux's ephemeral range (32768-60999), and
   * below the range the elastic AM takes its workers' master ports from (20000-32767); in
   * 10000-19999, this JVM's slice (see {@link #FORK}): a port another JVM found free but has not
   * bound yet is never given here too.
   */
  private static final int FIXED_PORTS_FROM =
      10_000 + Math.floorMod(FORK - 1, 4) * FIXED_PORTS_SLICE;

  private static final int FIXED_PORTS_TO = FIXED_PORTS_FROM + FIXED_PORTS_SLICE;
  private static final java.util.Random PORTS = new java.util.Random();

  /**
   * Every port {@link #freePort} gave: a free port is not bound until its RM starts, and must not
   * be given twice.
   */
  private static final Set<Integer> GIVEN_PORTS = ConcurrentHashMap.newKeySet();

  /**
   * A port free now for an RM address that must stay the same across restarts, and not given before
   * in this JVM (two addresses of one configuration once drew the same port, and the second service
   * failed to bind). Not an ephemeral one: while a stopped RM is down, any outgoing connection in
   * the JVM may be given its old ephemeral port, and it could not come back.
   */
  private static int freePort() {
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = FIXED_PORTS_FROM + PORTS.nextInt(FIXED_PORTS_TO - FIXED_PORTS_FROM);
      if (!GIVEN_PORTS.add(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port)) {
        return s.getLocalPort();
      } catch (IOException taken) {
        // try another
      }
    }
    throw new UncheckedIOException(
        new IOException("no free port in " + FIXED_PORTS_FROM + "-" + FIXED_PORTS_TO));
  }

  /**
   * Starts {@code inference + training + 1} NMs; the first {@code inference} are labelled
   * inference, the next {@code training} training, and the last stays in the default partition:
   * ApplicationMasters count against the default partition's AM limit, which is zero without a node
   * there. With {@link #haConf} two ResourceManagers, the first one active.
   */
  public static ArylMiniCluster start(
      String name, YarnConfiguration conf, int inference, int training) throws Exception {
    return start(name, conf, inference, training, 1);
  }

  /**
   * Starts {@code inference + training + unlabelled} NMs, labelled in that order; with {@code
   * unlabelled} 0 every node is labelled, as on a cluster that has no default partition to speak
   * of.
   */
  public static ArylMiniCluster start(
      String name, YarnConfiguration conf, int inference, int training, int unlabelled)
      throws Exception {
    ResourceUtils.resetResourceTypes(conf);
    // Whatever the configuration, no per-container metrics sources: Hadoop's ContainerMetrics
    // unregisters a finished
    // container's source while holding its own lock, and the metrics system's timer snapshots that
    // source while
    // holding the metrics system's lock. With every daemon in one JVM and a 1 s metrics period
    // (hadoop-metrics2.properties) the two deadlocked: the NodeManager stopped reporting finished
    // containers and the
    // cluster's stop hung the build. Nothing here reads them.
    conf.setBoolean(YarnConfiguration.NM_CONTAINER_METRICS_ENABLE, false);
    boolean ha = HAUtil.isHAEnabled(conf);
    TestingServer zk = null;
    if (ha && conf.get(YarnConfiguration.RM_ZK_ADDRESS) == null) {
      zk = new TestingServer();
      // The elector reads yarn.resourcemanager.zk-address only; other ZooKeeper users read
      // hadoop.zk.address.
      conf.set(YarnConfiguration.RM_ZK_ADDRESS, zk.getConnectString());
      conf.set(CommonConfigurationKeys.ZK_ADDRESS, zk.getConnectString());
    }
    if (FileSystemBasedConfigurationProvider.class
        .getName()
        .equals(conf.get(YarnConfiguration.RM_CONFIGURATION_PROVIDER_CLASS))) {
      writeRmConfFiles(conf);
    }
    Yarn cluster =
        new Yarn(name, ha ? HAUtil.getRMHAIds(conf).size() : 1, inference + training + unlabelled);
    try {
      cluster.init(conf);
      // With NM web UIs on, the RM web UI answers 404 ("Multiple Servlet injectors detected"). The
      // constructor that
      // turns them off exists for one RM only; removing the NMs' web servers between init and start
      // does the same.
      for (int i = 0; i < cluster.nodeManagers; i++) {
        cluster.getNodeManager(i).disableWebServer();
      }
      cluster.start();
      if (!cluster.waitForNodeManagersToConnect(30_000)) {
        throw new IllegalStateException("NodeManagers did not connect");
      }
    } catch (Exception | Error e) {
      cluster.stop();
      if (zk != null) {
        zk.close();
      }
      throw e;
    }
    ArylMiniCluster c =
        new ArylMiniCluster(cluster, new YarnConfiguration(cluster.getConfig()), zk);
    c.ensureLabels();
    Map<NodeId, Set<String>> labels = new HashMap<>();
    for (int i = 0; i < inference + training; i++) {
      labels.put(c.nodeId(i), Set.of(i < inference ? "inference" : "training"));
    }
    if (!labels.isEmpty()) {
      c.replaceLabels(labels);
    }
    if (c.scheduler() instanceof ArylScheduler a && a.aryl().running()) {
      // Until then Aryl refuses reclaims with 503 and changes nothing: a started cluster is one
      // Aryl works on. Read
      // in-process: the REST status may need credentials this cluster's callers bring themselves.
      await(
          "Aryl recovered",
          RmRecoveryScenarios.RECOVERED,
          () ->
              c.scheduler() instanceof ArylScheduler s
                  && s.aryl().lifecycle() == io.aryl.yarn.engine.Lifecycle.State.ACTIVE);
    }
    return c;
  }

  /**
   * The configuration as each file the ResourceManager reads through its configuration provider.
   */
  private static void writeRmConfFiles(YarnConfiguration conf) throws IOException {
    File dir = new File(URI.create(conf.get(YarnConfiguration.FS_BASED_RM_CONF_STORE)));
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("cannot create " + dir);
    }
    for (String file :
        List.of(
            YarnConfiguration.YARN_SITE_CONFIGURATION_FILE,
            YarnConfiguration.CS_CONFIGURATION_FILE,
            YarnConfiguration.RESOURCE_TYPES_CONFIGURATION_FILE)) {
      try (FileOutputStream out = new FileOutputStream(new File(dir, file))) {
        conf.writeXml(out);
      }
    }
  }

  /**
   * Creates the two exclusive labels as an operator would with rmadmin, when the scheduler has not.
   */
  private void ensureLabels() throws Exception {
    var mgr = rm().getRMContext().getNodeLabelManager();
    for (String label : List.of("inference", "training")) {
      if (!mgr.getClusterNodeLabelNames().contains(label)) {
        mgr.addToCluserNodeLabels(
            List.of(org.apache.hadoop.yarn.api.records.NodeLabel.newInstance(label, true)));
      }
    }
  }

  public YarnConfiguration conf() {
    return conf;
  }

  public YarnClient client() {
    return client;
  }

  /**
   * Whether applications survive a ResourceManager restart or failover ({@link #restartableConf},
   * {@link #haConf}).
   */
  public boolean recovering() {
    return conf.getBoolean(YarnConfiguration.RECOVERY_ENABLED, false);
  }

  /** The active ResourceManager. */
  public ResourceManager rm() {
    ResourceManager rm = activeRm();
    if (rm == null) {
      throw new IllegalStateException("no ResourceManager is active");
    }
    return rm;
  }

  /** The active ResourceManager, or null while there is none (during a restart or failover). */
  private ResourceManager activeRm() {
    for (int i = 0; i < cluster.getNumOfResourceManager(); i++) {
      ResourceManager rm = cluster.getResourceManager(i);
      if (rm != null
          && rm.getRMContext() != null
          && rm.getRMContext().getHAServiceState() == HAServiceState.ACTIVE) {
        return rm;
      }
    }
    return null;
  }

  public ResourceScheduler scheduler() {
    return rm().getResourceScheduler();
  }

  /** The active ResourceManager's scheduler. */
  public ArylScheduler arylScheduler() {
    return (ArylScheduler) scheduler();
  }

  /** What Aryl does in the active ResourceManager: its status, metrics, loans and reclaims. */
  public io.aryl.yarn.rm.ArylOperations aryl() {
    return arylScheduler().aryl();
  }

  public NodeId nodeId(int i) {
    return cluster.getNodeManager(i).getNMContext().getNodeId();
  }

  /** NM i itself, for what only the NodeManager knows (e.g. its resource plugins). */
  public org.apache.hadoop.yarn.server.nodemanager.NodeManager nodeManager(int i) {
    return cluster.getNodeManager(i);
  }

  /** Scheduler node name of NM i (host:port). */
  public String nodeName(int i) {
    return nodeId(i).toString();
  }

  public void replaceLabels(Map<NodeId, Set<String>> labels) throws Exception {
    rm().getRMContext()
        .getRMAdminService()
        .replaceLabelsOnNode(ReplaceLabelsOnNodeRequest.newInstance(labels));
  }

  public void label(int node, String label) throws Exception {
    replaceLabels(Map.of(nodeId(node), Set.of(label)));
  }

  /**
   * Lends these inference nodes to training as an operator would: through the active scheduler, the
   * one writer of which node is whose (it stores the loan, then relabels). Returns once the
   * scheduler sees them in the training pool; while Aryl still recovers after becoming active, it
   * asks again.
   */
  public void lend(int... nodes) throws Exception {
    List<String> names = java.util.Arrays.stream(nodes).mapToObj(this::nodeName).toList();
    // Labels set at start reach the scheduler's nodes a moment later: lend what the scheduler sees
    // at home.
    await(
        names + " in the inference pool",
        Duration.ofSeconds(30),
        () -> java.util.Arrays.stream(nodes).allMatch(i -> "inference".equals(partitionOf(i))));
    await(
        "Aryl lends " + names,
        Duration.ofSeconds(60),
        () -> {
          try {
            aryl().lend(names);
            return true;
          } catch (io.aryl.yarn.engine.ArylUnavailableException e) {
            return false;
          }
        });
    await(
        names + " in the training pool",
        Duration.ofSeconds(30),
        () -> java.util.Arrays.stream(nodes).allMatch(i -> "training".equals(partitionOf(i))));
  }

  /**
   * Labels of NM i as the scheduler sees them now; null while the node is not registered or no RM
   * is active.
   */
  public String partitionOf(int i) {
    var node = schedulerNode(i);
    return node == null ? null : node.getPartition();
  }

  public int containersOn(int i) {
    var node = schedulerNode(i);
    return node == null ? 0 : node.getNumContainers();
  }

  /**
   * Kills every application that has not ended and returns once none is left and no node holds a
   * container: what a test class that shares one cluster among its tests does after each, so that
   * the next one starts on an idle cluster whatever the last one left behind.
   */
  public void killAllAndAwaitIdle() throws Exception {
    for (ApplicationReport app : client.getApplications(UNFINISHED)) {
      client.killApplication(app.getApplicationId());
    }
    await(
        "every application ended and every node empty",
        Duration.ofSeconds(60),
        () -> {
          try {
            return client.getApplications(UNFINISHED).isEmpty()
                && IntStream.range(0, cluster.nodeManagers).allMatch(i -> containersOn(i) == 0);
          } catch (YarnException | IOException e) {
            return false;
          }
        });
  }

  private static final EnumSet<YarnApplicationState> UNFINISHED =
      EnumSet.of(
          YarnApplicationState.NEW,
          YarnApplicationState.NEW_SAVING,
          YarnApplicationState.SUBMITTED,
          YarnApplicationState.ACCEPTED,
          YarnApplicationState.RUNNING);

  /** Whether the active ResourceManager's scheduler has NM i. */
  public boolean registered(int i) {
    return schedulerNode(i) != null;
  }

  private org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode schedulerNode(
      int i) {
    ResourceManager rm = activeRm();
    return rm == null ? null : rm.getResourceScheduler().getSchedulerNode(nodeId(i));
  }

  public String webAddress() {
    return "http://" + rm().getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS);
  }

  /**
   * The web app of every ResourceManager, active or not ({@link #haConf}: in {@link #HA_RM_IDS}
   * order).
   */
  public List<String> webAddresses() {
    if (!HAUtil.isHAEnabled(conf)) {
      return List.of(webAddress());
    }
    return HA_RM_IDS.stream()
        .map(id -> "http://" + conf.get(HAUtil.addSuffix(YarnConfiguration.RM_WEBAPP_ADDRESS, id)))
        .toList();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Restart, failover, late and lost NodeManagers (the recovering modes)

  /**
   * Restarts the ResourceManager ({@link #restartableConf}): stops it and starts a new one with the
   * same configuration, ports and state stores. Returns once the new one is active, its scheduler
   * (a new instance) started, and every running NodeManager not held back by {@link
   * #delayRegistration} re-registered with it.
   *
   * @return how long that took
   */
  public Duration restartRm() throws Exception {
    if (HAUtil.isHAEnabled(conf) || !recovering()) {
      throw new IllegalStateException("restartRm() needs a cluster started from restartableConf");
    }
    ResourceManager old = activeRm(); // none after a start that failed
    ResourceScheduler before = old == null ? null : old.getResourceScheduler();
    Set<Integer> back = nodesExpectedBack();
    long t0 = System.nanoTime();
    cluster.restartResourceManager(0);
    return awaitTakenOver("restart", before, back, t0);
  }

  /**
   * {@link #restartRm()} with these settings changed first, as an operator edits yarn-site.xml and
   * restarts the ResourceManager: for settings that name nodes, known only once the cluster runs.
   */
  public Duration restartRmWith(Map<String, String> settings) throws Exception {
    settings.forEach(cluster.getConfig()::set);
    settings.forEach(conf::set);
    return restartRm();
  }

  /**
   * Fails over ({@link #haConf}): stops the active ResourceManager, as a crash or an operator
   * would, and returns once the other one was elected, is active with a new scheduler instance
   * started, and every running NodeManager not held back by {@link #delayRegistration}
   * re-registered with it. A ResourceManager stopped by an earlier failover is first started again
   * as the standby.
   *
   * @return how long the failover took, from the stop
   */
  public Duration failover() throws Exception {
    if (!HAUtil.isHAEnabled(conf)) {
      throw new IllegalStateException("failover() needs a cluster started from haConf");
    }
    for (int i = 0; i < cluster.getNumOfResourceManager(); i++) {
      if (cluster.getResourceManager(i) == null) {
        cluster.restartResourceManager(i);
        ResourceManager standby = cluster.getResourceManager(i);
        await(
            "ResourceManager " + i + " back as the standby",
            Duration.ofSeconds(30),
            () -> standby.getRMContext().getHAServiceState() == HAServiceState.STANDBY);
      }
    }
    int active = activeIndex();
    ResourceScheduler before = scheduler();
    Set<Integer> back = nodesExpectedBack();
    long t0 = System.nanoTime();
    cluster.stopResourceManager(active);
    return awaitTakenOver("failover from " + HA_RM_IDS.get(active), before, back, t0);
  }

  private int activeIndex() {
    ResourceManager rm = rm();
    for (int i = 0; i < cluster.getNumOfResourceManager(); i++) {
      if (cluster.getResourceManager(i) == rm) {
        return i;
      }
    }
    throw new IllegalStateException("the active ResourceManager is not the cluster's");
  }

  private Set<Integer> nodesExpectedBack() {
    Set<Integer> out = new TreeSet<>();
    for (int i = 0; i < cluster.nodeManagers; i++) {
      if (!stopped.contains(i) && !cluster.heldBack.containsKey(nodeId(i))) {
        out.add(i);
      }
    }
    return out;
  }

  private Duration awaitTakenOver(String what, ResourceScheduler before, Set<Integer> back, long t0)
      throws InterruptedException {
    await(
        "an active ResourceManager with a new scheduler started after the " + what,
        Duration.ofSeconds(60),
        () -> {
          ResourceManager rm = activeRm();
          return rm != null
              && rm.getResourceScheduler() != before
              && ((Service) rm.getResourceScheduler()).isInState(Service.STATE.STARTED);
        });
    long activeMs = (System.nanoTime() - t0) / 1_000_000;
    await(
        "NodeManagers " + back + " re-registered after the " + what,
        Duration.ofSeconds(60),
        () -> back.stream().allMatch(this::registered));
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    System.out.printf(
        "ArylMiniCluster: %s: active after %d ms, NodeManagers %s back after %d ms%n",
        what, activeMs, back, took.toMillis());
    return took;
  }

  /**
   * Holds the next registration of NM {@code node} with a ResourceManager back by {@code millis}:
   * after the next {@link #restartRm} or {@link #failover} it re-registers that much later than the
   * others.
   */
  public void delayRegistration(int node, long millis) {
    cluster.heldBack.put(nodeId(node), millis);
  }

  /**
   * Stops NM {@code node}, as an operator or a dying host would, and returns once the
   * ResourceManager dropped it. Over RPC (the recovering modes) a stopping NodeManager unregisters
   * and the RM drops it at once; MiniYARNCluster's in-process NodeManagers ({@link #testConf})
   * never reach the RM when they unregister, so it would notice only when the node's liveness
   * expires (10 minutes): this is for the recovering modes only.
   */
  public void stopNodeManager(int node) throws InterruptedException {
    if (!conf.getBoolean(YarnConfiguration.YARN_MINICLUSTER_USE_RPC, false)) {
      throw new IllegalStateException(
          "stopNodeManager needs NodeManagers over RPC: start from restartableConf or" + " haConf");
    }
    stopped.add(node);
    cluster.getNodeManager(node).stop();
    await(
        "the ResourceManager dropped the stopped " + nodeName(node),
        Duration.ofSeconds(30),
        () -> !registered(node));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // REST

  /** HTTP GET on the RM web app; returns status and body. */
  public Http get(String path) throws IOException {
    return http("GET", path, null);
  }

  public Http post(String path, String json) throws IOException {
    return http("POST", path, json);
  }

  /** {@code GET /ws/v1/cluster/aryl}, read as aryl-admin and the loan controller read it. */
  public SchedulerStatus status() throws IOException {
    Http r = get(ArylPaths.STATUS);
    if (r.status() != 200) {
      throw new IOException(
          "GET " + ArylPaths.STATUS + " answered " + r.status() + ": " + r.body());
    }
    return ArylJson.readStatus(r.body());
  }

  /**
   * HTTP {@code method} on the RM web app with this JSON body (null: none); returns status and
   * body.
   */
  public Http http(String method, String path, String body) throws IOException {
    HttpURLConnection c =
        (HttpURLConnection) URI.create(webAddress() + path).toURL().openConnection();
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

  /**
   * Waits until the condition holds, polling every 50 ms; fails with the message after the timeout.
   */
  public static void await(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Waits up to 60 s (other builds may share the machine) like {@link #await}; a timeout also shows
   * Aryl's status (GET /ws/v1/cluster/aryl), so the failure says what the scheduler planned.
   */
  public void awaitShowingStatus(String what, BooleanSupplier condition)
      throws InterruptedException {
    awaitShowingStatus(what, Duration.ofSeconds(60), condition);
  }

  /** {@link #awaitShowingStatus(String, BooleanSupplier)} with another timeout. */
  public void awaitShowingStatus(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    try {
      await(what, timeout, condition);
    } catch (AssertionError e) {
      String status;
      try {
        status = get(ArylPaths.STATUS).body();
      } catch (IOException | RuntimeException io) {
        status = io.toString();
      }
      throw new AssertionError(e.getMessage() + "; Aryl status: " + status, e);
    }
  }

  public File workDir() {
    return cluster.getTestWorkDir();
  }

  @Override
  public void close() throws IOException {
    List<RuntimeException> errors = new ArrayList<>();
    try {
      client.stop();
    } catch (RuntimeException e) {
      errors.add(e);
    }
    if (activeRm() == null) {
      // A stopping NodeManager unregisters, waiting for an RM for as long as it would wait at any
      // time: stop them
      // together rather than one after the other.
      IntStream.range(0, cluster.nodeManagers)
          .parallel()
          .forEach(i -> cluster.getNodeManager(i).stop());
    }
    cluster.stop();
    if (zk != null) {
      zk.close();
    }
    if (!errors.isEmpty()) {
      throw errors.get(0);
    }
  }

  // ---------------------------------------------------------------------------------------------------------------

  /**
   * MiniYARNCluster whose ResourceManagers, also those a restart creates, hold chosen NodeManagers'
   * registrations back.
   */
  private static final class Yarn extends MiniYARNCluster {
    /** Node to hold back, and by how many ms; taken by its next registration. */
    final Map<NodeId, Long> heldBack = new ConcurrentHashMap<>();

    final int nodeManagers;

    Yarn(String name, int resourceManagers, int nodeManagers) {
      super(name, resourceManagers, nodeManagers, 1, 1);
      this.nodeManagers = nodeManagers;
    }

    @Override
    protected ResourceManager createResourceManager() {
      return new HoldingResourceManager();
    }

    /**
     * As MiniYARNCluster's, except that the new ResourceManager comes from {@link
     * #createResourceManager}: Hadoop's builds a plain {@code new ResourceManager()}, which would
     * hold nothing back. Its fields and steps are private, hence the reflection.
     */
    @Override
    public synchronized void restartResourceManager(int index) throws InterruptedException {
      stopResourceManager(index);
      try {
        Field rms = MiniYARNCluster.class.getDeclaredField("resourceManagers");
        rms.setAccessible(true);
        ((ResourceManager[]) rms.get(this))[index] = createResourceManager();
        Method init =
            MiniYARNCluster.class.getDeclaredMethod(
                "initResourceManager", int.class, Configuration.class);
        init.setAccessible(true);
        init.invoke(this, index, getConfig());
        Method start = MiniYARNCluster.class.getDeclaredMethod("startResourceManager", int.class);
        start.setAccessible(true);
        start.invoke(this, index);
      } catch (InvocationTargetException e) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw new IllegalStateException(e.getCause());
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(
            "MiniYARNCluster's private members changed; restartResourceManager needs "
                + "resourceManagers, initResourceManager(int, Configuration) and startResourceManager(int)",
            e);
      }
    }

    private final class HoldingResourceManager extends ResourceManager {
      @Override
      protected void doSecureLogin() {
        // no keytab in tests, as MiniYARNCluster's own
      }

      @Override
      protected void startWepApp() {
        super.startWepApp();
        if (HAUtil.isHAEnabled(getConfig())) {
          useOwnGuicePipeline();
        }
      }

      /**
       * Guice keeps one static filter pipeline, the last web app's: with two RMs in one JVM each
       * RM's web app would run the other's filters (the standby's RMWebAppFilter redirecting the
       * active one's requests to itself, for ever). Maps this RM's web app to the GuiceFilter bound
       * to its own injector instead. Hadoop keeps both the web app and that filter private, hence
       * the reflection.
       */
      private void useOwnGuicePipeline() {
        try {
          Field webAppField = ResourceManager.class.getDeclaredField("webApp");
          webAppField.setAccessible(true);
          WebApp webApp = (WebApp) webAppField.get(this);
          Field filterField = WebApp.class.getDeclaredField("guiceFilter");
          filterField.setAccessible(true);
          FilterHolder own = new FilterHolder((Filter) filterField.get(webApp));
          own.setName("guice-" + HAUtil.getRMHAId(getConfig()));
          ServletHandler handler = webApp.getHttpServer().getWebAppContext().getServletHandler();
          handler.addFilter(own);
          if (!own.isStarted()) {
            own.start();
          }
          own.initialize();
          FilterMapping[] mappings = handler.getFilterMappings();
          for (FilterMapping m : mappings) {
            if ("guice".equals(m.getFilterName())) {
              m.setFilterName(own.getName());
            }
          }
          handler.setFilterMappings(mappings);
        } catch (Exception e) {
          throw new IllegalStateException(
              "cannot give the web app of "
                  + HAUtil.getRMHAId(getConfig())
                  + " its own Guice pipeline",
              e);
        }
      }

      @Override
      protected ResourceTrackerService createResourceTrackerService() {
        return new ResourceTrackerService(
            rmContext,
            nodesListManager,
            nmLivelinessMonitor,
            rmContext.getContainerTokenSecretManager(),
            rmContext.getNMTokenSecretManager()) {
          @Override
          public RegisterNodeManagerResponse registerNodeManager(RegisterNodeManagerRequest request)
              throws YarnException, IOException {
            Long ms = heldBack.remove(request.getNodeId());
            if (ms != null) {
              System.out.printf(
                  "ArylMiniCluster: holding the registration of %s back by %d ms%n",
                  request.getNodeId(), ms);
              try {
                Thread.sleep(ms);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while holding a registration back", e);
              }
            }
            return super.registerNodeManager(request);
          }
        };
      }
    }
  }
}
