package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.aryl.am.AmKeys;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The aryl-am ApplicationMaster's elasticity on a real RM running ArylScheduler: one training node
 * of 8 GPUs, jobs of 2-GPU workers whose shell workers record their environment per generation. One
 * cluster serves every test: each starts on it idle, as the last one's jobs are killed after it
 * ({@link ArylMiniCluster#killAllAndAwaitIdle}).
 */
class ElasticAmIT extends OneClusterPerClass {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** This test's files: what its workers record. */
  @TempDir Path dir;

  private YarnConfiguration conf;

  /** One training node of 8 GPUs, for every test of the class. */
  @Override
  protected ArylMiniCluster startCluster(File dir) throws Exception {
    conf = AmJobs.conf(dir);
    return ArylMiniCluster.start("elastic-am", conf, 0, 1);
  }

  private AmJobs.Result submit(YarnConfiguration conf, Path envs, int min, int max, String... extra)
      throws Exception {
    List<String> args =
        SubmitLine.job("elastic")
            .workers(min, max)
            .gpus(2)
            .memoryMb(256)
            .predictedRuntimeS(600)
            .amMemoryMb(256)
            .graceMs(1500)
            .options();
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
  @DisplayName(
      "a job starts at min and grows to max when GPUs free up; its status page is served via the RM proxy")
  void growsFromMinToMax() throws Exception {
    Path envs = Files.createDirectories(dir.resolve("envs"));
    try (TestJob blocker =
        TestJob.submit(cluster, "blocker", "training", TestJob.shape(2, 2, 2, 60), 2, true)) {
      blocker.askWorkersAtOnce(2);
      cluster.awaitShowingStatus("the blocker holds 4 GPUs", () -> blocker.workers() == 2);
      ApplicationId id = submit(new YarnConfiguration(cluster.conf()), envs, 2, 4).applicationId();

      cluster.awaitShowingStatus(
          "a generation of 2 workers", () -> AmJobs.generationOfSize(envs, 2) > 0);
      int small = AmJobs.generationOfSize(envs, 2);
      blocker.finish();
      cluster.awaitShowingStatus(
          "a generation of 4 workers", () -> AmJobs.generationOfSize(envs, 4) > small);
      int big = AmJobs.generationOfSize(envs, 4);
      List<Map<String, String>> workers = AmJobs.generation(envs, big);
      assertThat(workers)
          .extracting(e -> e.get("RANK"))
          .containsExactlyInAnyOrder("0", "1", "2", "3");
      assertThat(containers(workers))
          .as("the 2 first workers keep their containers")
          .containsAll(containers(AmJobs.generation(envs, small)));
      assertThat(workers)
          .allSatisfy(
              e -> assertThat(e.get("MASTER_ADDR")).isEqualTo(workers.get(0).get("MASTER_ADDR")));

      cluster.awaitShowingStatus(
          "the status JSON through the RM proxy shows generation " + big,
          () -> AmJobs.statusJson(cluster, id).contains("\"generation\" : " + big));
      String json = AmJobs.statusJson(cluster, id);
      assertThat(json)
          .contains("\"held\" : 4")
          .contains("\"worldSize\" : 4")
          .contains("\"kind\" : \"generation\"");
      assertThat(cluster.get("/proxy/" + id + "/").body())
          .contains("Aryl job elastic")
          .contains("Scaling events");
      assertThat(AmJobs.state(cluster, id)).isEqualTo(YarnApplicationState.RUNNING);
      cluster.client().killApplication(id);
    }
  }

  @Test
  @DisplayName(
      "a job shrinks on preemption (SIGTERM, then release) and keeps running with the rest")
  void shrinksOnPreemption() throws Exception {
    Path envs = Files.createDirectories(dir.resolve("envs"));
    ApplicationId id = submit(new YarnConfiguration(cluster.conf()), envs, 2, 4).applicationId();
    cluster.awaitShowingStatus(
        "a generation of 4 workers", () -> AmJobs.generationOfSize(envs, 4) > 0);
    int big = AmJobs.generationOfSize(envs, 4);
    try (TestJob q =
        TestJob.submit(cluster, "q", "training", TestJob.shape(2, 2, 2, 60), 2, true)) {
      q.askWorkersAtOnce(2);
      cluster.awaitShowingStatus("the second job gets its 4 GPUs", () -> q.workers() == 2);
      cluster.awaitShowingStatus(
          "a generation of 2 workers after the shrink",
          () -> AmJobs.generationOfSize(envs, 2) > big);
      int small = AmJobs.generationOfSize(envs, 2);
      assertThat(containers(AmJobs.generation(envs, big)))
          .containsAll(containers(AmJobs.generation(envs, small)));
      assertThat(AmJobs.state(cluster, id)).isEqualTo(YarnApplicationState.RUNNING);
      assertThat(AmJobs.statusJson(cluster, id)).contains("\"kind\" : \"preempted\"");
    }
    cluster.client().killApplication(id);
  }

  @Test
  @DisplayName("a crashed worker is replaced and the job restarts in a new generation")
  void crashedWorkerIsRestarted() throws Exception {
    Path envs = Files.createDirectories(dir.resolve("envs"));
    Path flag = dir.resolve("crashed-once");
    String crashOnce =
        "if [ \"$RANK\" = 1 ] && [ ! -e "
            + flag
            + " ]; then touch "
            + flag
            + "; exit 1; fi; "
            + AmJobs.recordEnvThenSleep(envs);
    AmJobs.Result r =
        AmJobs.client(
            new YarnConfiguration(cluster.conf()),
            SubmitLine.job("crash")
                .workers(2, 2)
                .gpus(2)
                .memoryMb(256)
                .predictedRuntimeS(600)
                .amMemoryMb(256)
                .with("--max-restarts", "1")
                .command(crashOnce));
    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(0);
    ApplicationId id = r.applicationId();
    cluster.awaitShowingStatus("rank 1 crashed", () -> Files.exists(flag));
    cluster.awaitShowingStatus(
        "a later generation of 2 workers runs", () -> AmJobs.generationOfSize(envs, 2) > 1);
    assertThat(AmJobs.state(cluster, id)).isEqualTo(YarnApplicationState.RUNNING);
    assertThat(AmJobs.statusJson(cluster, id))
        .contains("\"restartsUsed\" : 1")
        .contains("\"kind\" : \"restart\"");
    cluster.client().killApplication(id);
  }

  /**
   * Container id to rank of each worker the status shows running in generation {@code generation}.
   */
  private static Map<String, String> runningRanks(JsonNode status, int generation) {
    Map<String, String> out = new TreeMap<>();
    if (status != null) {
      status
          .path("workers")
          .forEach(
              w -> {
                if (w.path("state").asText().equals("RUNNING")
                    && w.path("generation").asInt() == generation) {
                  out.put(w.path("container").asText(), w.path("rank").asText());
                }
              });
    }
    return out;
  }

  private static Map<String, String> ranks(List<Map<String, String>> envs) {
    return envs.stream()
        .collect(
            Collectors.toMap(
                e -> e.get("CONTAINER_ID"), e -> e.get("RANK"), (a, b) -> a, TreeMap::new));
  }

  /**
   * Fails the job's current AM attempt (the RM kills the ElasticAppMaster) and waits for attempt
   * 2's first status.
   */
  private static JsonNode failAttemptOne(ArylMiniCluster cluster, ApplicationId id)
      throws Exception {
    ApplicationAttemptId attempt1 =
        cluster.client().getApplicationReport(id).getCurrentApplicationAttemptId();
    assertThat(attempt1.getAttemptId()).isEqualTo(1);
    cluster.client().failApplicationAttempt(attempt1);
    cluster.awaitShowingStatus(
        "attempt 2 runs a generation",
        () -> {
          JsonNode s = AmJobs.status(cluster, id);
          return s != null && s.path("attempt").asInt() == 2 && s.path("generation").asInt() > 0;
        });
    return AmJobs.status(cluster, id);
  }

  /**
   * Submits a job of 2 workers that record each start in {@code starts} and their environment in
   * {@code envs}. With the test-sized grace of the other jobs here: a next attempt that restarts
   * the workers waits for them to exit at most that long (it waited the default 30 s for workers of
   * attempt 1).
   */
  private static ApplicationId submitTwoRecordingStarts(
      ArylMiniCluster cluster, Path envs, Path starts) throws Exception {
    AmJobs.Result r =
        AmJobs.client(
            new YarnConfiguration(cluster.conf()),
            SubmitLine.job("adopt")
                .workers(2, 2)
                .gpus(2)
                .memoryMb(256)
                .predictedRuntimeS(600)
                .amMemoryMb(256)
                .graceMs(1500)
                .command(AmJobs.recordStartAndEnvThenSleep(envs, starts)));
    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(0);
    return r.applicationId();
  }

  @Test
  @DisplayName(
      "when the AM attempt fails, the next attempt adopts the running generation: same ranks, no worker"
          + " restarted")
  void amRestartAdoptsTheRunningGeneration() throws Exception {
    Path envs = Files.createDirectories(dir.resolve("envs"));
    Path starts = dir.resolve("starts");
    ApplicationId id = submitTwoRecordingStarts(cluster, envs, starts);
    cluster.awaitShowingStatus(
        "a generation of 2 workers", () -> AmJobs.generationOfSize(envs, 2) > 0);
    int first = AmJobs.generationOfSize(envs, 2);
    Map<String, String> ranks = ranks(AmJobs.generation(envs, first));
    cluster.awaitShowingStatus(
        "attempt 1 shows both workers running generation " + first,
        () -> runningRanks(AmJobs.status(cluster, id), first).size() == 2);

    JsonNode status = failAttemptOne(cluster, id);
    assertThat(status.path("attempt").asInt()).isEqualTo(2);
    assertThat(status.path("generation").asInt()).as("attempt 2's generation").isEqualTo(first);
    assertThat(AmJobs.eventDetails(status, "adopted"))
        .singleElement()
        .asString()
        .startsWith("adopted generation " + first + " from attempt 1");
    assertThat(runningRanks(status, first))
        .as("the workers attempt 2 shows, with their ranks")
        .isEqualTo(ranks);

    // Six settle periods: ample time for the new generation that must not come.
    Thread.sleep(2000);
    assertThat(AmJobs.lines(starts)).as("worker starts").hasSize(2);
    assertThat(AmJobs.envs(envs).keySet())
        .as("recorded environments")
        .allMatch(f -> f.startsWith("g" + first + "-"));
    assertThat(AmJobs.status(cluster, id).path("generation").asInt()).isEqualTo(first);
    assertThat(ranks.keySet()).allMatch(c -> c.contains("_01_"), "workers of attempt 1");
    assertThat(AmJobs.state(cluster, id)).isEqualTo(YarnApplicationState.RUNNING);
    cluster.client().killApplication(id);
  }

  @Test
  @DisplayName(
      "an unreadable generation record is not guessed from: the next attempt says so and restarts the"
          + " workers in a new generation")
  void amRestartWithAnUnreadableRecordRestartsTheWorkers() throws Exception {
    Path envs = Files.createDirectories(dir.resolve("envs"));
    Path starts = dir.resolve("starts");
    ApplicationId id = submitTwoRecordingStarts(cluster, envs, starts);
    cluster.awaitShowingStatus(
        "a generation of 2 workers", () -> AmJobs.generationOfSize(envs, 2) > 0);
    int first = AmJobs.generationOfSize(envs, 2);
    cluster.awaitShowingStatus(
        "attempt 1 shows both workers running generation " + first,
        () -> runningRanks(AmJobs.status(cluster, id), first).size() == 2);
    String recordName = id + "/" + AmKeys.GENERATION_RECORD_FILE;
    org.apache.hadoop.fs.Path record =
        new org.apache.hadoop.fs.Path(conf.get("aryl.am.staging-dir"), recordName);
    FileSystem local = FileSystem.getLocal(conf);
    assertThat(local.exists(record)).as("attempt 1 wrote " + record).isTrue();
    try (FSDataOutputStream out = local.create(record, true)) {
      out.write("{\"format\": 1, \"generation\": ".getBytes(StandardCharsets.UTF_8));
    }

    JsonNode status = failAttemptOne(cluster, id);
    assertThat(AmJobs.eventDetails(status, "adopted")).isEmpty();
    assertThat(AmJobs.eventDetails(status, "not-adopted"))
        .singleElement()
        .asString()
        .contains(recordName + " is not valid: not JSON")
        .endsWith("the workers restart in a new generation");
    cluster.awaitShowingStatus(
        "both workers started a second time", () -> AmJobs.lines(starts).size() == 4);
    assertThat(
            AmJobs.lines(starts).stream()
                .map(l -> l.split(" ")[0])
                .collect(Collectors.groupingBy(c -> c, Collectors.counting())))
        .as("starts per container")
        .hasSize(2)
        .allSatisfy((c, n) -> assertThat(n).isEqualTo(2));
    assertThat(AmJobs.state(cluster, id)).isEqualTo(YarnApplicationState.RUNNING);
    cluster.client().killApplication(id);
  }
}
