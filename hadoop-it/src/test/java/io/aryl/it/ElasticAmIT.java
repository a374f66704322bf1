package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The aryl-am ApplicationMaster's elasticity on a real RM running ArylScheduler: one training node of 8 GPUs, jobs of
 * 2-GPU workers whose shell workers record their environment per generation.
 */
class ElasticAmIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  private AmJobs.Result submit(YarnConfiguration conf, Path envs, int min, int max, String... extra)
      throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of("submit", "--name", "elastic", "--min-workers",
        Integer.toString(min), "--max-workers", Integer.toString(max), "--gpus", "2", "--memory-mb", "256",
        "--predicted-runtime-s", "600", "--am-memory-mb", "256", "--grace-ms", "1500"));
    args.addAll(List.of(extra));
    args.addAll(List.of("--", AmJobs.recordEnvThenSleep(envs)));
    AmJobs.Result r = AmJobs.client(conf, args.toArray(String[]::new));
    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(0);
    return r;
  }

  private static Set<String> containers(List<Map<String, String>> envs) {
    return envs.stream().map(e -> e.get("CONTAINER_ID")).collect(Collectors.toSet());
  }

  @Test
  @DisplayName("a job starts at min and grows to max when GPUs free up; its status page is served via the RM proxy")
  void growsFromMinToMax() throws Exception {
    YarnConfiguration conf = AmJobs.conf(dir.toFile());
    Path envs = Files.createDirectories(dir.resolve("envs"));
    try (ArylMiniCluster cluster = ArylMiniCluster.start("am-grow", conf, 0, 1);
        TestJob blocker = TestJob.submit(cluster, "blocker", "training", TestJob.shape(2, 2, 2, 60), 2, true)) {
      blocker.askWorkersAtOnce(2);
      cluster.awaitShowingStatus("the blocker holds 4 GPUs", () -> blocker.workers() == 2);
      ApplicationId id = submit(new YarnConfiguration(cluster.conf()), envs, 2, 4).applicationId();

      cluster.awaitShowingStatus("a generation of 2 workers", () -> AmJobs.generationOfSize(envs, 2) > 0);
      int small = AmJobs.generationOfSize(envs, 2);
      blocker.finish();
      cluster.awaitShowingStatus("a generation of 4 workers", () -> AmJobs.generationOfSize(envs, 4) > small);
      int big = AmJobs.generationOfSize(envs, 4);
      List<Map<String, String>> workers = AmJobs.generation(envs, big);
      assertThat(workers).extracting(e -> e.get("RANK")).containsExactlyInAnyOrder("0", "1", "2", "3");
      assertThat(containers(workers)).as("the 2 first workers keep their containers")
          .containsAll(containers(AmJobs.generation(envs, small)));
      assertThat(workers).allSatisfy(e -> assertThat(e.get("MASTER_ADDR")).isEqualTo(workers.get(0)
          .get("MASTER_ADDR")));

      cluster.awaitShowingStatus("the status JSON through the RM proxy shows generation " + big,
          () -> AmJobs.statusJson(cluster, id).contains("\"generation\" : " + big));
      String json = AmJobs.statusJson(cluster, id);
      assertThat(json).contains("\"held\" : 4").contains("\"worldSize\" : 4").contains("\"kind\" : \"generation\"");
      assertThat(cluster.get("/proxy/" + id + "/").body()).contains("Aryl job elastic").contains("Scaling events");
      assertThat(AmJobs.state(cluster, id)).isEqualTo(YarnApplicationState.RUNNING);
      cluster.client().killApplication(id);
    }
  }

  @Test
  @DisplayName("a job shrinks on preemption (SIGTERM, then release) and keeps running with the rest")
  void shrinksOnPreemption() throws Exception {
    YarnConfiguration conf = AmJobs.conf(dir.toFile());
    Path envs = Files.createDirectories(dir.resolve("envs"));
    try (ArylMiniCluster cluster = ArylMiniCluster.start("am-shrink", conf, 0, 1)) {
      ApplicationId id = submit(new YarnConfiguration(cluster.conf()), envs, 2, 4).applicationId();
      cluster.awaitShowingStatus("a generation of 4 workers", () -> AmJobs.generationOfSize(envs, 4) > 0);
      int big = AmJobs.generationOfSize(envs, 4);
      try (TestJob q = TestJob.submit(cluster, "q", "training", TestJob.shape(2, 2, 2, 60), 2, true)) {
        q.askWorkersAtOnce(2);
        cluster.awaitShowingStatus("the second job gets its 4 GPUs", () -> q.workers() == 2);
        cluster.awaitShowingStatus("a generation of 2 workers after the shrink",
            () -> AmJobs.generationOfSize(envs, 2) > big);
        int small = AmJobs.generationOfSize(envs, 2);
        assertThat(containers(AmJobs.generation(envs, big)))
            .containsAll(containers(AmJobs.generation(envs, small)));
        assertThat(AmJobs.state(cluster, id)).isEqualTo(YarnApplicationState.RUNNING);
        assertThat(AmJobs.statusJson(cluster, id)).contains("\"kind\" : \"preempted\"");
      }
      cluster.client().killApplication(id);
    }
  }

  @Test
  @DisplayName("a crashed worker is replaced and the job restarts in a new generation")
  void crashedWorkerIsRestarted() throws Exception {
    YarnConfiguration conf = AmJobs.conf(dir.toFile());
    Path envs = Files.createDirectories(dir.resolve("envs"));
    Path flag = dir.resolve("crashed-once");
    String crashOnce = "if [ \"$RANK\" = 1 ] && [ ! -e " + flag + " ]; then touch " + flag + "; exit 1; fi; "
        + AmJobs.recordEnvThenSleep(envs);
    try (ArylMiniCluster cluster = ArylMiniCluster.start("am-crash", conf, 0, 1)) {
      AmJobs.Result r = AmJobs.client(new YarnConfiguration(cluster.conf()), "submit", "--name", "crash",
          "--min-workers", "2", "--max-workers", "2", "--gpus", "2", "--memory-mb", "256", "--predicted-runtime-s",
          "600", "--am-memory-mb", "256", "--max-restarts", "1", "--", crashOnce);
      assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(0);
      ApplicationId id = r.applicationId();
      cluster.awaitShowingStatus("rank 1 crashed", () -> Files.exists(flag));
      cluster.awaitShowingStatus("a later generation of 2 workers runs",
          () -> AmJobs.generationOfSize(envs, 2) > 1);
      assertThat(AmJobs.state(cluster, id)).isEqualTo(YarnApplicationState.RUNNING);
      assertThat(AmJobs.statusJson(cluster, id)).contains("\"restartsUsed\" : 1").contains("\"kind\" : \"restart\"");
      cluster.client().killApplication(id);
    }
  }

  @Test
  @DisplayName("when the AM attempt fails, the next attempt keeps the running workers and restarts them")
  void amRestartKeepsWorkers() throws Exception {
    YarnConfiguration conf = AmJobs.conf(dir.toFile());
    Path envs = Files.createDirectories(dir.resolve("envs"));
    try (ArylMiniCluster cluster = ArylMiniCluster.start("am-restart", conf, 0, 1)) {
      ApplicationId id = submit(new YarnConfiguration(cluster.conf()), envs, 2, 2).applicationId();
      cluster.awaitShowingStatus("a generation of 2 workers", () -> AmJobs.generationOfSize(envs, 2) > 0);
      int first = AmJobs.generationOfSize(envs, 2);
      Set<String> before = containers(AmJobs.generation(envs, first));
      ApplicationAttemptId attempt1 = cluster.client().getApplicationReport(id).getCurrentApplicationAttemptId();
      cluster.client().failApplicationAttempt(attempt1);
      cluster.awaitShowingStatus("attempt 2 runs", () -> {
        try {
          return cluster.client().getApplicationReport(id).getCurrentApplicationAttemptId().getAttemptId() == 2;
        } catch (Exception e) {
          return false;
        }
      });
      cluster.awaitShowingStatus("attempt 2 restarts the workers in a new generation",
          () -> AmJobs.generationOfSize(envs, 2) > first);
      int second = AmJobs.generationOfSize(envs, 2);
      assertThat(containers(AmJobs.generation(envs, second))).as("the same containers").isEqualTo(before);
      assertThat(before).allMatch(c -> c.contains("_01_"), "workers of attempt 1");
      assertThat(AmJobs.state(cluster, id)).isEqualTo(YarnApplicationState.RUNNING);
      cluster.client().killApplication(id);
    }
  }
}
