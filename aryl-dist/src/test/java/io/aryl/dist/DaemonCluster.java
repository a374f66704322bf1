package io.aryl.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.dist.Daemons.Daemon;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A YARN cluster of separate daemons from the unpacked distribution, configured as the deploying
 * page says: ZooKeeper ({@code ZooKeeperServerMain}), one ResourceManager with work-preserving
 * recovery ({@code FileSystemRMStateStore}) on Hadoop's jars plus {@code share/aryl/rm/}, and
 * NodeManagers on Hadoop's jars alone, each with a configuration folder of its own written from the
 * tarball's {@code etc/aryl/} templates. What a test on one host must add to the templates is set
 * here and nowhere else: ports, state and work folders under the test's directory, host:port node
 * names (several NodeManagers share the host), and fast heartbeats.
 */
final class DaemonCluster implements AutoCloseable {

  static final String RESOURCE_MANAGER =
      "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager";
  static final String NODE_MANAGER = "org.apache.hadoop.yarn.server.nodemanager.NodeManager";
  static final String ZOOKEEPER = "org.apache.zookeeper.server.ZooKeeperServerMain";

  private static final String LOG4J =
      """
      log4j.rootLogger=INFO,console
      log4j.appender.console=org.apache.log4j.ConsoleAppender
      log4j.appender.console.target=System.err
      log4j.appender.console.layout=org.apache.log4j.PatternLayout
      log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
      """;

  /** Small heaps, quick start: five JVMs share two cores with the rest of the build. */
  private static final List<String> JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private final Path aryl;
  private final HadoopHome hadoop;
  private final Path work;
  private final Daemons daemons;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final ObjectMapper json = new ObjectMapper();

  private final int zkPort = freePort();
  private final Map<String, String> rmAddresses = new LinkedHashMap<>();
  private final Path rmConf;
  private Daemon zk;
  private Daemon rm;
  private final List<NodeManager> nodeManagers = new ArrayList<>();

  /**
   * A NodeManager process, its node id (host:port), its web app's address, and what starts it again
   * on the same configuration (and so the same ports and recovery folder).
   */
  record NodeManager(int index, Daemon daemon, String nodeId, String webApp, Path conf) {}

  /**
   * A cluster whose processes {@code daemons} starts (and kills on {@link #close()}), with its
   * folders under {@code work}.
   */
  DaemonCluster(Path aryl, HadoopHome hadoop, Path work, Daemons daemons) throws IOException {
    this.aryl = aryl;
    this.hadoop = hadoop;
    this.work = Files.createDirectories(work);
    this.daemons = daemons;
    for (String key :
        List.of(
            "yarn.resourcemanager.address",
            "yarn.resourcemanager.scheduler.address",
            "yarn.resourcemanager.resource-tracker.address",
            "yarn.resourcemanager.admin.address",
            "yarn.resourcemanager.webapp.address")) {
      rmAddresses.put(key, "localhost:" + freePort());
    }
    this.rmConf = writeConf("rm", Map.of());
  }

  /** The ResourceManager's configuration folder: also the clients' {@code HADOOP_CONF_DIR}. */
  Path rmConf() {
    return rmConf;
  }

  String zkConnect() {
    return "localhost:" + zkPort;
  }

  String webApp() {
    return "http://" + rmAddresses.get("yarn.resourcemanager.webapp.address");
  }

  Daemons daemons() {
    return daemons;
  }

  Daemon rm() {
    return rm;
  }

  List<NodeManager> nodeManagers() {
    return List.copyOf(nodeManagers);
  }

  /** The environment of Aryl's scripts on this cluster: the Hadoop install and the RM's conf. */
  Map<String, String> clientEnv() {
    return Map.of(
        "HADOOP_HOME", hadoop.home().toString(),
        "HADOOP_CONF_DIR", rmConf.toString(),
        "JAVA_HOME", System.getProperty("java.home"),
        "PATH", "/usr/bin:/bin");
  }

  /** Starts ZooKeeper and waits until it answers {@code srvr} as a standalone server. */
  Daemon startZooKeeper() throws IOException {
    Path data = Files.createDirectories(work.resolve("zookeeper"));
    Path conf = Files.createDirectories(work.resolve("conf/zookeeper"));
    Files.writeString(conf.resolve("log4j.properties"), LOG4J, StandardCharsets.UTF_8);
    List<String> jvm = new ArrayList<>(JVM);
    jvm.addAll(List.of("-Xmx128m", "-Dzookeeper.admin.enableServer=false"));
    zk =
        daemons.start(
            "zookeeper",
            List.of(conf.toString(), hadoop.jars()),
            jvm,
            ZOOKEEPER,
            List.of(String.valueOf(zkPort), data.toString()),
            Map.of());
    await(
        Duration.ofSeconds(30),
        "ZooKeeper answers srvr",
        zk,
        this::zkServerStats,
        s -> s.contains("Mode: standalone"));
    return zk;
  }

  /** ZooKeeper's answer to the four-letter word {@code srvr}, or "" while it does not answer. */
  String zkServerStats() {
    try (Socket s = new Socket("localhost", zkPort)) {
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      out.write("srvr".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Starts the ResourceManager ({@code ArylScheduler}, from the templates) on Hadoop's jars and
   * {@code share/hadoop/yarn/lib/}, where the deploying page copies Aryl's three jars, and waits
   * until its REST interface reports it STARTED and active.
   */
  Daemon startResourceManager() throws IOException {
    List<String> jvm = new ArrayList<>(JVM);
    jvm.add("-Xmx512m");
    jvm.add("-Dhadoop.log.dir=" + work.resolve("logs"));
    rm =
        daemons.start(
            "resourcemanager",
            List.of(rmConf.toString(), hadoop.jars(), hadoop.yarnLib() + "/*"),
            jvm,
            RESOURCE_MANAGER,
            List.of(),
            Map.of());
    await(
        Duration.ofSeconds(90),
        "the ResourceManager is active",
        rm,
        () -> getOrNull("/ws/v1/cluster/info"),
        info ->
            info != null
                && info.contains("\"haState\":\"ACTIVE\"")
                && info.contains("\"state\":\"STARTED\""));
    return rm;
  }

  /**
   * Starts a ResourceManager on this cluster's configuration with {@code extra} in its
   * yarn-site.xml, from a configuration folder of its own ({@code conf/<name>/}), and returns at
   * once: for a start that is meant to be refused.
   */
  Daemon launchResourceManager(String name, Map<String, String> extra) throws IOException {
    Path conf = writeConf(name, extra);
    List<String> jvm = new ArrayList<>(JVM);
    jvm.add("-Xmx512m");
    jvm.add("-Dhadoop.log.dir=" + work.resolve("logs"));
    return daemons.start(
        name,
        List.of(conf.toString(), hadoop.jars(), aryl.resolve("share/aryl/rm") + "/*"),
        jvm,
        RESOURCE_MANAGER,
        List.of(),
        Map.of());
  }

  /**
   * Starts NodeManager {@code index} with {@code gpus} GPUs (its own copy of the node-resources.xml
   * template, as the template says nodes with other counts get); returns it once the RM lists it
   * RUNNING.
   */
  NodeManager startNodeManager(int index, int gpus) throws IOException {
    String name = "nm" + index;
    Path dir = Files.createDirectories(work.resolve(name));
    int port = freePort();
    String webApp = "localhost:" + freePort();
    Map<String, String> nm = new LinkedHashMap<>();
    nm.put("yarn.nodemanager.address", "localhost:" + port);
    nm.put("yarn.nodemanager.localizer.address", "localhost:" + freePort());
    nm.put("yarn.nodemanager.webapp.address", webApp);
    nm.put("yarn.nodemanager.local-dirs", dir.resolve("local").toString());
    nm.put("yarn.nodemanager.log-dirs", dir.resolve("logs").toString());
    nm.put("yarn.nodemanager.recovery.dir", dir.resolve("recovery").toString());
    // MapReduce's shuffle, as on every NodeManager of a cluster that runs MapReduce; a port of its
    // own, since the NodeManagers share the host.
    nm.put("yarn.nodemanager.aux-services", "mapreduce_shuffle");
    nm.put(
        "yarn.nodemanager.aux-services.mapreduce_shuffle.class",
        "org.apache.hadoop.mapred.ShuffleHandler");
    nm.put("mapreduce.shuffle.port", String.valueOf(freePort()));
    Path conf = writeConf(name, nm);
    HadoopXml.edit(
        aryl.resolve("etc/aryl/node-resources.xml"),
        Map.of("yarn.nodemanager.resource-type.yarn.io/gpu", String.valueOf(gpus)),
        conf.resolve("node-resources.xml"));
    Daemon daemon = startNodeManagerProcess(index, conf);
    String suffix = ":" + port;
    await(
        Duration.ofSeconds(90),
        name + " is RUNNING in the RM",
        daemon,
        this::runningNodes,
        nodes -> nodes.stream().anyMatch(n -> n.endsWith(suffix)));
    String id = runningNodes().stream().filter(n -> n.endsWith(suffix)).findFirst().orElseThrow();
    NodeManager started = new NodeManager(index, daemon, id, webApp, conf);
    nodeManagers.add(started);
    return started;
  }

  /**
   * Starts a NodeManager killed before on its configuration again (same ports, so the same node id,
   * and the same recovery folder); returns it once the RM lists it RUNNING.
   */
  NodeManager restartNodeManager(NodeManager killed) throws IOException {
    if (killed.daemon().isAlive()) {
      throw new IllegalStateException(killed.daemon() + " still runs: kill it first");
    }
    Daemon daemon = startNodeManagerProcess(killed.index(), killed.conf());
    await(
        Duration.ofSeconds(90),
        killed.nodeId() + " is RUNNING in the RM again",
        daemon,
        this::runningNodes,
        nodes -> nodes.contains(killed.nodeId()));
    NodeManager restarted =
        new NodeManager(killed.index(), daemon, killed.nodeId(), killed.webApp(), killed.conf());
    nodeManagers.replaceAll(nm -> nm.index() == killed.index() ? restarted : nm);
    return restarted;
  }

  private Daemon startNodeManagerProcess(int index, Path conf) throws IOException {
    List<String> jvm = new ArrayList<>(JVM);
    jvm.add("-Xmx256m");
    jvm.add("-Dhadoop.log.dir=" + work.resolve("nm" + index).resolve("logs"));
    // What the NodeManager passes on to containers (yarn.nodemanager.env-whitelist): the AM's class
    // path names $HADOOP_CONF_DIR, as on an installed cluster.
    Map<String, String> env =
        Map.of(
            "HADOOP_CONF_DIR", conf.toString(),
            "HADOOP_HOME", hadoop.home().toString(),
            "JAVA_HOME", System.getProperty("java.home"));
    return daemons.start(
        "nodemanager-" + index,
        List.of(conf.toString(), hadoop.jars()),
        jvm,
        NODE_MANAGER,
        List.of(),
        env);
  }

  /** The ids of the containers a NodeManager runs ({@code GET /ws/v1/node/containers}). */
  List<String> containers(NodeManager nm) {
    String body = get("http://" + nm.webApp() + "/ws/v1/node/containers");
    List<String> ids = new ArrayList<>();
    if (body == null) {
      return ids;
    }
    try {
      JsonNode list = json.readTree(body).path("containers").path("container");
      list.forEach(
          c -> {
            if ("RUNNING".equals(c.path("state").asText())) {
              ids.add(c.path("id").asText());
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("the NodeManager's container list does not parse: " + body, e);
    }
    return ids;
  }

  /**
   * {@code kill -9} of the ResourceManager, then a new one on the same configuration (and so the
   * same state store); returns once it is active.
   */
  Daemon killAndRestartResourceManager() throws IOException {
    rm.kill9();
    return startResourceManager();
  }

  /** An application's {@code state} and its attempts' ids, from the RM's REST interface. */
  record AppReport(String state, List<String> attempts) {}

  AppReport app(String appId) {
    String app = getOrNull("/ws/v1/cluster/apps/" + appId);
    String attempts = getOrNull("/ws/v1/cluster/apps/" + appId + "/appattempts");
    if (app == null || attempts == null) {
      return null;
    }
    try {
      List<String> ids = new ArrayList<>();
      json.readTree(attempts)
          .path("appAttempts")
          .path("appAttempt")
          .forEach(a -> ids.add(a.path("appAttemptId").asText()));
      return new AppReport(json.readTree(app).path("app").path("state").asText(), ids);
    } catch (IOException e) {
      throw new UncheckedIOException("the RM's application report does not parse: " + app, e);
    }
  }

  /** The ids (host:port) of the nodes the RM lists as RUNNING. */
  List<String> runningNodes() {
    String body = getOrNull("/ws/v1/cluster/nodes?states=RUNNING");
    List<String> ids = new ArrayList<>();
    if (body == null) {
      return ids;
    }
    try {
      JsonNode node = json.readTree(body).path("nodes").path("node");
      node.forEach(n -> ids.add(n.path("id").asText()));
    } catch (IOException e) {
      throw new UncheckedIOException("the RM's node list does not parse: " + body, e);
    }
    return ids;
  }

  /** Aryl's status ({@code GET /ws/v1/cluster/aryl}), or null while no RM answers it. */
  SchedulerStatus statusOrNull() {
    String body = getOrNull(ArylPaths.STATUS);
    try {
      return body == null ? null : ArylJson.readStatus(body);
    } catch (IOException e) {
      throw new UncheckedIOException("Aryl's status does not parse: " + body, e);
    }
  }

  /** The body of a 200 answer to GET {@code path} of the RM's web app, or null. */
  String getOrNull(String path) {
    return get(webApp() + path);
  }

  /** The body of a 200 answer to GET {@code url}, or null. */
  String get(String url) {
    try {
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(URI.create(url))
                  .timeout(Duration.ofSeconds(5))
                  .header("Accept", "application/json")
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return answer.statusCode() == 200 ? answer.body() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Polls {@code value} until {@code done}, at most {@code timeout}; fails naming what was awaited,
   * the last value and the tail of {@code daemon}'s log (and says so when it died).
   */
  static <T> T await(
      Duration timeout, String what, Daemon daemon, Supplier<T> value, Predicate<T> done) {
    long end = System.nanoTime() + timeout.toNanos();
    T last = null;
    while (System.nanoTime() < end) {
      last = value.get();
      if (done.test(last)) {
        return last;
      }
      if (daemon != null && !daemon.isAlive()) {
        break;
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    String state =
        daemon == null
            ? ""
            : daemon + (daemon.isAlive() ? "" : " DIED") + ", its log:\n" + daemon.logTail(60);
    throw new AssertionError(
        "not within " + timeout + ": " + what + "; last seen: " + last + "\n" + state);
  }

  /**
   * Writes {@code work/conf/<name>/}: the templates' yarn-site.xml with this cluster's values and
   * {@code extra}, the templates' capacity-scheduler.xml, resource-types.xml and node-resources.xml
   * unchanged, a core-site.xml, a mapred-site.xml (MapReduce on YARN, and the {@code mapreduce.*}
   * keys of {@code extra}) and a log4j.properties that logs to the process's output.
   */
  private Path writeConf(String name, Map<String, String> extra) throws IOException {
    Path templates = aryl.resolve("etc/aryl");
    Path conf = Files.createDirectories(work.resolve("conf").resolve(name));
    Path state = work.resolve("state");
    Map<String, String> yarn = new LinkedHashMap<>(rmAddresses);
    yarn.put("yarn.resourcemanager.hostname", "localhost");
    yarn.put("yarn.node-labels.fs-store.root-dir", state.resolve("node-labels").toUri().toString());
    // Several NodeManagers on one host: named host:port, as the template's comment says.
    yarn.put("yarn.scheduler.include-port-in-node-name", "true");
    yarn.put("yarn.resourcemanager.recovery.enabled", "true");
    yarn.put("yarn.resourcemanager.work-preserving-recovery.enabled", "true");
    yarn.put(
        "yarn.resourcemanager.store.class",
        "org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore");
    yarn.put("yarn.resourcemanager.fs.state-store.uri", state.resolve("rm").toUri().toString());
    yarn.put("aryl.scheduler.state-store.dir", state.resolve("aryl").toUri().toString());
    yarn.put("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "250");
    yarn.put("yarn.nodemanager.resource.memory-mb", "4096");
    yarn.put("yarn.nodemanager.resource.cpu-vcores", "8");
    yarn.put("yarn.scheduler.minimum-allocation-mb", "128");
    yarn.put("yarn.nodemanager.recovery.enabled", "true");
    yarn.put("yarn.nodemanager.recovery.supervised", "true");
    // The build's disk may be fuller than YARN's default 90 %: a node must not be UNHEALTHY for it.
    yarn.put(
        "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", "99.9");
    yarn.put("yarn.nodemanager.sleep-delay-before-sigkill.ms", "250");
    // NodeManagers and AMs find a restarted RM within a second, not YARN's default 30 s.
    yarn.put("yarn.resourcemanager.connect.retry-interval.ms", "1000");
    yarn.put("yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms", "2000");
    // A NodeManager killed with kill -9 is LOST after 8 s, not YARN's default 10 minutes: its
    // containers end, and their applications hear of it.
    yarn.put("yarn.nm.liveness-monitor.expiry-interval-ms", "8000");
    // The containers' class path, as Hadoop's default names share/hadoop/*/: this install's one
    // folder.
    yarn.put("yarn.application.classpath", "$HADOOP_CONF_DIR," + hadoop.jars());
    // MapReduce's keys go to mapred-site.xml: mapred-default.xml, loaded after yarn-site.xml,
    // would hide them there.
    extra.forEach(
        (k, v) -> {
          if (!k.startsWith("mapreduce.")) {
            yarn.put(k, v);
          }
        });
    HadoopXml.edit(templates.resolve("yarn-site.xml"), yarn, conf.resolve("yarn-site.xml"));
    for (String file :
        List.of("capacity-scheduler.xml", "resource-types.xml", "node-resources.xml")) {
      Files.copy(templates.resolve(file), conf.resolve(file));
    }
    HadoopXml.create(
        Map.of("hadoop.tmp.dir", work.resolve("tmp").toString(), "fs.defaultFS", "file:///"),
        conf.resolve("core-site.xml"));
    // MapReduce on YARN, as a cluster that runs it is set up; containers small enough for the one
    // CPU node beside the elastic job's ApplicationMaster.
    Map<String, String> mapred = new LinkedHashMap<>();
    mapred.put("mapreduce.framework.name", "yarn");
    mapred.put("yarn.app.mapreduce.am.staging-dir", work.resolve("staging").toString());
    mapred.put("yarn.app.mapreduce.am.resource.mb", "512");
    mapred.put("yarn.app.mapreduce.am.command-opts", "-Xmx384m");
    mapred.put("mapreduce.map.memory.mb", "256");
    mapred.put("mapreduce.reduce.memory.mb", "256");
    mapred.put("mapreduce.application.classpath", "$HADOOP_CONF_DIR," + hadoop.jars());
    extra.forEach(
        (k, v) -> {
          if (k.startsWith("mapreduce.")) {
            mapred.put(k, v);
          }
        });
    HadoopXml.create(mapred, conf.resolve("mapred-site.xml"));
    Files.writeString(conf.resolve("log4j.properties"), LOG4J, StandardCharsets.UTF_8);
    return conf;
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    daemons.close();
  }
}
