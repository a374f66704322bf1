package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DDP example ({@code examples/pytorch-ddp/train.py}) under {@code --launcher torchrun}: one
 * torchrun elastic agent per container, rendezvousing in the AM's c10d store, with real PyTorch
 * (gloo, CPU) and ArylScheduler. The same cluster and changes as {@link PyTorchDdpIT}: one
 * inference node and one training node of 8 GPUs, workers of 4 GPUs (2 per node), min 2 and max 4;
 * it grows when inference lends its node, is shrunk by two competing jobs and by a reclaim, resumes
 * from its checkpoint every time, and succeeds with no restart charged to the AM's budget.
 */
@DisplayName(
    "PyTorch DDP example under torchrun: torchrun's agents survive Aryl's grows, shrinks and reclaims")
class PyTorchTorchrunIT extends OneClusterPerClass {
  private static final Duration CHANGE = Duration.ofSeconds(120);
  private static final int CHECKPOINT_EVERY = 20;

  /**
   * Steps of the membership test, 0.1 s each. torchrun's agents take longer than the DDP example's
   * workers to follow a grow (121 steps before the last change in one run); the job must not end
   * before the last change, and what it trains after it is waited for.
   */
  private static final int STEPS = 400;

  /** torchrun's agents log this (LOGLEVEL=INFO) after each round; their workers' master follows. */
  private static final Pattern ROUND =
      Pattern.compile(
          "Rendezvous complete for workers\\. Result:\\s+"
              + "restart_count=\\d+\\s+master_addr=(\\S+)\\s+master_port=(\\d+)\\s+group_rank=(\\d+)\\s+"
              + "group_world_size=(\\d+)");

  /** This test's files: the example's log and checkpoints. */
  @TempDir Path dir;

  /** One inference node and one training node of 8 GPUs, for every test of the class. */
  @Override
  protected ArylMiniCluster startCluster(File dir) throws Exception {
    return ArylMiniCluster.start("torchrun", AmJobs.conf(dir), 1, 1);
  }

  /**
   * Submits the example as its README does: {@code --launcher torchrun}, the script and its
   * arguments after {@code --} (several arguments, not one shell line), one worker process per
   * container (CPU).
   */
  private ApplicationId submit(
      YarnConfiguration conf,
      String python,
      Path log,
      Path checkpoints,
      int min,
      int max,
      int steps,
      String... scriptArgs)
      throws Exception {
    List<String> script =
        new ArrayList<>(
            List.of(
                "train.py",
                "--steps",
                Integer.toString(steps),
                "--checkpoint-every",
                Integer.toString(CHECKPOINT_EVERY),
                "--step-seconds",
                "0.1",
                "--peer-lost-wait-s",
                "5",
                "--log-file",
                log.toString()));
    script.addAll(List.of(scriptArgs));
    String[] args =
        SubmitLine.job("ddp-torchrun")
            .workers(min, max)
            .with("--launcher", "torchrun")
            .with("--nproc-per-node", "1")
            .with("--python", python)
            .gpus(4)
            .memoryMb(512)
            .amMemoryMb(256)
            .predictedRuntimeS(600)
            .graceMs(10000)
            .with("--checkpoint-dir", checkpoints.toString())
            .with("--file", Torch.example("pytorch-ddp/train.py").toString())
            .command(script.toArray(String[]::new));
    AmJobs.Result r = AmJobs.client(conf, args);
    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    return r.applicationId();
  }

  /**
   * Keeps the last AM status seen, and every agent's log as last seen (the NodeManagers delete them
   * at the end).
   */
  private static boolean remember(
      ArylMiniCluster cluster,
      ApplicationId id,
      AtomicReference<JsonNode> last,
      Map<Path, String> agentLogs) {
    JsonNode s = AmJobs.status(cluster, id);
    if (s != null) {
      last.set(s);
    }
    try (Stream<Path> files = Files.walk(cluster.workDir().toPath())) {
      files
          .filter(
              f ->
                  f.getFileName().toString().equals("worker.stderr")
                      && f.toString().contains(id.toString().replace("application_", "container_")))
          .forEach(
              f -> {
                try {
                  agentLogs.put(f, Files.readString(f));
                } catch (IOException e) {
                  // deleted meanwhile: keep what was seen
                }
              });
    } catch (IOException | UncheckedIOException e) {
      // a directory deleted while walking: next time
    }
    return true;
  }

  @Test
  @DisplayName(
      "grows 2 -> 4, is shrunk twice by competing jobs and once by a reclaim, resumes from its checkpoint"
          + " every time and succeeds with no restart charged to the AM")
  void survivesEveryMembershipChange() throws Exception {
    String python = Torch.python();
    long began = System.nanoTime();
    Path log = dir.resolve("torchrun.jsonl");
    Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
    Map<Path, String> agentLogs = new ConcurrentHashMap<>();
    YarnConfiguration conf = new YarnConfiguration(cluster.conf());
    ApplicationId id = submit(conf, python, log, checkpoints, 2, 4, STEPS);
    AtomicReference<JsonNode> status = new AtomicReference<>();

    cluster.awaitShowingStatus(
        "2 workers train on the training node",
        CHANGE,
        () -> remember(cluster, id, status, agentLogs) && Torch.training(log, 2, 0));
    cluster.lend(0); // inference lends its node: the job grows
    cluster.awaitShowingStatus(
        "the job grows to 4 workers",
        CHANGE,
        () -> remember(cluster, id, status, agentLogs) && Torch.training(log, 4, 1));

    for (String competitor : List.of("first", "second")) {
      int before = Torch.starts(log).size();
      try (TestJob c =
          TestJob.submit(cluster, competitor, "training", TestJob.shape(1, 1, 4, 30), 4, true)) {
        c.askWorkersAtOnce(1);
        cluster.awaitShowingStatus(
            "the " + competitor + " competing job's gang is admitted",
            CHANGE,
            () -> c.workers() == 1);
        cluster.awaitShowingStatus(
            "the job trains with 3 workers beside it",
            CHANGE,
            () -> remember(cluster, id, status, agentLogs) && Torch.training(log, 3, before));
        c.finish();
      }
      cluster.awaitShowingStatus(
          "the job grows back to 4 workers",
          CHANGE,
          () -> remember(cluster, id, status, agentLogs) && Torch.training(log, 4, before + 1));
    }

    int beforeReclaim = Torch.starts(log).size();
    ArylStatus.reclaim(cluster, 1, 0);
    cluster.awaitShowingStatus(
        "the reclaimed node is home", CHANGE, () -> cluster.partitionOf(0).equals("inference"));
    cluster.awaitShowingStatus(
        "the job trains on with its 2 base workers",
        CHANGE,
        () -> remember(cluster, id, status, agentLogs) && Torch.training(log, 2, beforeReclaim));
    assertThat(status.get().path("restartsUsed").asInt())
        .as("restarts spent by the changes")
        .isZero();

    ArylMiniCluster.await(
        "the job succeeds",
        Duration.ofMinutes(4),
        () ->
            remember(cluster, id, status, agentLogs)
                && AmJobs.state(cluster, id) == YarnApplicationState.FINISHED);
    assertThat(cluster.client().getApplicationReport(id).getFinalApplicationStatus())
        .as(
            "final status; diagnostics: %s",
            cluster.client().getApplicationReport(id).getDiagnostics())
        .isEqualTo(FinalApplicationStatus.SUCCEEDED);
    JsonNode last = status.get();
    assertThat(last.path("restartsUsed").asInt()).as("restarts spent, last status seen").isZero();
    assertThat(last.path("launcher").asText()).isEqualTo("torchrun");
    assertThat(last.path("rendezvous").path("incarnation").asInt())
        .as("one rendezvous for the whole job")
        .isEqualTo(1);
    assertThat(last.path("rendezvous").path("storeStarts").asInt())
        .as("the store never had to restart")
        .isEqualTo(1);
    assertThat(AmJobs.eventDetails(last, "stopping"))
        .as("agents stopped for a new rendezvous")
        .isEmpty();

    List<Integer> sizes = Torch.starts(log).stream().map(Torch.Start::worldSize).toList();
    assertThat(sizes).as("world sizes of the generations").containsSubsequence(2, 4, 3, 4, 3, 4, 2);
    assertThat(sizes.get(sizes.size() - 1)).isEqualTo(2);
    assertGenerationsIncrease(log);
    Torch.assertResumedFromCheckpoints(log, CHECKPOINT_EVERY);
    assertThat(Torch.lastStep(log)).as("the last step").isEqualTo(STEPS);
    List<JsonNode> steps = Torch.events(log, "step");
    assertThat(steps.get(steps.size() - 1).path("loss").asDouble())
        .as("the loss fell")
        .isLessThan(steps.get(0).path("loss").asDouble() / 2);
    int storePort =
        Integer.parseInt(last.path("rendezvous").path("endpoint").asText().replaceAll(".*:", ""));
    assertMastersDoNotCollide(log, agentLogs, storePort);
    System.out.printf(
        "PyTorchTorchrunIT: %d generations, %.0f s%n",
        sizes.size(), (System.nanoTime() - began) / 1e9);
  }

  /**
   * Under torchrun the example numbers its generations itself (in the checkpoint directory): they
   * still increase.
   */
  private static void assertGenerationsIncrease(Path log) {
    assertThat(Torch.starts(log))
        .extracting(Torch.Start::generation)
        .as("generation numbers increase")
        .isSorted()
        .doesNotHaveDuplicates();
  }

  /**
   * The workers' master is torchrun's, one per round, on a free port that is neither the AM's store
   * nor torchrun's fixed defaults (29400, 29500), which containers on one host would share; no
   * agent hosted a store of its own; and every agent of a round named the same master as its
   * workers.
   */
  private static void assertMastersDoNotCollide(
      Path log, Map<Path, String> agentLogs, int storePort) {
    Map<Integer, Set<String>> mastersByGeneration = new TreeMap<>();
    Map<Integer, Integer> ranksByGeneration = new TreeMap<>();
    for (JsonNode e : Torch.events(log, "start")) {
      int g = e.path("generation").asInt();
      mastersByGeneration.computeIfAbsent(g, k -> new TreeSet<>()).add(e.path("master").asText());
      ranksByGeneration.merge(g, 1, Integer::sum);
    }
    mastersByGeneration.forEach(
        (g, masters) ->
            assertThat(masters).as("the masters the ranks of generation %d used", g).hasSize(1));
    Set<Integer> ports =
        mastersByGeneration.values().stream()
            .flatMap(Set::stream)
            .map(m -> Integer.parseInt(m.replaceAll(".*:", "")))
            .collect(Collectors.toSet());
    assertThat(ports).as("master ports").doesNotContain(storePort, 29400, 29500);

    assertThat(agentLogs).as("agents' logs").isNotEmpty();
    Map<String, Set<Integer>> agentRanksByMaster = new LinkedHashMap<>();
    for (String text : agentLogs.values()) {
      assertThat(text).as("an agent's log").doesNotContain("hosts the TCP store");
      Matcher m = ROUND.matcher(text);
      while (m.find()) {
        agentRanksByMaster
            .computeIfAbsent(m.group(1) + ":" + m.group(2), k -> new TreeSet<>())
            .add(Integer.parseInt(m.group(3)));
      }
    }
    Set<String> workerMasters =
        mastersByGeneration.values().stream().flatMap(Set::stream).collect(Collectors.toSet());
    assertThat(agentRanksByMaster.keySet())
        .as("masters the agents' rounds named")
        .containsAll(workerMasters);
  }

  /** Waits for the job's end, keeping its last status; asserts it succeeded. */
  private static JsonNode succeeds(
      ArylMiniCluster cluster, ApplicationId id, Map<Path, String> agentLogs) throws Exception {
    AtomicReference<JsonNode> status = new AtomicReference<>();
    ArylMiniCluster.await(
        "the job succeeds",
        Duration.ofMinutes(4),
        () ->
            remember(cluster, id, status, agentLogs)
                && AmJobs.state(cluster, id) == YarnApplicationState.FINISHED);
    assertThat(cluster.client().getApplicationReport(id).getFinalApplicationStatus())
        .as(
            "final status; diagnostics: %s",
            cluster.client().getApplicationReport(id).getDiagnostics())
        .isEqualTo(FinalApplicationStatus.SUCCEEDED);
    return status.get();
  }

  @Test
  @DisplayName(
      "a worker that really crashes is restarted by torchrun, from its own budget: the AM charges nothing;"
          + " the job resumes from its checkpoint and succeeds")
  void aRealCrashIsTorchrunsToRestart() throws Exception {
    String python = Torch.python();
    Path log = dir.resolve("crash.jsonl");
    Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
    ApplicationId id =
        submit(
            new YarnConfiguration(cluster.conf()),
            python,
            log,
            checkpoints,
            2,
            2,
            80,
            "--fail-once-at-step",
            "30");
    JsonNode status = succeeds(cluster, id, new ConcurrentHashMap<>());
    assertThat(status.path("restartsUsed").asInt())
        .as("AM restarts spent, last status seen")
        .isZero();
    assertThat(status.path("rendezvous").path("incarnation").asInt())
        .as("the agents were never restarted")
        .isEqualTo(1);
    assertThat(Torch.events(log, "crash")).hasSize(1);
    List<Torch.Start> starts = Torch.starts(log);
    assertThat(starts).as("generations").hasSize(2);
    assertThat(starts.get(1).worldSize()).isEqualTo(2);
    assertThat(starts.get(1).resumedFrom())
        .as("the restart resumed from the last checkpoint")
        .isEqualTo(30);
    assertThat(Torch.lastStep(log)).isEqualTo(80);
  }

  @Test
  @DisplayName(
      "an AM restart: the rendezvous store ends with the failed attempt and so do the agents; the next"
          + " attempt starts a store and agents of its own, which resume from the checkpoint; nothing is charged")
  void anAmRestartRestartsTheAgents() throws Exception {
    String python = Torch.python();
    Path log = dir.resolve("am-restart.jsonl");
    Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
    ApplicationId id =
        submit(new YarnConfiguration(cluster.conf()), python, log, checkpoints, 2, 2, 150);
    cluster.awaitShowingStatus(
        "2 workers train",
        CHANGE,
        () -> Torch.training(log, 2, 0) && Torch.stepsInLatest(log) >= 30);
    cluster
        .client()
        .failApplicationAttempt(
            cluster.client().getApplicationReport(id).getCurrentApplicationAttemptId());
    cluster.awaitShowingStatus("attempt 2's agents train", CHANGE, () -> Torch.training(log, 2, 1));
    JsonNode status = succeeds(cluster, id, new ConcurrentHashMap<>());
    assertThat(status.path("attempt").asInt()).isEqualTo(2);
    assertThat(status.path("restartsUsed").asInt()).as("restarts spent, last status seen").isZero();
    List<Torch.Start> starts = Torch.starts(log);
    assertThat(starts).as("generations").hasSize(2);
    assertGenerationsIncrease(log);
    Torch.assertResumedFromCheckpoints(log, CHECKPOINT_EVERY);
    assertThat(Torch.lastStep(log)).isEqualTo(150);
  }
}
