package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reclaims priced by real checkpoints, with two real aryl-am jobs of one 8-GPU worker each, each
 * alone on one of two loaned inference nodes (their ApplicationMasters in the default partition).
 * "checkpointing" starts first and its worker writes the checkpoint marker every second; "silent"
 * starts later and never writes one. Returning one node preempts one job. By the time since their
 * workers last changed, the older job is the dearer one; with the ApplicationMasters' checkpoint
 * reports ({@code aryl.scheduler.checkpoint-poll-ms} on), the job that checkpointed a second ago
 * loses least, and its node goes back.
 *
 * <p>This is the end-to-end path: the marker written by a real worker, read by its
 * ApplicationMaster, polled by the scheduler and priced by a reclaim. Which node a reclaim returns
 * with and without reports is specified by aryl-yarn-scheduler's {@code
 * engine.ReclaimByCheckpointTest} (and {@code CheckpointAwareReclaimTest}); that polling off asks
 * no ApplicationMaster, by {@code CheckpointTimesTest}.
 */
class CheckpointReclaimIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  /**
   * How long the younger job runs before the reclaim: far more than the checkpointing job's report
   * can lag.
   */
  private static final long SILENT_RUNS_S = 12;

  /** How often the scheduler asks the ApplicationMasters for their checkpoints, ms. */
  private static final long POLL_MS = 500;

  /**
   * Marker written every second, read by the AM every 3 s, polled by the scheduler every 0.5 s,
   * plus slack.
   */
  private static final double REPORT_LAG_S = 6;

  @TempDir Path dir;

  @Test
  @DisplayName(
      "with checkpoint reports, a one-node reclaim returns the node of the job that checkpointed a second ago")
  void reclaimReturnsTheFreshlyCheckpointedJobsNode() throws Exception {
    Outcome o = reclaimOneOfTwo();

    assertThat(o.checkpointing().path("lastCheckpointMs").asLong())
        .as("the AM reports the marker's time")
        .isPositive();
    assertThat(o.checkpointing().path("lastCheckpointStep").asLong())
        .as("and the step the worker wrote in it")
        .isPositive();
    assertThat(o.silent().path("lastCheckpointMs").asLong())
        .as("a job without a marker reports none")
        .isEqualTo(-1);
    assertThat(o.sinceCheckpointS(o.checkpointingId()))
        .as("what a preemption of the checkpointing job loses, s")
        .isLessThanOrEqualTo(REPORT_LAG_S);
    assertThat(o.sinceCheckpointS(o.silentId()))
        .as("what a preemption of the silent job loses, s")
        .isGreaterThanOrEqualTo(SILENT_RUNS_S);
    assertThat(o.chosen()).as("the node returned").isEqualTo(o.nodeOf(o.checkpointingId()));
    assertThat(o.jobs())
        .isEqualTo(Map.of(o.checkpointingId().toString(), ReclaimStatus.Action.PREEMPT));
    assertThat(o.plannedCostGpuS())
        .as("8 GPUs x (seconds lost + 120 s restart)")
        .isLessThanOrEqualTo(8 * (REPORT_LAG_S + 120));
  }

  /**
   * What the scheduler and the ApplicationMasters showed just before the reclaim, and what the
   * reclaim chose.
   */
  private record Outcome(
      ApplicationId checkpointingId,
      ApplicationId silentId,
      JsonNode checkpointing,
      JsonNode silent,
      SchedulerStatus scheduler,
      String chosen,
      Map<String, ReclaimStatus.Action> jobs,
      double plannedCostGpuS) {
    ApplicationStatus application(ApplicationId id) {
      ApplicationStatus a = scheduler.application(id.toString());
      if (a == null) {
        throw new AssertionError("no application " + id + " in " + scheduler);
      }
      return a;
    }

    double sinceCheckpointS(ApplicationId id) {
      Double s = application(id).sinceCheckpointS();
      return s == null ? 0 : s;
    }

    String nodeOf(ApplicationId id) {
      List<String> nodes = new ArrayList<>(application(id).targetByNode().keySet());
      assertThat(nodes).as("nodes of %s", id).hasSize(1);
      return nodes.get(0);
    }
  }

  private Outcome reclaimOneOfTwo() throws Exception {
    YarnConfiguration conf = AmJobs.conf(dir.toFile());
    conf.setLong("aryl.scheduler.checkpoint-poll-ms", POLL_MS);
    Path ckpt = Files.createDirectories(dir.resolve("ckpt"));
    // Nodes 0 and 1 inference, 2 training's own, 3 the default partition (the ApplicationMasters').
    // A blocker holds
    // node 2's GPUs, so each job's one worker goes to a loaned node: a reclaim of one takes that
    // job's worker.
    try (ArylMiniCluster cluster = ArylMiniCluster.start("checkpoint-reclaim", conf, 2, 1);
        TestJob blocker =
            TestJob.submit(cluster, "blocker", "training", TestJob.shape(1, 1, 8, 60), 8, true)) {
      blocker.askWorkersAtOnce(1);
      cluster.awaitShowingStatus(
          "the blocker holds training's own node", WAIT, () -> blocker.workers() == 1);

      String writeMarkerEverySecond =
          "i=0; while true; do i=$((i+1)); echo $i > \"$ARYL_CHECKPOINT_MARKER.tmp\""
              + " && mv -f \"$ARYL_CHECKPOINT_MARKER.tmp\" \"$ARYL_CHECKPOINT_MARKER\"; sleep 1; done";
      // The shorter predicted runtime is admitted first: the checkpointing job starts first, on the
      // first loaned node.
      ApplicationId checkpointing =
          submit(
              cluster,
              "checkpointing",
              600,
              "--checkpoint-dir",
              ckpt.toString(),
              "--",
              writeMarkerEverySecond);
      ApplicationId silent = submit(cluster, "silent", 3600, "--", "exec sleep 600");
      cluster.awaitShowingStatus(
          "both ApplicationMasters serve their status",
          WAIT,
          () ->
              AmJobs.status(cluster, checkpointing) != null
                  && AmJobs.status(cluster, silent) != null);
      // Both asks must be in before the first node is lent, or whichever asked first gets it.
      cluster.awaitShowingStatus(
          "the scheduler has both jobs' asks",
          WAIT,
          () -> asked(cluster, checkpointing) && asked(cluster, silent));

      cluster.lend(0);
      cluster.awaitShowingStatus(
          "the checkpointing job's worker runs and wrote its marker",
          WAIT,
          () -> running(cluster, checkpointing) && Files.exists(ckpt.resolve("aryl-checkpoint")));
      cluster.lend(1);
      cluster.awaitShowingStatus(
          "the silent job's worker runs", WAIT, () -> running(cluster, silent));
      assertThat(loaned(cluster)).isEqualTo(2);
      cluster.awaitShowingStatus(
          "the silent job ran " + SILENT_RUNS_S + " s since its worker started",
          WAIT,
          () -> since(cluster, silent) >= SILENT_RUNS_S);
      cluster.awaitShowingStatus(
          "the scheduler priced the checkpointing job by its report",
          WAIT,
          () -> since(cluster, checkpointing) <= REPORT_LAG_S);

      SchedulerStatus before = cluster.status();
      JsonNode checkpointingStatus = AmJobs.status(cluster, checkpointing);
      JsonNode silentStatus = AmJobs.status(cluster, silent);
      ReclaimStatus reclaim = ArylStatus.reclaim(cluster, 1, 0);
      assertThat(reclaim.nodes()).hasSize(1);
      Outcome o =
          new Outcome(
              checkpointing,
              silent,
              checkpointingStatus,
              silentStatus,
              before,
              reclaim.nodes().get(0),
              reclaim.jobs(),
              planned(cluster));

      ApplicationId kept = o.jobs().containsKey(checkpointing.toString()) ? silent : checkpointing;
      cluster.awaitShowingStatus(
          "the reclaimed node is back in the inference pool", WAIT, () -> loaned(cluster) == 1);
      assertThat(AmJobs.state(cluster, kept)).isEqualTo(YarnApplicationState.RUNNING);
      assertThat(AmJobs.status(cluster, kept).path("held").asInt())
          .as("the other job keeps its worker")
          .isEqualTo(1);
      cluster.client().killApplication(checkpointing);
      cluster.client().killApplication(silent);
      return o;
    }
  }

  private static ApplicationId submit(
      ArylMiniCluster cluster, String name, long predictedS, String... rest) throws Exception {
    List<String> args =
        SubmitLine.job(name)
            .workers(1, 1)
            .gpus(8)
            .memoryMb(256)
            .predictedRuntimeS(predictedS)
            .amMemoryMb(256)
            .graceMs(1500)
            .options();
    args.addAll(List.of(rest));
    AmJobs.Result r =
        AmJobs.client(new YarnConfiguration(cluster.conf()), args.toArray(String[]::new));
    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(0);
    return r.applicationId();
  }

  /** The job's worker runs in a generation, as its ApplicationMaster says. */
  private static boolean running(ArylMiniCluster cluster, ApplicationId id) {
    JsonNode s = AmJobs.status(cluster, id);
    if (s == null) {
      return false;
    }
    for (JsonNode w : s.path("workers")) {
      if (w.path("state").asText().equals("RUNNING") && w.path("generation").asInt() > 0) {
        return true;
      }
    }
    return false;
  }

  private static int loaned(ArylMiniCluster cluster) {
    try {
      return cluster.status().loanedNodes().size();
    } catch (IOException e) {
      return -1;
    }
  }

  /** True once the scheduler sees the job asking for its worker. */
  private static boolean asked(ArylMiniCluster cluster, ApplicationId id) {
    try {
      ApplicationStatus a = cluster.status().application(id.toString());
      return a != null && a.askedWorkers() >= 1;
    } catch (IOException e) {
      // not answering yet
    }
    return false;
  }

  /**
   * The seconds a preemption of the job would lose, as the status prices it; NaN while it does not
   * show them.
   */
  private static double since(ArylMiniCluster cluster, ApplicationId id) {
    try {
      ApplicationStatus a = cluster.status().application(id.toString());
      if (a != null && a.sinceCheckpointS() != null) {
        return a.sinceCheckpointS();
      }
    } catch (IOException e) {
      // not answering yet
    }
    return Double.NaN;
  }

  /** The planned cost of the reclaim the scheduler holds, in flight or done. */
  private static double planned(ArylMiniCluster cluster) throws IOException {
    SchedulerStatus s = cluster.status();
    for (List<ReclaimStatus> list : List.of(s.reclaimsInFlight(), s.reclaimsDone())) {
      for (ReclaimStatus r : list) {
        return r.plannedCostGpuS();
      }
    }
    throw new AssertionError("no reclaim in " + s);
  }
}
