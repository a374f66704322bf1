package io.aryl.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.dist.DaemonCluster.AppReport;
import io.aryl.dist.DaemonCluster.NodeManager;
import io.aryl.dist.Daemons.Daemon;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
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
 * Aryl from the unpacked distribution on separate daemons, as an operator runs it: ZooKeeper, one
 * ResourceManager with {@code ArylScheduler} and work-preserving recovery, and three NodeManagers
 * (an inference and a training node of 8 GPUs, and a CPU node in the default partition for the
 * ApplicationMasters), each a JVM of its own on a Hadoop install laid out of Hadoop 3.5.0's jars
 * ({@link HadoopHome}), configured from the tarball's templates ({@link DaemonCluster}) and
 * labelled by the tarball's {@code bin/aryl-labels init}. The scenarios run in order on the one
 * cluster and print their evidence; every process is killed afterwards, and none is left. Tagged
 * {@code daemons}: aryl-dist's pom runs them in {@code integration-test}, after the tarball's own
 * tests.
 */
@Tag("daemons")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ArylDaemonsIT {

  private static final long T0 = System.nanoTime();
  private static DaemonCluster cluster;
  private static Path aryl;
  private static NodeManager inference;
  private static NodeManager training;
  private static NodeManager cpu;

  @BeforeAll
  static void startFromTheTarball() throws Exception {
    Path work = Path.of(Distribution.property("aryl.dist.work"));
    deleteTree(work.resolve("run"));
    Path run = Files.createDirectories(work.resolve("run"));
    aryl = Distribution.unpack(run);
    HadoopHome hadoop =
        HadoopHome.layOut(work.resolve("hadoop-home"), Distribution.hadoopHomeJars());
    say(
        "unpacked %s; Hadoop install of %d jars at %s",
        aryl.getFileName(), Distribution.hadoopHomeJars().size(), hadoop.home());
    cluster = new DaemonCluster(aryl, hadoop, run.resolve("cluster"));

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

    Path pools = cluster.rmConf().getParent().resolve("pools.txt");
    Files.writeString(
        pools,
        inference.nodeId() + " inference\n" + training.nodeId() + " training\n",
        StandardCharsets.UTF_8);
    Daemon init =
        cluster
            .daemons()
            .run(
                "aryl-labels-init",
                List.of(
                    aryl.resolve("bin/aryl-labels").toString(),
                    "init",
                    "--hosts",
                    pools.toString()),
                cluster.clientEnv());
    int exit = Daemons.awaitExit(init, Duration.ofSeconds(60));
    assertThat(exit)
        .as("bin/aryl-labels init exit code; its output:\n%s", init.logTail(40))
        .isZero();
    say("bin/aryl-labels init --hosts pools.txt: exit 0, %s", init.logTail(3).replace('\n', ' '));
  }

  @AfterAll
  static void killEverything() {
    if (cluster == null) {
      return;
    }
    List<Daemon> started = cluster.daemons().started();
    cluster.close();
    for (Daemon d : started) {
      assertThat(d.isAlive()).as("%s still running after the stop", d).isFalse();
      assertThat(ProcessHandle.of(d.pid()).map(ProcessHandle::isAlive).orElse(false))
          .as("pid %s of %s", d.pid(), d.name())
          .isFalse();
    }
    say("stopped: %d processes started, none left running", started.size());
  }

  @Test
  @Order(1)
  @DisplayName("Aryl's status shows the two GPU nodes in their pools, with the template's 8 GPUs")
  void bothNodesInAryl() {
    SchedulerStatus status =
        DaemonCluster.await(
            Duration.ofSeconds(60),
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
      "An elastic job submitted with yarn jar and the tarball's aryl-am jar grows to the training"
          + " node's 8 GPUs and survives kill -9 of the ResourceManager: same attempt, same"
          + " containers, same workers")
  void elasticJobSurvivesRmKill() throws Exception {
    Daemon submit =
        cluster.yarnJarAm(
            "yarn-jar-submit",
            List.of(
                "submit",
                "--name",
                "elastic",
                "--min-workers",
                "2",
                "--max-workers",
                "4",
                "--gpus",
                "2",
                "--memory-mb",
                "256",
                "--am-memory-mb",
                "256",
                "--predicted-runtime-s",
                "600",
                "--",
                "sleep",
                "600"));
    String appId =
        Files.readAllLines(submit.log(), StandardCharsets.UTF_8).stream()
            .filter(l -> l.startsWith("submitted "))
            .map(l -> l.substring("submitted ".length()).strip())
            .findFirst()
            .orElseThrow(() -> new AssertionError("no 'submitted' line:\n" + submit.logTail(40)));
    say("yarn jar aryl-am submit: %s", appId);

    DaemonCluster.await(
        Duration.ofSeconds(90),
        appId + " runs 4 workers of 2 GPUs on " + training.nodeId(),
        cluster.rm(),
        () -> workers(appId),
        w -> w == 4);
    // Allocated first, then launched by the AM: wait for the NodeManagers to run them.
    List<String> workerContainers =
        DaemonCluster.await(
            Duration.ofSeconds(60),
            "4 RUNNING containers on the training node " + training.nodeId(),
            training.daemon(),
            () -> sorted(cluster.containers(training)),
            ids -> ids.size() == 4);
    List<String> amContainers = sorted(cluster.containers(cpu));
    assertThat(amContainers).as("containers on the CPU node (the AM)").hasSize(1);
    AppReport before = cluster.app(appId);
    say(
        "before: %s %s, attempts %s, workers %s, AM %s",
        appId, before.state(), before.attempts(), workerContainers, amContainers);

    Daemon oldRm = cluster.rm();
    long killed = System.nanoTime();
    Daemon newRm = cluster.killAndRestartResourceManager();
    say(
        "kill -9 of the ResourceManager pid %d; new ResourceManager pid %d active after %.1f s",
        oldRm.pid(), newRm.pid(), (System.nanoTime() - killed) / 1e9);

    DaemonCluster.await(
        Duration.ofSeconds(90),
        appId + " RUNNING again with 4 workers in Aryl's status",
        newRm,
        () -> workers(appId),
        w -> w == 4);
    AppReport after = cluster.app(appId);
    say("recovered after %.1f s", (System.nanoTime() - killed) / 1e9);
    assertThat(after.state()).as("state of %s after the restart", appId).isEqualTo("RUNNING");
    assertThat(after.attempts()).as("attempts of %s", appId).isEqualTo(before.attempts());
    assertThat(sorted(cluster.containers(training)))
        .as("worker containers on %s", training.nodeId())
        .isEqualTo(workerContainers);
    assertThat(sorted(cluster.containers(cpu))).as("the AM's container").isEqualTo(amContainers);
    say(
        "after: %s %s, attempts %s, workers %s, AM %s",
        appId,
        after.state(),
        after.attempts(),
        cluster.containers(training),
        cluster.containers(cpu));
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
