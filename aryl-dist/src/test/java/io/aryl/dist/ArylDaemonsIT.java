package io.aryl.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.dist.DaemonCluster.AppReport;
import io.aryl.dist.DaemonCluster.NodeManager;
import io.aryl.dist.Daemons.Daemon;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Aryl installed from the unpacked distribution on separate daemons, by the commands of the
 * deploying page: ZooKeeper, one ResourceManager with {@code ArylScheduler} and work-preserving
 * recovery, and three NodeManagers (an inference and a training node of 8 GPUs, and a CPU node in
 * the default partition for the ApplicationMasters and MapReduce), each a JVM of its own on a
 * Hadoop install laid out of Hadoop 3.5.0's jars ({@link HadoopHome}), configured from the
 * tarball's templates ({@link DaemonCluster}). Every shell command the page gives an operator for
 * the install is read from the page ({@link DeployingPage}) and run here, with this cluster's hosts
 * and folders in place of the page's. The scenarios run in order on the one cluster and print their
 * evidence: the labels, an elastic job that survives {@code kill -9} of the ResourceManager, the
 * loan controller as a process lending the inference node to it, {@code kill -9} of a NodeManager
 * and its restart, inference demand taking the node back, and MapReduce in {@code root.default}.
 * Every process is killed afterwards, and none is left. Tagged {@code daemons}: aryl-dist's pom
 * runs them in {@code integration-test}, after the tarball's own tests.
 */
@Tag("daemons")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ArylDaemonsIT {

  private static final long T0 = System.nanoTime();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LOGGED =
      Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} (INFO|WARN) ");

  /**
   * The loan controller's knobs the test sets beyond the page's command: a decision every 500 ms, a
   * lend 2 s after demand allows it (not 5 minutes), nothing lent again within a minute of a
   * reclaim, servers kept home beyond the need: none (the cluster has one inference node), and
   * reclaimed nodes back within 30 s. The demand the test drives ({@link #demand}) is the {@code
   * http} source's, beside the page's {@code yarn-queue}.
   */
  private static final List<String> CONTROLLER_KNOBS =
      List.of(
          "aryl.labels.interval-ms=500",
          "aryl.labels.loan.hold-ms=2000",
          "aryl.labels.loan.cooldown-ms=60000",
          "aryl.labels.safety-margin-servers=0",
          "aryl.labels.reclaim.deadline-ms=30000");

  private static Daemons daemons;
  private static DeployingPage page;
  private static HadoopHome hadoop;
  private static Path run;
  private static Path aryl;
  private static DaemonCluster cluster;
  private static NodeManager inference;
  private static NodeManager training;
  private static NodeManager cpu;
  private static int controllerPort;
  private static HttpServer demandServer;

  /** The inference rate (requests per second) the test's demand endpoint answers. */
  private static final AtomicReference<Double> demand = new AtomicReference<>(0.0);

  private static String elasticApp;

  @BeforeAll
  static void installFromThePage() throws Exception {
    Path work = Path.of(Distribution.property("aryl.dist.work"));
    deleteTree(work.resolve("run"));
    run = Files.createDirectories(work.resolve("run"));
    daemons = new Daemons(run.resolve("logs"));
    page = DeployingPage.read(Path.of(Distribution.property("aryl.dist.deploying-page")));
    hadoop = HadoopHome.layOut(work.resolve("hadoop-home"), Distribution.hadoopHomeJars());
    say(
        "Hadoop install of %d jars at %s; %s marks blocks %s",
        Distribution.hadoopHomeJars().size(),
        hadoop.home(),
        page.path().getFileName(),
        page.marked());

    Map<String, String> unpack = new LinkedHashMap<>();
    unpack.put("aryl-<version>-bin.tar.gz", Distribution.tarball().toString());
    unpack.put("/opt", run.toString());
    unpack.put("<version>", Distribution.version());
    Map<String, String> env = new LinkedHashMap<>(clientEnv());
    env.remove("ARYL_HOME");
    runBlock("unpack", unpack, env, Duration.ofMinutes(1));
    aryl = run.resolve("aryl-" + Distribution.version());
    assertThat(aryl.resolve("bin/aryl-labels")).as("the unpacked tarball").isExecutable();
    try (Stream<Path> copied = Files.list(hadoop.yarnLib())) {
      say(
          "unpacked %s; copied to share/hadoop/yarn/lib: %s",
          aryl.getFileName(), copied.map(p -> p.getFileName().toString()).sorted().toList());
    }
    String classpath = runBlock("rm-classpath", Map.of(), clientEnv(), Duration.ofSeconds(30));
    for (String jar : List.of("aryl-core-", "aryl-api-", "aryl-yarn-scheduler-")) {
      assertThat(classpath).as("yarn classpath --glob | grep aryl").contains("/" + jar);
    }

    cluster = new DaemonCluster(aryl, hadoop, run.resolve("cluster"), daemons);
    Daemon zk = cluster.startZooKeeper();
    say(
        "ZooKeeper pid %d at %s: %s",
        zk.pid(),
        cluster.zkConnect(),
        cluster.zkServerStats().lines().filter(l -> l.startsWith("Mode")).findFirst().orElse(""));
    Daemon rm = cluster.startResourceManager();
    assertThat(rm.logged("io.aryl.yarn.ArylScheduler"))
        .as("the RM log names the scheduler class, %s", rm.log())
        .isTrue();
    say("ResourceManager pid %d active at %s", rm.pid(), cluster.webApp());
    inference = cluster.startNodeManager(0, 8);
    training = cluster.startNodeManager(1, 8);
    cpu = cluster.startNodeManager(2, 0);
    for (NodeManager nm : List.of(inference, training, cpu)) {
      say("NodeManager %s RUNNING, pid %d", nm.nodeId(), nm.daemon().pid());
    }
  }

  @AfterAll
  static void killEverything() {
    if (demandServer != null) {
      demandServer.stop(0);
    }
    if (daemons == null) {
      return;
    }
    List<Daemon> started = daemons.started();
    daemons.close();
    for (Daemon d : started) {
      assertThat(d.isAlive()).as("%s still running after the stop", d).isFalse();
      assertThat(ProcessHandle.of(d.pid()).map(ProcessHandle::isAlive).orElse(false))
          .as("pid %s of %s", d.pid(), d.name())
          .isFalse();
    }
    // The containers and whatever else the daemons started: nothing left whose command line names
    // this run's folder (killed trees may take a moment to leave the process table).
    DaemonCluster.await(
        Duration.ofSeconds(10),
        "no process left whose command line names " + run,
        null,
        ArylDaemonsIT::processesOfThisRun,
        List::isEmpty);
    say("stopped: %d processes started, none left running", started.size());
  }

  @Test
  @Order(1)
  @DisplayName(
      "The page's yarn rmadmin and aryl-labels init label the two GPU nodes; Aryl's status shows"
          + " them in their pools with the template's 8 GPUs")
  void bothNodesInAryl() throws Exception {
    Map<String, String> hosts = new LinkedHashMap<>();
    hosts.put("host1:port", inference.nodeId());
    hosts.put("host2:port", training.nodeId());
    String rmadmin = runBlock("labels-rmadmin", hosts, clientEnv(), Duration.ofSeconds(90));
    say("yarn rmadmin, yarn cluster --list-node-labels, yarn node -list:%n%s", indent(rmadmin));

    Files.writeString(
        run.resolve("pools.txt"),
        inference.nodeId() + " inference\n" + training.nodeId() + " training\n",
        StandardCharsets.UTF_8);
    Map<String, String> patterns = new LinkedHashMap<>();
    patterns.put("gpu-inf-.*", inference.nodeId());
    patterns.put("gpu-tr-.*", training.nodeId());
    String init = runBlock("labels-init", patterns, clientEnv(), Duration.ofSeconds(90));
    say("bin/aryl-labels init, after yarn rmadmin (idempotent):%n%s", indent(init));

    SchedulerStatus status =
        DaemonCluster.await(
            Duration.ofMinutes(1),
            "Aryl's status shows "
                + inference.nodeId()
                + " as inference and "
                + training.nodeId()
                + " as training",
            cluster.rm(),
            cluster::statusOrNull,
            s ->
                s != null
                    && owner(s, inference.nodeId()) == NodeStatus.Pool.INFERENCE
                    && owner(s, training.nodeId()) == NodeStatus.Pool.TRAINING);
    for (NodeManager nm : List.of(inference, training)) {
      NodeStatus n = status.node(nm.nodeId());
      assertThat(n.gpus()).as("GPUs of %s (node-resources.xml template)", n.node()).isEqualTo(8);
      assertThat(n.label()).as("label of %s", n.node()).isEqualTo(n.owner().value());
      say(
          "GET /ws/v1/cluster/aryl: node %s label %s owner %s gpus %d used %d loaned %s",
          n.node(), n.label(), n.owner().value(), n.gpus(), n.usedGpus(), n.loaned());
    }
  }

  @Test
  @Order(2)
  @DisplayName(
      "The page's elastic job (yarn jar with the tarball's aryl-am jar) grows to the training"
          + " node's 8 GPUs and survives kill -9 of the ResourceManager: same attempt, same"
          + " containers, same workers")
  void elasticJobSurvivesRmKill() throws Exception {
    String submitted =
        runBlock(
            "smoke-job",
            Map.of("<version>", Distribution.version()),
            clientEnv(),
            Duration.ofMinutes(2));
    elasticApp =
        submitted
            .lines()
            .filter(l -> l.startsWith("submitted "))
            .map(l -> l.substring("submitted ".length()).strip())
            .findFirst()
            .orElseThrow(() -> new AssertionError("no 'submitted' line:\n" + submitted));
    assertThat(submitted)
        .as("aryl-admin status after the submit lists the job under Elastic jobs (min 2, max 8)")
        .containsPattern("(?m)^" + elasticApp + " +- +2 +\\d+ +\\d+ +8 ");
    say("yarn jar aryl-am submit: %s; aryl-admin status lists it", elasticApp);

    awaitWorkers(4, "on " + training.nodeId());
    // Allocated first, then launched by the AM: wait for the NodeManagers to run them.
    List<String> workerContainers = awaitContainers(training, 4);
    List<String> amContainers = sorted(cluster.containers(cpu));
    assertThat(amContainers).as("containers on the CPU node (the AM)").hasSize(1);
    AppReport before = cluster.app(elasticApp);
    say(
        "before: %s %s, attempts %s, workers %s, AM %s",
        elasticApp, before.state(), before.attempts(), workerContainers, amContainers);

    Daemon oldRm = cluster.rm();
    long killed = System.nanoTime();
    Daemon newRm = cluster.killAndRestartResourceManager();
    say(
        "kill -9 of the ResourceManager pid %d; new ResourceManager pid %d active after %.1f s",
        oldRm.pid(), newRm.pid(), (System.nanoTime() - killed) / 1e9);

    awaitWorkers(4, "again in Aryl's status after the restart");
    AppReport after = cluster.app(elasticApp);
    say("recovered after %.1f s", (System.nanoTime() - killed) / 1e9);
    assertThat(after.state()).as("state of %s after the restart", elasticApp).isEqualTo("RUNNING");
    assertThat(after.attempts()).as("attempts of %s", elasticApp).isEqualTo(before.attempts());
    assertThat(sorted(cluster.containers(training)))
        .as("worker containers on %s", training.nodeId())
        .isEqualTo(workerContainers);
    assertThat(sorted(cluster.containers(cpu))).as("the AM's container").isEqualTo(amContainers);
    say(
        "after: %s %s, attempts %s, workers %s, AM %s",
        elasticApp,
        after.state(),
        after.attempts(),
        cluster.containers(training),
        cluster.containers(cpu));
  }

  @Test
  @Order(3)
  @DisplayName(
      "The page's loan controller (bin/aryl-labels run) lends the idle inference node to training;"
          + " the elastic job grows onto it, and aryl-admin status and /ws/v1/cluster/aryl show it")
  void controllerLendsTheInferenceNode() throws Exception {
    controllerPort = DaemonCluster.freePort();
    demandServer = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    demandServer.createContext(
        "/demand",
        exchange -> {
          byte[] body = ("{\"rate\": " + demand.get() + "}").getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    demandServer.start();
    Map<String, String> values = new LinkedHashMap<>();
    values.put("zk1:2181,zk2:2181,zk3:2181", cluster.zkConnect());
    values.put("demand.sources=yarn-queue", "demand.sources=yarn-queue,http");
    StringBuilder knobs = new StringBuilder();
    for (String knob : CONTROLLER_KNOBS) {
      knobs.append(" -D ").append(knob);
    }
    knobs.append(" -D aryl.labels.http.port=").append(controllerPort);
    knobs
        .append(" -D aryl.labels.demand.http.url=http://localhost:")
        .append(demandServer.getAddress().getPort())
        .append("/demand");
    String script = page.script("controller", values).stripTrailing() + knobs + "\n";
    Daemon controller =
        daemons.run("aryl-labels-run", List.of("/bin/sh", "-ec", script), clientEnv(), run);
    say("bin/aryl-labels run, pid %d: %s", controller.pid(), script.replace("\\\n", "").strip());

    long started = System.nanoTime();
    SchedulerStatus lent =
        DaemonCluster.await(
            Duration.ofSeconds(90),
            inference.nodeId() + " LENT to training under the controller's target",
            controller,
            cluster::statusOrNull,
            s -> {
              NodeStatus n = s == null ? null : s.node(inference.nodeId());
              return n != null && n.place() == NodeStatus.Place.LENT && n.onLoan();
            });
    NodeStatus n = lent.node(inference.nodeId());
    say(
        "GET /ws/v1/cluster/aryl after %.1f s: node %s label %s owner %s place %s loaned %s;"
            + " loanTarget maxOnLoan %d by %s (epoch %d): %s",
        (System.nanoTime() - started) / 1e9,
        n.node(),
        n.label(),
        n.owner().value(),
        n.place(),
        n.loaned(),
        lent.loanTarget().maxOnLoan(),
        lent.loanTarget().controller(),
        lent.loanTarget().epoch(),
        lent.loanTarget().reason());
    assertThat(lent.loanedNodes()).extracting(NodeStatus::node).containsExactly(n.node());

    awaitWorkers(8, "on the training node and the lent inference node");
    List<String> onLent = awaitContainers(inference, 4);
    say("%s runs 8 workers: 4 on %s %s", elasticApp, inference.nodeId(), onLent);

    Map<String, String> port = Map.of("localhost:8099", "localhost:" + controllerPort);
    String shown = runBlock("controller-status", port, clientEnv(), Duration.ofMinutes(1));
    // curl prints the controller's JSON without a newline; aryl-admin's table follows it.
    JsonNode controllerStatus;
    String adminStatus;
    try (JsonParser json = JSON.createParser(shown)) {
      controllerStatus = JSON.readTree(json);
      adminStatus = shown.substring((int) json.currentLocation().getCharOffset());
    }
    assertThat(controllerStatus.path("role").asText())
        .as("the controller's role")
        .isEqualTo("LEADER");
    assertThat(adminStatus)
        .as("aryl-admin status: the target in force, and the job at 8")
        .contains("loan target 1 (1 on loan)")
        .containsPattern("(?m)^" + elasticApp + " .* 8 +8 +8 ");
    assertThat(adminStatus)
        .as("aryl-admin nodes: the inference node labelled training and loaned")
        .containsPattern("(?m)^" + inference.nodeId() + " +training +inference .* yes +no *$");
    say(
        "curl localhost:%d/status: role %s, epoch %s, decision %s; aryl-admin status:%n%s",
        controllerPort,
        controllerStatus.path("role").asText(),
        controllerStatus.path("epoch").asText(),
        controllerStatus.path("decision"),
        indent(adminStatus));
  }

  @Test
  @Order(4)
  @DisplayName(
      "kill -9 of the training NodeManager: the elastic job loses its workers there and runs on"
          + " at 4 on the lent node; the NodeManager restarts on its ports and the job grows back"
          + " to 8")
  void nodeManagerKilledAndRestarted() throws Exception {
    List<String> lost = sorted(cluster.containers(training));
    long killed = System.nanoTime();
    training.daemon().kill9();
    say(
        "kill -9 of NodeManager %s pid %d (its containers %s)",
        training.nodeId(), training.daemon().pid(), lost);
    awaitWorkers(4, "with " + training.nodeId() + " LOST");
    AppReport during = cluster.app(elasticApp);
    assertThat(during.state()).as("state of %s without the node", elasticApp).isEqualTo("RUNNING");
    say(
        "%s LOST after %.1f s: %s %s runs 4 workers, all on %s %s",
        training.nodeId(),
        (System.nanoTime() - killed) / 1e9,
        elasticApp,
        during.state(),
        inference.nodeId(),
        cluster.containers(inference));

    training = cluster.restartNodeManager(training);
    say(
        "NodeManager %s restarted, pid %d, RUNNING after %.1f s",
        training.nodeId(), training.daemon().pid(), (System.nanoTime() - killed) / 1e9);
    awaitWorkers(8, "again with " + training.nodeId() + " back");
    List<String> regrown = awaitContainers(training, 4);
    assertThat(regrown)
        .as("new containers on the restarted node")
        .doesNotContainAnyElementsOf(lost);
    AppReport after = cluster.app(elasticApp);
    assertThat(after.attempts()).as("attempts of %s", elasticApp).isEqualTo(during.attempts());
    say(
        "%s grew back to 8 workers %.1f s after the kill: on %s %s, attempts %s",
        elasticApp,
        (System.nanoTime() - killed) / 1e9,
        training.nodeId(),
        regrown,
        after.attempts());
  }

  @Test
  @Order(5)
  @DisplayName(
      "Inference demand rises: the controller lowers its target, the scheduler reclaims the node"
          + " and the elastic job shrinks off it to 4")
  void risingDemandReclaimsTheNode() throws Exception {
    long rose = System.nanoTime();
    demand.set(50.0); // ceil(50 * 1.2 / 100) = 1 server needed: the one inference node
    say("inference demand rises to %.0f rps: 1 server needed of 1", demand.get());

    SchedulerStatus home =
        DaemonCluster.await(
            Duration.ofMinutes(2),
            inference.nodeId() + " back HOME in the inference pool",
            cluster.rm(),
            cluster::statusOrNull,
            s -> {
              NodeStatus n = s == null ? null : s.node(inference.nodeId());
              return n != null && n.place() == NodeStatus.Place.HOME && !n.loaned();
            });
    NodeStatus n = home.node(inference.nodeId());
    say(
        "GET /ws/v1/cluster/aryl %.1f s after the rise: node %s label %s place %s; loanTarget"
            + " maxOnLoan %d: %s; reclaims done %s",
        (System.nanoTime() - rose) / 1e9,
        n.node(),
        n.label(),
        n.place(),
        home.loanTarget().maxOnLoan(),
        home.loanTarget().reason(),
        home.reclaimsDone().stream()
            .map(r -> r.phase() + " " + r.returnedNodes() + " shrunk " + r.containersShrunk())
            .toList());
    assertThat(home.loanTarget().maxOnLoan()).as("the controller's lowered target").isZero();
    assertThat(n.label()).as("the returned node's label").isEqualTo("inference");

    awaitWorkers(4, "after the reclaim, all on " + training.nodeId());
    awaitContainers(inference, 0);
    List<String> left = awaitContainers(training, 4);
    JsonNode controller =
        JSON.readTree(cluster.get("http://localhost:" + controllerPort + "/status"));
    JsonNode counters = controller.path("counters");
    assertThat(counters.path("raised").asInt()).as("targets raised: the one lend").isEqualTo(1);
    assertThat(counters.path("lowered").asInt()).as("targets lowered: this reclaim").isEqualTo(1);
    say(
        "%s shrank to 4 workers on %s %s, none left on %s; the controller: raised %d, lowered %d,"
            + " last decision %s",
        elasticApp,
        training.nodeId(),
        left,
        inference.nodeId(),
        counters.path("raised").asInt(),
        counters.path("lowered").asInt(),
        controller.path("decision"));
  }

  @Test
  @Order(6)
  @DisplayName(
      "The page's check: yarn queue, node labels, nodes, and MapReduce pi in root.default ends"
          + " SUCCEEDED with the page's estimate")
  void mapReducePiInRootDefault() throws Exception {
    Map<String, String> rm = Map.of("http://rm:8088", cluster.webApp());
    long started = System.nanoTime();
    String check = runBlock("check", rm, clientEnv(), Duration.ofMinutes(5));
    Matcher estimate = Pattern.compile("(?m)^Estimated value of Pi is (\\S+)$").matcher(check);
    assertThat(estimate.find()).as("pi's estimate in the output:\n%s", check).isTrue();
    assertThat(estimate.group(1)).as("pi 2 1000's estimate").isEqualTo("3.14400000000000000000");
    JsonNode pi = null;
    for (JsonNode app :
        JSON.readTree(cluster.getOrNull("/ws/v1/cluster/apps?applicationTypes=MAPREDUCE"))
            .path("apps")
            .path("app")) {
      pi = app;
    }
    assertThat(pi).as("the MapReduce application in the RM").isNotNull();
    assertThat(pi.path("finalStatus").asText()).as("pi's final status").isEqualTo("SUCCEEDED");
    assertThat(pi.path("queue").asText()).as("pi's queue").isEqualTo("root.default");
    say(
        "yarn jar hadoop-mapreduce-examples pi 2 1000: %s %s %s in queue %s, %.1f s: Estimated"
            + " value of Pi is %s",
        pi.path("id").asText(),
        pi.path("state").asText(),
        pi.path("finalStatus").asText(),
        pi.path("queue").asText(),
        (System.nanoTime() - started) / 1e9,
        estimate.group(1));
    assertThat(workers(elasticApp)).as("the elastic job beside it").isEqualTo(4);
    NodeStatus home = cluster.statusOrNull().node(inference.nodeId());
    assertThat(home.place())
        .as("the inference node, while demand needs it")
        .isEqualTo(NodeStatus.Place.HOME);
  }

  @Test
  @Order(7)
  @DisplayName("Every command block the deploying page marks for this test was run")
  void everyMarkedBlockRan() {
    assertThat(page.notRun()).as("blocks of %s marked and not run", page.path()).isEmpty();
  }

  /**
   * Runs the page's block {@code name} with {@code values} in place of its placeholders, in {@code
   * sh -e} from the run folder; returns its output once it exits 0.
   */
  private static String runBlock(
      String name, Map<String, String> values, Map<String, String> env, Duration timeout)
      throws IOException, InterruptedException {
    String script = page.script(name, values);
    Daemon block = daemons.run("page-" + name, List.of("/bin/sh", "-ec", script), env, run);
    int exit = Daemons.awaitExit(block, timeout);
    assertThat(exit)
        .as(
            "exit code of the page's block '%s':%n%s%nits output:%n%s",
            name, script, block.logTail(60))
        .isZero();
    return block.logText();
  }

  /**
   * The environment of an operator's shell on this cluster: Hadoop's {@code bin} on the PATH, its
   * configuration, {@code ARYL_HOME}, small JVMs.
   */
  private static Map<String, String> clientEnv() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HADOOP_HOME", hadoop.home().toString());
    if (cluster != null) {
      env.put("HADOOP_CONF_DIR", cluster.rmConf().toString());
    }
    if (aryl != null) {
      env.put("ARYL_HOME", aryl.toString());
    }
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("PATH", hadoop.bin() + ":/usr/bin:/bin");
    String jvm = "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";
    env.put("HADOOP_OPTS", jvm);
    env.put("ARYL_OPTS", jvm);
    return env;
  }

  private static void awaitWorkers(int n, String where) {
    DaemonCluster.await(
        Duration.ofMinutes(2),
        elasticApp + " runs " + n + " workers " + where,
        cluster.rm(),
        () -> workers(elasticApp),
        w -> w == n);
  }

  private static List<String> awaitContainers(NodeManager nm, int n) {
    return DaemonCluster.await(
        Duration.ofSeconds(90),
        n + " RUNNING containers of " + elasticApp + " on " + nm.nodeId(),
        nm.daemon(),
        () ->
            sorted(cluster.containers(nm)).stream()
                .filter(c -> c.contains(appNumber(elasticApp)))
                .toList(),
        ids -> ids.size() == n);
  }

  /** {@code application_1_0002} as it appears in its containers' ids: {@code _1_0002_}. */
  private static String appNumber(String appId) {
    return appId.substring("application".length()) + "_";
  }

  /** The workers Aryl's last round saw running for the application; -1 while unknown. */
  private static int workers(String appId) {
    SchedulerStatus s = cluster.statusOrNull();
    ApplicationStatus a = s == null ? null : s.application(appId);
    return a == null ? -1 : a.actualWorkers();
  }

  private static List<String> sorted(List<String> ids) {
    return ids.stream().sorted().toList();
  }

  private static NodeStatus.Pool owner(SchedulerStatus status, String node) {
    NodeStatus n = status.node(node);
    return n == null ? null : n.owner();
  }

  private static List<String> processesOfThisRun() {
    String folder = run.toString();
    return ProcessHandle.allProcesses()
        .filter(p -> p.isAlive() && p.info().commandLine().orElse("").contains(folder))
        .map(p -> p.pid() + " " + p.info().commandLine().orElse(""))
        .toList();
  }

  /** A command's output for the evidence, indented, without the lines its logging adds. */
  private static String indent(String text) {
    return text.strip()
        .lines()
        .filter(l -> !LOGGED.matcher(l).find())
        .map(l -> "    " + l)
        .reduce((a, b) -> a + "\n" + b)
        .orElse("");
  }

  private static void say(String format, Object... args) {
    System.out.printf(
        "[daemons %5.1f s] %s%n", (System.nanoTime() - T0) / 1e9, String.format(format, args));
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
