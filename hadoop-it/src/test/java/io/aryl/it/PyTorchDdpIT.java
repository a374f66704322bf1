package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DDP example ({@code examples/pytorch-ddp/train.py}) with real PyTorch (gloo, CPU) under the
 * aryl-am ApplicationMaster and ArylScheduler: it survives every membership change the scheduler
 * makes, resuming from its checkpoint each time, and no change is charged to its restart budget; a
 * real crash is, once. One inference node and one training node of 8 GPUs; the job's workers take 4
 * GPUs each, so each node holds 2.
 */
@DisplayName(
    "PyTorch DDP example: an ordinary training script survives Aryl's grows, shrinks and reclaims")
class PyTorchDdpIT extends OneClusterPerClass {
  private static final Duration CHANGE = Duration.ofSeconds(90);
  private static final int CHECKPOINT_EVERY = 20;

  /**
   * Steps of the membership test, 0.1 s each. Its six changes come a few steps after each
   * generation starts (the first seven generations trained 49 and 70 steps in two runs); the job
   * must not end before the last change, and what it trains after it is waited for.
   */
  private static final int STEPS = 300;

  /** This test's files: the example's log and checkpoints. */
  @TempDir Path dir;

  /** One inference node and one training node of 8 GPUs, for every test of the class. */
  @Override
  protected ArylMiniCluster startCluster(File dir) throws Exception {
    return ArylMiniCluster.start("ddp", AmJobs.conf(dir), 1, 1);
  }

  private AmJobs.Result submit(
      YarnConfiguration conf,
      String python,
      Path log,
      Path checkpoints,
      int min,
      int max,
      int steps,
      String... scriptArgs)
      throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                python,
                "train.py",
                "--steps",
                Integer.toString(steps),
                "--checkpoint-every",
                Integer.toString(CHECKPOINT_EVERY),
                "--step-seconds",
                "0.1",
                "--log-file",
                log.toString()));
    command.addAll(List.of(scriptArgs));
    String[] args =
        SubmitLine.job("ddp")
            .workers(min, max)
            .gpus(4)
            .memoryMb(512)
            .amMemoryMb(256)
            .predictedRuntimeS(600)
            .graceMs(10000)
            .with("--checkpoint-dir", checkpoints.toString())
            .with("--file", Torch.example("pytorch-ddp/train.py").toString())
            .command(String.join(" ", command));
    AmJobs.Result r = AmJobs.client(conf, args);
    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    return r;
  }

  /** Keeps the last AM status seen, so that the test can read it after the job ended. */
  private static boolean remember(
      ArylMiniCluster cluster, ApplicationId id, AtomicReference<JsonNode> last) {
    JsonNode s = AmJobs.status(cluster, id);
    if (s != null) {
      last.set(s);
    }
    return true;
  }

  @Test
  @DisplayName(
      "grows 2 -> 4, is shrunk twice by competing jobs and once by a reclaim, resumes from its checkpoint"
          + " every time and succeeds with no restart spent")
  void survivesEveryMembershipChange() throws Exception {
    String python = Torch.python();
    Path log = dir.resolve("ddp.jsonl");
    Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
    YarnConfiguration conf = new YarnConfiguration(cluster.conf());
    ApplicationId id = submit(conf, python, log, checkpoints, 2, 4, STEPS).applicationId();
    AtomicReference<JsonNode> status = new AtomicReference<>();

    cluster.awaitShowingStatus(
        "2 workers train on the training node", CHANGE, () -> Torch.training(log, 2, 0));
    cluster.lend(0); // inference lends its node: the job grows
    cluster.awaitShowingStatus(
        "the job grows to 4 workers", CHANGE, () -> Torch.training(log, 4, 1));

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
            () -> Torch.training(log, 3, before));
        c.finish();
      }
      cluster.awaitShowingStatus(
          "the job grows back to 4 workers", CHANGE, () -> Torch.training(log, 4, before + 1));
    }

    int beforeReclaim = Torch.starts(log).size();
    ArylStatus.reclaim(cluster, 1, 0);
    cluster.awaitShowingStatus(
        "the reclaimed node is home", CHANGE, () -> cluster.partitionOf(0).equals("inference"));
    cluster.awaitShowingStatus(
        "the job trains on with its 2 base workers",
        CHANGE,
        () -> remember(cluster, id, status) && Torch.training(log, 2, beforeReclaim));
    assertThat(status.get().path("restartsUsed").asInt())
        .as("restarts spent by the changes")
        .isZero();

    ArylMiniCluster.await(
        "the job succeeds",
        Duration.ofMinutes(3),
        () ->
            remember(cluster, id, status)
                && AmJobs.state(cluster, id) == YarnApplicationState.FINISHED);
    assertThat(cluster.client().getApplicationReport(id).getFinalApplicationStatus())
        .as(
            "final status; diagnostics: %s",
            cluster.client().getApplicationReport(id).getDiagnostics())
        .isEqualTo(FinalApplicationStatus.SUCCEEDED);
    assertThat(status.get().path("restartsUsed").asInt())
        .as("restarts spent, last status seen")
        .isZero();

    List<Integer> sizes = Torch.starts(log).stream().map(Torch.Start::worldSize).toList();
    assertThat(sizes).as("world sizes of the generations").containsSubsequence(2, 4, 3, 4, 3, 4, 2);
    assertThat(sizes.get(sizes.size() - 1)).isEqualTo(2);
    Torch.assertResumedFromCheckpoints(log, CHECKPOINT_EVERY);
    assertThat(Torch.lastStep(log)).as("the last step").isEqualTo(STEPS);
    List<JsonNode> steps = Torch.events(log, "step");
    assertThat(steps.get(steps.size() - 1).path("loss").asDouble())
        .as("the loss fell")
        .isLessThan(steps.get(0).path("loss").asDouble() / 2);
    assertThat(Torch.events(log, "peer-lost")).as("no rank lost a peer mid-collective").isEmpty();
  }

  @Test
  @DisplayName(
      "a worker that really crashes is restarted once and charged once; the job resumes and succeeds")
  void aRealCrashIsChargedOnce() throws Exception {
    String python = Torch.python();
    Path log = dir.resolve("crash.jsonl");
    Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
    YarnConfiguration conf = new YarnConfiguration(cluster.conf());
    ApplicationId id =
        submit(conf, python, log, checkpoints, 2, 2, 80, "--fail-once-at-step", "30")
            .applicationId();
    AtomicReference<JsonNode> status = new AtomicReference<>();
    ArylMiniCluster.await(
        "the job succeeds",
        Duration.ofMinutes(3),
        () ->
            remember(cluster, id, status)
                && AmJobs.state(cluster, id) == YarnApplicationState.FINISHED);
    assertThat(cluster.client().getApplicationReport(id).getFinalApplicationStatus())
        .as(
            "final status; diagnostics: %s",
            cluster.client().getApplicationReport(id).getDiagnostics())
        .isEqualTo(FinalApplicationStatus.SUCCEEDED);
    assertThat(status.get().path("restartsUsed").asInt())
        .as("restarts spent, last status seen")
        .isEqualTo(1);
    assertThat(AmJobs.eventDetails(status.get(), "restart")).as("restart events").hasSize(1);

    assertThat(Torch.events(log, "crash")).hasSize(1);
    List<Torch.Start> starts = Torch.starts(log);
    assertThat(starts).as("generations").hasSize(2);
    assertThat(starts.get(1).resumedFrom())
        .as("the restart resumed from the last checkpoint")
        .isEqualTo(30);
    assertThat(Torch.lastStep(log)).isEqualTo(80);
  }
}
