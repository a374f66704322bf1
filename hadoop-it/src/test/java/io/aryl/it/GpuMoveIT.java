package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.reclaim.ReclaimRequest;
import io.aryl.api.status.NodeStatus;
import io.aryl.core.ArylPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole-job move between GPU speeds, carried out by the real aryl-am ApplicationMaster: a lent
 * inference node of slow t4 GPUs (speed 0.5) and a training node of a100 GPUs, the speed-aware
 * policy ({@code aryl+}). A job parked on the t4s while the a100s are busy moves there when they
 * free up: its new workers are granted on the a100 node first, then the old ones are asked back,
 * and the ApplicationMaster changes generation once, never narrower.
 */
@DisplayName(
    "A job parked on slow lent GPUs moves to fast ones as one generation change, with no worker lost")
class GpuMoveIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir Path dir;

  @Test
  @DisplayName(
      "new workers first on the a100 node, then the t4 workers asked back; one generation change, no restart")
  void parkedJobMovesToFastGpus() throws Exception {
    YarnConfiguration conf = ArylMiniCluster.restartableConf(dir.toFile());
    conf.set("aryl.am.staging-dir", dir.resolve("staging").toUri().toString());
    conf.setLong("aryl.am.settle-ms", 300);
    conf.setInt("aryl.am.heartbeat-ms", 200);
    conf.set("aryl.scheduler.gpu-types", "a100,t4");
    conf.set("aryl.scheduler.gpu-type.t4.speed", "0.5");
    conf.set("aryl.scheduler.policy", ArylPolicy.ARYL_PLUS.policyName());
    Path envs = Files.createDirectories(dir.resolve("envs"));
    // Node 0 inference (t4), node 1 training (a100), node 2 the default partition
    // (ApplicationMasters).
    try (ArylMiniCluster cluster = ArylMiniCluster.start("gpu-move", conf, 1, 1)) {
      String t4 = cluster.nodeName(0);
      String a100 = cluster.nodeName(1);
      cluster.restartRmWith(
          Map.of(
              "aryl.scheduler.gpu-type.nodes",
              "t4=" + t4.replace(".", "\\.") + " a100=" + a100.replace(".", "\\.")));
      cluster.lend(0);
      cluster.awaitShowingStatus(
          "the lent t4 node is typed and serves training",
          WAIT,
          () -> gpuTypes(cluster).containsAll(List.of("t4", "a100")));

      try (TestJob blocker =
          TestJob.submit(
              cluster,
              "a100-blocker",
              "training",
              tags(TestJob.shape(4, 4, 2, 60), "aryl.gpu-types=a100"),
              2,
              true)) {
        blocker.askWorkersAtOnce(4);
        cluster.awaitShowingStatus(
            "the blocker holds the 8 a100 GPUs", WAIT, () -> blocker.workers() == 4);

        // A rigid job of 2 x 2 GPUs, predicted 10 h: only the t4s have room.
        AmJobs.Result r =
            AmJobs.client(
                new YarnConfiguration(cluster.conf()),
                SubmitLine.job("parked")
                    .workers(2, 2)
                    .gpus(2)
                    .memoryMb(256)
                    .predictedRuntimeS(36000)
                    .amMemoryMb(256)
                    .graceMs(1500)
                    .command(AmJobs.recordEnvThenSleep(envs)));
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(0);
        ApplicationId id = r.applicationId();
        cluster.awaitShowingStatus(
            "generation 1 of 2 workers runs on the t4 node",
            WAIT,
            () -> AmJobs.generationOfSize(envs, 2) == 1);
        assertThat(nodesOf(AmJobs.generation(envs, 1))).containsExactly(t4);

        blocker.finish();
        cluster.awaitShowingStatus(
            "generation 2 of 2 workers runs on the a100 node",
            WAIT,
            () -> AmJobs.generationOfSize(envs, 2) == 2);
        List<Map<String, String>> moved = AmJobs.generation(envs, 2);
        assertThat(nodesOf(moved)).as("the moved generation's nodes").containsExactly(a100);
        assertThat(containers(moved))
            .as("new containers, none of the old")
            .doesNotContainAnyElementsOf(containers(AmJobs.generation(envs, 1)));
        assertThat(moved).extracting(e -> e.get("RANK")).containsExactlyInAnyOrder("0", "1");

        JsonNode status = AmJobs.status(cluster, id);
        assertThat(status.path("restartsUsed").asInt()).as("nothing charged").isZero();
        assertThat(status.path("generations").size())
            .as("one generation change: " + status.path("generations"))
            .isEqualTo(2);
        List<String> kinds = new ArrayList<>();
        status.path("events").forEach(e -> kinds.add(e.path("kind").asText()));
        assertThat(kinds.indexOf("move"))
            .as("the new workers arrive before the old are asked back: " + kinds)
            .isNotNegative()
            .isLessThan(kinds.indexOf("preempted"));
        cluster.awaitShowingStatus(
            "the old t4 containers are released",
            WAIT,
            () -> AmJobs.status(cluster, id).path("held").asInt() == 2);
        assertThat(cluster.aryl().metrics().containersMoved()).isEqualTo(2);
        assertThat(cluster.aryl().metrics().containersShrunk()).as("nothing shrunk").isZero();
        assertThat(AmJobs.state(cluster, id)).isEqualTo(YarnApplicationState.RUNNING);
        cluster.client().killApplication(id);
      }

      // A reclaim may ask for a GPU type: only a lent node of that type goes back.
      ArylMiniCluster.Http unknown = cluster.post(RECLAIMS, reclaimOf("v100"));
      assertThat(unknown.status()).as(unknown.body()).isEqualTo(400);
      assertThat(unknown.body()).contains("v100").contains("aryl.scheduler.gpu-types");
      ArylMiniCluster.Http notLent = cluster.post(RECLAIMS, reclaimOf("a100"));
      assertThat(notLent.status()).as(notLent.body()).isEqualTo(400);
      assertThat(notLent.body()).contains("a100");
      ArylMiniCluster.Http t4Back = cluster.post(RECLAIMS, reclaimOf("t4"));
      assertThat(t4Back.status()).as(t4Back.body()).isEqualTo(201);
      cluster.awaitShowingStatus(
          "the t4 node is inference's again",
          WAIT,
          () -> cluster.partitionOf(0).equals("inference"));
    }
  }

  private static final String RECLAIMS = ArylPaths.RECLAIMS;

  /** A reclaim of one lent node of this GPU type. */
  private static String reclaimOf(String gpuType) {
    return ArylJson.write(new ReclaimRequest(1, 0, gpuType));
  }

  private static List<String> gpuTypes(ArylMiniCluster cluster) {
    try {
      return cluster.status().nodes().stream()
          .map(NodeStatus::gpuType)
          .filter(java.util.Objects::nonNull)
          .toList();
    } catch (java.io.IOException e) {
      return List.of(); // not answering yet
    }
  }

  private static Set<String> tags(Set<String> shape, String... extra) {
    Set<String> out = new TreeSet<>(shape);
    out.addAll(Set.of(extra));
    return out;
  }

  /** The nodes (host:port, as the scheduler names them) the recorded workers ran on. */
  private static Set<String> nodesOf(List<Map<String, String>> envs) {
    return envs.stream()
        .map(e -> e.get("NM_HOST") + ":" + e.get("NM_PORT"))
        .collect(Collectors.toSet());
  }

  private static Set<String> containers(List<Map<String, String>> envs) {
    return envs.stream().map(e -> e.get("CONTAINER_ID")).collect(Collectors.toSet());
  }
}
