package io.aryl.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.dist.Daemons.Daemon;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Aryl from the unpacked distribution on separate daemons, as an operator runs it: ZooKeeper, one
 * ResourceManager with {@code ArylScheduler} and work-preserving recovery, and NodeManagers, each a
 * JVM of its own on a Hadoop install laid out of Hadoop 3.5.0's jars ({@link HadoopHome}),
 * configured from the tarball's templates ({@link DaemonCluster}). Each scenario prints its
 * evidence; every process is killed afterwards, and none is left. Tagged {@code daemons}:
 * aryl-dist's pom runs them in {@code integration-test}, after the tarball's own tests.
 */
@Tag("daemons")
class ArylDaemonsIT {

  private static DaemonCluster cluster;
  private static Path aryl;

  @BeforeAll
  static void unpackAndLayOut() throws Exception {
    Path work = Path.of(Distribution.property("aryl.dist.work"));
    deleteTree(work.resolve("run"));
    Path run = Files.createDirectories(work.resolve("run"));
    aryl = Distribution.unpack(run);
    HadoopHome hadoop =
        HadoopHome.layOut(work.resolve("hadoop-home"), Distribution.hadoopHomeJars());
    cluster = new DaemonCluster(aryl, hadoop, run.resolve("cluster"));
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
    System.out.printf(
        "[daemons] stopped: %d processes started, none left running%n", started.size());
  }

  @Test
  @DisplayName(
      "ZooKeeper, an ArylScheduler ResourceManager and two NodeManagers as processes: bin/aryl-labels"
          + " init labels them, and Aryl's status shows both nodes in their pools")
  void bothNodesInAryl() throws Exception {
    long t0 = System.nanoTime();
    Daemon zk = cluster.startZooKeeper();
    say(
        t0,
        "ZooKeeper pid %d at %s: %s",
        zk.pid(),
        cluster.zkConnect(),
        cluster.zkServerStats().lines().filter(l -> l.startsWith("Mode")).findFirst().orElse(""));

    Daemon rm = cluster.startResourceManager();
    assertThat(rm.logged("io.aryl.yarn.ArylScheduler"))
        .as("the RM log names the scheduler class, %s", rm.log())
        .isTrue();
    say(t0, "ResourceManager pid %d active at %s", rm.pid(), cluster.webApp());

    String inference = cluster.startNodeManager(0);
    String training = cluster.startNodeManager(1);
    say(
        t0,
        "NodeManagers RUNNING: %s (pid %d), %s (pid %d)",
        inference,
        cluster.nodeManagers().get(0).pid(),
        training,
        cluster.nodeManagers().get(1).pid());

    Path pools = cluster.rmConf().getParent().resolve("pools.txt");
    Files.writeString(
        pools, inference + " inference\n" + training + " training\n", StandardCharsets.UTF_8);
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
    say(
        t0,
        "bin/aryl-labels init --hosts pools.txt: exit 0, %s",
        init.logTail(3).replace('\n', ' '));

    SchedulerStatus status =
        DaemonCluster.await(
            Duration.ofSeconds(60),
            "Aryl's status shows " + inference + " as inference and " + training + " as training",
            rm,
            cluster::statusOrNull,
            s ->
                s != null
                    && owner(s, inference) == NodeStatus.Pool.INFERENCE
                    && owner(s, training) == NodeStatus.Pool.TRAINING);
    for (String node : List.of(inference, training)) {
      NodeStatus n = status.node(node);
      assertThat(n.gpus()).as("GPUs of %s (node-resources.xml template)", node).isEqualTo(8);
      assertThat(n.label()).as("label of %s", node).isEqualTo(n.owner().value());
      say(
          t0,
          "GET /ws/v1/cluster/aryl: node %s label %s owner %s gpus %d used %d loaned %s",
          n.node(),
          n.label(),
          n.owner().value(),
          n.gpus(),
          n.usedGpus(),
          n.loaned());
    }
  }

  private static NodeStatus.Pool owner(SchedulerStatus status, String node) {
    NodeStatus n = status.node(node);
    return n == null ? null : n.owner();
  }

  private static void say(long t0, String format, Object... args) {
    System.out.printf(
        "[daemons %5.1f s] %s%n", (System.nanoTime() - t0) / 1e9, String.format(format, args));
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
