package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptReport;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `yarn jar aryl-am.jar submit ...` against a real RM running ArylScheduler (one training node of 8
 * GPUs): the job runs its workers through the aryl-am ApplicationMaster, --wait exits with the
 * job's status, bad arguments submit nothing.
 */
class AmSubmitIT {
  @TempDir static Path dir;
  private static ArylMiniCluster cluster;
  private static YarnConfiguration conf;

  @BeforeAll
  static void start() throws Exception {
    conf = AmJobs.conf(dir.toFile());
    cluster = ArylMiniCluster.start("am-submit", conf, 0, 1);
    conf = new YarnConfiguration(cluster.conf());
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
  }

  @Test
  @DisplayName(
      "yarn jar submit --wait: the workers run with their ranks and it exits 0 when they succeed")
  void runJarSubmitWaitSucceeds() throws Exception {
    Path envs = Files.createDirectories(dir.resolve("envs-ok"));
    String worker = "env | sort > " + envs + "/g${ARYL_GENERATION}-r${RANK}.env; sleep 1; exit 0";
    AmJobs.Result r =
        AmJobs.runJar(
            conf,
            dir.toFile(),
            SubmitLine.job("ok")
                .workers(2, 2)
                .gpus(2)
                .memoryMb(256)
                .predictedRuntimeS(60)
                .with("--checkpoint-dir", dir.resolve("ckpt").toString())
                .with("--env", "MY_VAR=hello")
                .amMemoryMb(256)
                .flag("--wait")
                .command(worker));
    assertThat(r.exit()).as("exit status of --wait; output:%n%s", r.out()).isEqualTo(0);
    ApplicationId id = r.applicationId();
    ApplicationReport report = cluster.client().getApplicationReport(id);
    assertThat(report.getFinalApplicationStatus()).isEqualTo(FinalApplicationStatus.SUCCEEDED);
    assertThat(report.getApplicationType()).isEqualTo("ARYL");
    assertThat(report.getApplicationTags())
        .contains(
            "aryl.min-workers=2",
            "aryl.max-workers=2",
            "aryl.gpus-per-worker=2",
            "aryl.predicted-runtime-s=60");

    List<Map<String, String>> g1 = AmJobs.generation(envs, 1);
    assertThat(g1).hasSize(2);
    assertThat(g1).extracting(e -> e.get("RANK")).containsExactlyInAnyOrder("0", "1");
    assertThat(g1).extracting(e -> e.get("LOCAL_RANK")).containsExactlyInAnyOrder("0", "1");
    assertThat(g1)
        .allSatisfy(
            e -> {
              assertThat(e)
                  .containsEntry("WORLD_SIZE", "2")
                  .containsEntry("ARYL_GENERATION", "1")
                  .containsEntry("MY_VAR", "hello")
                  .containsEntry("ARYL_CHECKPOINT_DIR", dir.resolve("ckpt").toString())
                  .containsKeys(
                      "MASTER_ADDR", "MASTER_PORT", "ARYL_DISCOVERY_SCRIPT", "ARYL_HOSTS");
              assertThat(e.get("ARYL_HOSTS")).endsWith(":2");
            });
    assertThat(g1.get(0).get("MASTER_PORT")).isEqualTo(g1.get(1).get("MASTER_PORT"));
  }

  @Test
  @DisplayName(
      "--wait exits non-zero when a worker fails past --max-restarts, with the reason in diagnostics")
  void waitExitsNonZeroOnFailure() throws Exception {
    AmJobs.Result r =
        AmJobs.client(
            conf,
            SubmitLine.job("bad")
                .minWorkers(1)
                .gpus(1)
                .memoryMb(256)
                .predictedRuntimeS(60)
                .with("--max-restarts", "0")
                .amMemoryMb(256)
                .flag("--wait")
                .command("exit 3"));
    assertThat(r.exit()).as("exit status of --wait; output:%n%s%s", r.out(), r.err()).isEqualTo(1);
    ApplicationReport report = cluster.client().getApplicationReport(r.applicationId());
    assertThat(report.getFinalApplicationStatus()).isEqualTo(FinalApplicationStatus.FAILED);
    assertThat(report.getDiagnostics())
        .contains("exited with status 3")
        .contains("--max-restarts=0");
    assertThat(r.out()).contains("final status FAILED");
  }

  @Test
  @DisplayName("bad arguments print usage, name the field, and submit nothing")
  void badArgumentsSubmitNothing() throws Exception {
    int before = cluster.client().getApplications().size();
    String[][] cases = {
      {
        "submit",
        "--min-workers",
        "3",
        "--max-workers",
        "2",
        "--predicted-runtime-s",
        "60",
        "--",
        "true"
      },
      {"submit", "--min-workers", "1", "--gpus", "0", "--predicted-runtime-s", "60", "--", "true"},
      {"submit", "--min-workers", "1", "--predicted-runtime-s", "60"},
      {
        "submit",
        "--min-workers",
        "1",
        "--queue",
        "nosuchqueue",
        "--predicted-runtime-s",
        "60",
        "--",
        "true"
      },
      {"submit", "--min-workers", "x", "--predicted-runtime-s", "60", "--", "true"},
    };
    String[] expected = {
      "--max-workers must be >= --min-workers (3), was 2",
      "--gpus must be >= 1, was 0",
      "the worker command (after --) is missing",
      "--queue: unknown queue 'nosuchqueue'",
      "--min-workers"
    };
    for (int i = 0; i < cases.length; i++) {
      AmJobs.Result r = AmJobs.client(conf, cases[i]);
      assertThat(r.exit()).as("exit of %s", String.join(" ", cases[i])).isEqualTo(2);
      assertThat(r.err())
          .as("stderr of %s", String.join(" ", cases[i]))
          .contains(expected[i])
          .contains("Usage:");
    }
    AmJobs.Result viaRunJar = AmJobs.runJar(conf, dir.toFile(), cases[0]);
    assertThat(viaRunJar.exit()).isEqualTo(2);
    assertThat(viaRunJar.out()).contains(expected[0]).contains("Usage:");
    assertThat(cluster.client().getApplications()).as("applications in the RM").hasSize(before);
  }

  @Test
  @DisplayName(
      "status, list and kill follow a running job; the discovery script prints its hosts for Horovod")
  void statusListKill() throws Exception {
    Path out = Files.createDirectories(dir.resolve("discover"));
    // Each worker runs the host-discovery script as Horovod elastic would, then keeps running until
    // killed.
    String worker = "sh \"$ARYL_DISCOVERY_SCRIPT\" > " + out + "/hosts-r${RANK}.txt; sleep 600";
    AmJobs.Result submitted =
        AmJobs.client(
            conf,
            SubmitLine.job("long")
                .workers(2, 2)
                .gpus(1)
                .memoryMb(256)
                .predictedRuntimeS(600)
                .amMemoryMb(256)
                .command(worker));
    assertThat(submitted.exit())
        .as("submit output:%n%s%s", submitted.out(), submitted.err())
        .isZero();
    ApplicationId id = submitted.applicationId();
    ArylMiniCluster.await(
        "both workers ran the discovery script",
        java.time.Duration.ofSeconds(60),
        () ->
            Files.exists(out.resolve("hosts-r0.txt")) && Files.exists(out.resolve("hosts-r1.txt")));

    // The AM is never on a node a reclaim could take back: it runs in the default partition (node
    // 1), its workers
    // in the queue's (training, node 0).
    ApplicationAttemptReport attempt =
        cluster
            .client()
            .getApplicationAttemptReport(
                cluster.client().getApplicationReport(id).getCurrentApplicationAttemptId());
    List<NodeId> workerNodes = new ArrayList<>();
    for (ContainerReport c : cluster.client().getContainers(attempt.getApplicationAttemptId())) {
      if (c.getContainerId().equals(attempt.getAMContainerId())) {
        assertThat(c.getAssignedNode()).as("the AM's node").isEqualTo(cluster.nodeId(1));
      } else {
        workerNodes.add(c.getAssignedNode());
      }
    }
    assertThat(workerNodes)
        .as("the workers' nodes")
        .containsExactly(cluster.nodeId(0), cluster.nodeId(0));

    AmJobs.Result status = AmJobs.client(conf, "status", id.toString());
    assertThat(status.exit()).isZero();
    assertThat(status.out())
        .contains("application: " + id)
        .contains("name:        long")
        .contains("state:       RUNNING")
        .contains("aryl.min-workers=2");

    AmJobs.Result list = AmJobs.client(conf, "list");
    assertThat(list.exit()).isZero();
    assertThat(list.out()).contains(id + "\tlong\t").contains("RUNNING");

    ArylMiniCluster.await(
        "discovery output written",
        java.time.Duration.ofSeconds(10),
        () -> sizeOf(out.resolve("hosts-r0.txt")) > 0);
    List<String> hosts =
        Files.readAllLines(out.resolve("hosts-r0.txt")).stream().filter(l -> !l.isBlank()).toList();
    assertThat(hosts)
        .as("host:slots lines, one per node, 2 slots in all")
        .isNotEmpty()
        .allMatch(l -> l.matches("[^:]+:\\d+"));
    assertThat(
            hosts.stream()
                .mapToInt(l -> Integer.parseInt(l.substring(l.lastIndexOf(':') + 1)))
                .sum())
        .isEqualTo(2);

    AmJobs.Result kill = AmJobs.client(conf, "kill", id.toString());
    assertThat(kill.exit()).as("kill output:%n%s%s", kill.out(), kill.err()).isZero();
    ArylMiniCluster.await(
        "the job is killed",
        java.time.Duration.ofSeconds(30),
        () ->
            AmJobs.state(cluster, id)
                == org.apache.hadoop.yarn.api.records.YarnApplicationState.KILLED);
    AmJobs.Result after = AmJobs.client(conf, "list");
    assertThat(after.out()).as("list shows running jobs only").doesNotContain(id.toString());
    assertThat(AmJobs.client(conf, "list", "--all").out())
        .contains(id + "\tlong\t")
        .contains("KILLED");
  }

  private static long sizeOf(Path p) {
    try {
      return Files.size(p);
    } catch (java.io.IOException e) {
      return 0;
    }
  }
}
