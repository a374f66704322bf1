package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.admin.ArylAdmin;
import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code aryl-admin} against a real ResourceManager: nodes 0 and 1 are inference nodes, node 0 lent
 * to training, node 2 is training's own, node 3 is unlabelled (the default partition, where the
 * ApplicationMasters run), and an elastic job holds two workers. Every command runs in this JVM
 * through {@link ArylAdmin#run} with the cluster's yarn-site.xml as {@code --conf}, as an operator
 * would run it; one runs as {@code yarn jar aryl-admin.jar} does (RunJar, the configuration on the
 * class path).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ArylAdminIT {
  @TempDir static Path dir;
  private static ArylMiniCluster cluster;
  private static TestJob job;
  private static File yarnSite;
  private static YarnConfiguration clientConf;

  private static AdminCommand.Run admin(String... args) {
    return AdminCommand.run(args);
  }

  private static AdminCommand.Run onCluster(String... args) {
    return AdminCommand.onCluster(yarnSite, args);
  }

  @BeforeAll
  static void start() throws Exception {
    cluster = ArylMiniCluster.start("admin", ArylMiniCluster.testConf(dir.toFile()), 2, 1);
    job = TestJob.submit(cluster, "e", "training", TestJob.shape(1, 4, 1, 600), 1, true);
    job.askWorkersAtOnce(2);
    cluster.awaitShowingStatus("the elastic job holds 2 workers", () -> job.workers() == 2);
    cluster.lend(0);
    cluster.awaitShowingStatus("node 0 is on loan", () -> loaned().size() == 1);
    // The status reports the workers the last planning round saw, which may predate the AM's count.
    cluster.awaitShowingStatus(
        "a round has seen the job's 2 workers",
        () -> ArylStatus.actualWorkers(cluster, job.id()) == 2);

    yarnSite = dir.resolve("yarn-site.xml").toFile();
    clientConf = AdminCommand.writeClientConf(cluster, yarnSite);
  }

  @AfterAll
  static void stop() throws Exception {
    // The job first, then the cluster; a job's close() throws nothing.
    if (job != null) {
      job.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static List<String> loaned() {
    try {
      return cluster.status().loanedNodes().stream().map(NodeStatus::node).toList();
    } catch (Exception e) {
      return List.of();
    }
  }

  private static int doneReclaims() {
    try {
      return cluster.status().reclaimsDone().size();
    } catch (Exception e) {
      return 0;
    }
  }

  @Test
  @Order(1)
  @DisplayName(
      "status: pools with the node on loan, no reclaim yet, the elastic job's min/target/actual/max and why")
  void status() {
    AdminCommand.Run r = onCluster("status");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .startsWith("Aryl scheduler: round ")
        .containsPattern("(?m)^inference\\s+2\\s+\\d+\\s+\\d+\\s+1\\s+0$")
        // training's own node only: the job's 2 workers are there
        .containsPattern("(?m)^training\\s+1\\s+8\\s+2\\s+0\\s+0$")
        // the unlabelled node that holds the ApplicationMasters, in no pool's row
        .containsPattern("(?m)^\\(default partition\\)\\s+1\\s+8\\s+0\\s+0\\s+0$")
        .contains("Reclaims in flight\n(none)\n")
        // 2 of its 4 workers: the last column says why it runs below its maximum
        .containsPattern("(?m)^" + job.id() + "\\s+-\\s+1\\s+\\d+\\s+2\\s+4\\s+\\w+\\s+\\S.*$");
  }

  @Test
  @Order(2)
  @DisplayName(
      "nodes: one row per node, node 0 on loan and owned by inference, node 3 of neither pool")
  void nodes() {
    AdminCommand.Run r = onCluster("nodes");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().lines()).hasSize(1 + 4).first().asString().startsWith("NODE ");
    assertThat(r.out())
        .containsPattern(
            "(?m)^" + cluster.nodeName(0) + "\\s+training\\s+inference\\s+.*\\byes\\s+no$")
        .containsPattern(
            "(?m)^" + cluster.nodeName(1) + "\\s+inference\\s+inference\\s+.*\\bno\\s+no$")
        .containsPattern(
            "(?m)^" + cluster.nodeName(2) + "\\s+training\\s+training\\s+.*\\bno\\s+no$")
        .as("the unlabelled node, of neither pool: no label, owner -")
        .containsPattern("(?m)^" + cluster.nodeName(3) + "\\s+-\\s+.*\\bno\\s+no$");
  }

  @Test
  @Order(3)
  @DisplayName("--json prints the scheduler's answer as it came")
  void json() throws Exception {
    for (String command : List.of("status", "nodes")) {
      AdminCommand.Run r = onCluster(command, "--json");
      assertThat(r.exit()).as(r.err()).isZero();
      SchedulerStatus j = ArylJson.readStatus(r.out());
      assertThat(j.nodes()).hasSize(4);
      assertThat(j.loanedNodes().get(0).node()).isEqualTo(cluster.nodeName(0));
    }
  }

  @Test
  @Order(4)
  @DisplayName("bad options exit 2 naming the option and the value, and reach no ResourceManager")
  void badOptions() {
    String[][] cases = {
      {"reclaim", "--nodes", "0"},
      {"reclaim", "--nodes", "1", "--deadline", "soon"},
      {"reclaim"},
      {"status", "--colour"},
      {"rebalance"}
    };
    String[] expected = {
      "option '--nodes': must be an integer >= 1, was '0'",
      "option '--deadline': must be a duration such as 90s,"
          + " 5m or 1h (units ms, s, m, h, d), was 'soon'",
      "Missing required option: '--nodes=N'",
      "Unknown option: '--colour'",
      "'rebalance'"
    };
    for (int i = 0; i < cases.length; i++) {
      AdminCommand.Run r = onCluster(cases[i]);
      assertThat(r.exit()).as(String.join(" ", cases[i]) + ": " + r.err()).isEqualTo(2);
      assertThat(r.err()).contains(expected[i]).doesNotContain("\tat ");
    }
    assertThat(loaned()).as("nothing was reclaimed").containsExactly(cluster.nodeName(0));
  }

  @Test
  @Order(5)
  @DisplayName(
      "a reclaim the scheduler refuses exits 1 with its error: more nodes than are loaned, an unknown type")
  void refusedReclaims() {
    AdminCommand.Run tooMany = onCluster("reclaim", "--nodes", "3");
    assertThat(tooMany.exit()).as(tooMany.err()).isEqualTo(1);
    assertThat(tooMany.err())
        .hasLineCount(1)
        .contains("refused POST " + ArylPaths.RECLAIMS + " (400): ")
        .contains("asked for 3")
        .contains("only 1 are loaned");
    AdminCommand.Run type = onCluster("reclaim", "--nodes", "1", "--gpu-type", "h100");
    assertThat(type.exit()).as(type.err()).isEqualTo(1);
    assertThat(type.err()).hasLineCount(1).contains("(400): ").contains("h100");
    assertThat(loaned()).as("nothing was reclaimed").containsExactly(cluster.nodeName(0));
  }

  @Test
  @Order(6)
  @DisplayName("reclaim --nodes 1 --deadline 5m returns node 0, and status lists the reclaim")
  void reclaim() throws Exception {
    long before = System.currentTimeMillis();
    AdminCommand.Run r = onCluster("reclaim", "--nodes", "1", "--deadline", "5m");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .startsWith("RECLAIM ")
        .containsPattern("(?m)^nodes\\s+" + cluster.nodeName(0) + "$")
        .containsPattern("(?m)^deadline\\s+\\S+Z \\(in 5m0s\\)$");
    SchedulerStatus now = cluster.status();
    ReclaimStatus reclaim =
        !now.reclaimsInFlight().isEmpty()
            ? now.reclaimsInFlight().get(0)
            : now.reclaimsDone().get(0);
    assertThat(reclaim.deadlineMs())
        .isBetween(before + 300_000, System.currentTimeMillis() + 300_000);

    cluster.awaitShowingStatus(
        "node 0 is back and the reclaim done",
        () -> "inference".equals(cluster.partitionOf(0)) && doneReclaims() > 0);
    AdminCommand.Run status = onCluster("status");
    assertThat(status.exit()).as(status.err()).isZero();
    assertThat(status.out())
        .containsPattern("(?m)^inference\\s+2\\s+\\d+\\s+\\d+\\s+0\\s+\\d$")
        .containsPattern("(?m)^" + reclaim.id() + "\\s+1\\s+" + cluster.nodeName(0) + "\\s+");
  }

  @Test
  @Order(7)
  @DisplayName(
      "as yarn jar runs it: RunJar on the jar's Main-Class, the RM address from yarn-site.xml on the class path")
  void yarnJar() throws Exception {
    String jar = System.getProperty("aryl.it.admin-jar");
    assertThat(jar).as("system property aryl.it.admin-jar").isNotNull();
    assertThat(new File(jar)).as(jar).isFile();
    File confDir = dir.resolve("client-conf").toFile();
    assertThat(confDir.mkdirs()).isTrue();
    Files.copy(yarnSite.toPath(), confDir.toPath().resolve("yarn-site.xml"));
    File outFile = dir.resolve("runjar.out").toFile();
    Process p =
        new ProcessBuilder(
                System.getProperty("java.home") + "/bin/java",
                "-Xmx256m",
                "-cp",
                confDir + File.pathSeparator + System.getProperty("java.class.path"),
                "org.apache.hadoop.util.RunJar",
                jar,
                "nodes")
            .redirectErrorStream(true)
            .redirectOutput(outFile)
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("RunJar ended").isTrue();
    String out = Files.readString(outFile.toPath());
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("NODE ", cluster.nodeName(0), cluster.nodeName(2));
  }

  @Test
  @Order(8)
  @DisplayName(
      "an RM that is down: exit 3 and one line naming the address tried, for every command, no stack trace")
  void rmDown() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    YarnConfiguration down = new YarnConfiguration(clientConf);
    down.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "localhost:" + port);
    File file = dir.resolve("down-site.xml").toFile();
    try (OutputStream out = new FileOutputStream(file)) {
      down.writeXml(out);
    }
    for (String[] args :
        new String[][] {{"status"}, {"nodes", "--json"}, {"reclaim", "--nodes", "1"}}) {
      List<String> all = new ArrayList<>(List.of(args));
      all.addAll(List.of("--conf", file.getPath()));
      AdminCommand.Run r = admin(all.toArray(String[]::new));
      assertThat(r.exit()).as(all + ": " + r.err()).isEqualTo(3);
      assertThat(r.err())
          .as(String.valueOf(all))
          .hasLineCount(1)
          .startsWith(
              "aryl-admin "
                  + args[0]
                  + ": no ResourceManager answered (tried http://localhost:"
                  + port
                  + ")")
          .contains("connection refused")
          .doesNotContain("\tat ");
      assertThat(r.out()).isEmpty();
    }
  }
}
