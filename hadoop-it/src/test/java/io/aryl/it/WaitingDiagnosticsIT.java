package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job that cannot fit now says so in its diagnostics, in the client's status and the RM's REST
 * API (what its UI shows), and the message goes once it runs. Two training nodes of 8 GPUs: one job
 * takes both, a second waits. The messages themselves (what is free, the place in the queue, the
 * senior lane, when one is cleared) are specified by aryl-yarn-scheduler's {@code
 * engine.WaitingMessagesTest}; here, the path from a round to what a user reads.
 */
@DisplayName("Waiting diagnostics: a job waiting for its gang says what it needs and what is free")
class WaitingDiagnosticsIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String WAITING =
      "Aryl: waiting for 1 worker x 8 GPUs (8 GPUs) on training; 0 GPUs free now,"
          + " largest node 0 free";

  @TempDir Path dir;

  private static AmJobs.Result submit(YarnConfiguration conf, String name, int workers, Path envs)
      throws Exception {
    AmJobs.Result r =
        AmJobs.client(
            conf,
            SubmitLine.job(name)
                .minWorkers(workers)
                .gpus(8)
                .memoryMb(256)
                .amMemoryMb(256)
                .predictedRuntimeS(600)
                .command(AmJobs.recordEnvThenSleep(envs)));
    assertThat(r.exit()).as("submit %s:%n%s%s", name, r.out(), r.err()).isZero();
    return r;
  }

  @Test
  @DisplayName(
      "shown in status and the RM's REST API while the pool is full; gone once the job runs")
  void shownWhileWaitingGoneWhenRunning() throws Exception {
    YarnConfiguration base = AmJobs.conf(dir.toFile());
    try (ArylMiniCluster cluster = ArylMiniCluster.start("waiting", base, 0, 2)) {
      YarnConfiguration conf = new YarnConfiguration(cluster.conf());
      Path bigEnvs = Files.createDirectories(dir.resolve("big"));
      Path smallEnvs = Files.createDirectories(dir.resolve("small"));
      ApplicationId big = submit(conf, "big", 2, bigEnvs).applicationId();
      cluster.awaitShowingStatus(
          "the big job's 2 workers run", WAIT, () -> AmJobs.generation(bigEnvs, 1).size() == 2);
      assertThat(cluster.client().getApplicationReport(big).getDiagnostics())
          .doesNotContain("Aryl: waiting");

      ApplicationId small = submit(conf, "small", 1, smallEnvs).applicationId();
      cluster.awaitShowingStatus(
          "the small job says why it waits",
          WAIT,
          () -> statusOf(conf, small).contains("diagnostics: " + WAITING));
      assertThat(AmJobs.state(cluster, small)).isEqualTo(YarnApplicationState.RUNNING);
      String rest = cluster.get("/ws/v1/cluster/apps/" + small).body();
      assertThat(new ObjectMapper().readTree(rest).path("app").path("diagnostics").asText())
          .as("the diagnostics the RM UI shows")
          .isEqualTo(WAITING);

      cluster.client().killApplication(big);
      cluster.awaitShowingStatus(
          "the small job's worker runs once the big job is gone",
          WAIT,
          () -> AmJobs.generation(smallEnvs, 1).size() == 1);
      cluster.awaitShowingStatus(
          "its waiting message is gone",
          Duration.ofSeconds(10),
          () -> !statusOf(conf, small).contains("Aryl: waiting"));
      assertThat(statusOf(conf, small))
          .contains("state:       RUNNING")
          .contains("diagnostics: \n");
      cluster.client().killApplication(small);
    }
  }

  private static String statusOf(YarnConfiguration conf, ApplicationId id) {
    try {
      return AmJobs.client(conf, "status", id.toString()).out();
    } catch (Exception e) {
      return e.toString();
    }
  }
}
