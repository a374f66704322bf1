package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.NodeStatus;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptReport;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A cluster whose every NodeManager is labelled: one node of 8 GPUs labelled {@code training}, no
 * default partition. With {@code --am-node-label auto} (the default) the job's ApplicationMaster
 * goes to the training partition, takes memory and a vcore there and no GPU, and the job runs its
 * workers and finishes; Aryl's scheduler counts the AM as no worker and no GPU. Forcing the AM into
 * the default partition is refused before submitting, in one line. Which partition {@code auto}
 * chooses among which nodes, and every refusal's words, are aryl-am's {@code AmPartitionTest}.
 */
@DisplayName("Fully labelled cluster: the AM goes to the training partition and the job finishes")
class FullyLabelledIT extends OneClusterPerClass {
  private YarnConfiguration conf;
  private Path dir;

  @Override
  protected ArylMiniCluster startCluster(File dir) throws Exception {
    this.dir = dir.toPath();
    ArylMiniCluster c = ArylMiniCluster.start("fully-labelled", AmJobs.conf(dir), 0, 1, 0);
    conf = new YarnConfiguration(c.conf());
    return c;
  }

  @Test
  @DisplayName(
      "auto: the AM runs on the training node beside its 2 workers, the scheduler counts 2 workers"
          + " and 4 GPUs, and the job succeeds")
  void jobRunsAndFinishes() throws Exception {
    Path envs = Files.createDirectories(dir.resolve("envs"));
    Path done = dir.resolve("done");
    String worker =
        "env | sort > "
            + envs
            + "/g${ARYL_GENERATION}-r${RANK}.env; while [ ! -e "
            + done
            + " ]; do sleep 0.2; done; exit 0";
    AmJobs.Result submitted =
        AmJobs.client(
            conf,
            SubmitLine.job("labelled")
                .workers(2, 2)
                .gpus(2)
                .memoryMb(256)
                .predictedRuntimeS(60)
                .amMemoryMb(256)
                .command(worker));
    assertThat(submitted.exit())
        .as("submit output:%n%s%s", submitted.out(), submitted.err())
        .isZero();
    ApplicationId id = submitted.applicationId();
    ArylMiniCluster.await(
        "both workers of generation 1 started",
        Duration.ofSeconds(60),
        () -> AmJobs.generation(envs, 1).size() == 2);

    ApplicationReport report = cluster.client().getApplicationReport(id);
    assertThat(report.getAmNodeLabelExpression()).as("the AM's label").isEqualTo("training");
    ApplicationAttemptReport attempt =
        cluster.client().getApplicationAttemptReport(report.getCurrentApplicationAttemptId());
    List<NodeId> workerNodes = new ArrayList<>();
    for (ContainerReport c : cluster.client().getContainers(attempt.getApplicationAttemptId())) {
      if (c.getContainerId().equals(attempt.getAMContainerId())) {
        assertThat(c.getAssignedNode()).as("the AM's node").isEqualTo(cluster.nodeId(0));
        assertThat(c.getAllocatedResource().getResourceValue("yarn.io/gpu"))
            .as("the AM's GPUs")
            .isZero();
      } else {
        workerNodes.add(c.getAssignedNode());
      }
    }
    assertThat(workerNodes)
        .as("the workers' nodes")
        .containsExactly(cluster.nodeId(0), cluster.nodeId(0));

    // The scheduler's ledger: two workers of 2 GPUs, the AM neither a worker nor a GPU holder.
    cluster.awaitShowingStatus(
        "the scheduler counts the job's 2 workers and 4 GPUs on the node",
        () -> {
          ApplicationStatus app = application(id);
          NodeStatus node = node(cluster.nodeName(0));
          return app != null
              && app.actualWorkers() == 2
              && app.targetWorkers() == 2
              && node != null
              && node.usedGpus() == 4;
        });
    assertThat(cluster.status().plainDemand()).as("plain applications' demand").isEmpty();

    Files.writeString(done, "");
    ArylMiniCluster.await(
        "the job finished",
        Duration.ofSeconds(60),
        () -> AmJobs.state(cluster, id) == YarnApplicationState.FINISHED);
    ApplicationReport end = cluster.client().getApplicationReport(id);
    assertThat(end.getFinalApplicationStatus())
        .as("final status; diagnostics: %s", end.getDiagnostics())
        .isEqualTo(FinalApplicationStatus.SUCCEEDED);
    List<Map<String, String>> g1 = AmJobs.generation(envs, 1);
    assertThat(g1).extracting(e -> e.get("WORLD_SIZE")).containsOnly("2");
    assertThat(AmJobs.generation(envs, 2)).as("a second generation").isEmpty();
  }

  @Test
  @DisplayName(
      "--am-node-label '' (the default partition, where no NodeManager runs) is refused in one"
          + " line, exit 2, and nothing is submitted")
  void defaultPartitionRefused() throws Exception {
    int before = cluster.client().getApplications().size();
    AmJobs.Result r =
        AmJobs.client(
            conf,
            SubmitLine.job("nowhere")
                .minWorkers(1)
                .gpus(1)
                .memoryMb(256)
                .predictedRuntimeS(60)
                .with("--am-node-label", "")
                .command("true"));
    assertThat(r.exit()).as("exit; output:%n%s%s", r.out(), r.err()).isEqualTo(2);
    assertThat(r.err().strip())
        .as("stderr")
        .isEqualTo(
            "submit: --am-node-label '': no NodeManager runs in the default partition"
                + " (NodeManagers run in partition 'training'), so the job's ApplicationMaster"
                + " would never start; use --am-node-label auto (or training) to run it in the"
                + " workers' partition, or set aryl.am.node-label-expression=auto");
    assertThat(r.out()).as("stdout").isEmpty();
    assertThat(cluster.client().getApplications()).as("applications in the RM").hasSize(before);
  }

  private NodeStatus node(String name) {
    try {
      return cluster.status().nodes().stream()
          .filter(n -> n.node().equals(name))
          .findFirst()
          .orElse(null);
    } catch (java.io.IOException e) {
      return null;
    }
  }

  private ApplicationStatus application(ApplicationId id) {
    try {
      return cluster.status().applications().stream()
          .filter(a -> a.application().equals(id.toString()))
          .findFirst()
          .orElse(null);
    } catch (java.io.IOException e) {
      return null;
    }
  }
}
