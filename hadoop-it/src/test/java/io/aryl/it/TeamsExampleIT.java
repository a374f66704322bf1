package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.conf.TemplateConf;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptReport;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The existing-cluster capacity-scheduler.xml with its teams example applied as it says ({@link
 * TemplateConf.TeamsExample}), on one training node of 8 GPUs and one unlabelled node of 16 vcores:
 * a real aryl-am job in each team, root.training.vision and root.training.nlp, runs at the same
 * time, each AM in the default partition and its worker on the training node, and both succeed.
 *
 * <p>The room for the AMs is sized as the example's comment says: a team running N jobs at once
 * needs root.training.capacity * team capacity / 100 >= 100 * N / default-partition vcores. One job
 * per team on 16 vcores: nlp (40) needs root.training at 100 / 16 / 0.4 = 15.6, so 16, taken from
 * root.default. That the queues, labels and AM limits read as intended is conf-templates'
 * ExistingClusterTemplateTest.
 */
@DisplayName("Teams example: a job in each team runs at once, each AM in the default partition")
class TeamsExampleIT extends OneClusterPerClass {
  private static final String ROOT = "yarn.scheduler.capacity.root.";

  /** root.training's default-partition share that fits one AM per team on 16 vcores (above). */
  private static final int TRAINING_CAPACITY = 16;

  private YarnConfiguration conf;
  private Path dir;

  @Override
  protected ArylMiniCluster startCluster(File dir) throws Exception {
    this.dir = dir.toPath();
    YarnConfiguration templates =
        TemplateConf.TeamsExample.read()
            .applyTo(
                ArylMiniCluster.templateConf(TemplateConf.EXISTING_CLUSTER_CAPACITY_SCHEDULER));
    int defaultCapacity =
        100 - TRAINING_CAPACITY - templates.getInt(ROOT + "inference.capacity", -1);
    templates.setInt(ROOT + "default.capacity", defaultCapacity);
    templates.setInt(ROOT + "training.capacity", TRAINING_CAPACITY);
    templates.setInt(ROOT + "training.maximum-capacity", TRAINING_CAPACITY);
    ArylMiniCluster c = ArylMiniCluster.start("teams-example", AmJobs.conf(dir, templates), 0, 1);
    conf = new YarnConfiguration(c.conf());
    return c;
  }

  @Test
  @DisplayName(
      "vision and nlp each run a job at once: AMs on the unlabelled node, workers on the training"
          + " node, both succeed")
  void aJobInEachTeam() throws Exception {
    Path done = dir.resolve("done");
    List<ApplicationId> jobs = new ArrayList<>();
    for (String team : List.of("vision", "nlp")) {
      Path started = dir.resolve(team + "-started");
      String worker =
          "touch " + started + "; while [ ! -e " + done + " ]; do sleep 0.2; done; exit 0";
      AmJobs.Result r =
          AmJobs.client(
              conf,
              SubmitLine.job(team + "-job")
                  .with("--queue", team)
                  .minWorkers(1)
                  .gpus(2)
                  .memoryMb(256)
                  .predictedRuntimeS(60)
                  .amMemoryMb(256)
                  .command(worker));
      assertThat(r.exit()).as("submit to %s:%n%s%s", team, r.out(), r.err()).isZero();
      jobs.add(r.applicationId());
    }
    ArylMiniCluster.await(
        "the workers of both teams' jobs run at once",
        Duration.ofSeconds(60),
        () ->
            Files.exists(dir.resolve("vision-started"))
                && Files.exists(dir.resolve("nlp-started")));

    for (ApplicationId id : jobs) {
      ApplicationReport report = cluster.client().getApplicationReport(id);
      assertThat(report.getAmNodeLabelExpression())
          .as("AM label of %s", id)
          .isEqualTo("<DEFAULT_PARTITION>");
      ApplicationAttemptReport attempt =
          cluster.client().getApplicationAttemptReport(report.getCurrentApplicationAttemptId());
      for (ContainerReport c : cluster.client().getContainers(attempt.getApplicationAttemptId())) {
        boolean am = c.getContainerId().equals(attempt.getAMContainerId());
        assertThat(c.getAssignedNode())
            .as("%s of %s", am ? "the AM" : "a worker", id)
            .isEqualTo(cluster.nodeId(am ? 1 : 0));
      }
    }

    Files.writeString(done, "");
    for (ApplicationId id : jobs) {
      ArylMiniCluster.await(
          id + " finished",
          Duration.ofSeconds(60),
          () -> AmJobs.state(cluster, id) == YarnApplicationState.FINISHED);
      ApplicationReport end = cluster.client().getApplicationReport(id);
      assertThat(end.getFinalApplicationStatus())
          .as("final status of %s; diagnostics: %s", id, end.getDiagnostics())
          .isEqualTo(FinalApplicationStatus.SUCCEEDED);
    }
  }
}
