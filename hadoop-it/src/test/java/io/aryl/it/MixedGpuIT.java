package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.NodeStatus;
import io.aryl.core.ArylPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two GPU types in one ResourceManager running the speed-aware policy ({@code
 * aryl.scheduler.policy=aryl+}): an inference node of slow t4 GPUs (speed 0.5), lent to training,
 * beside two training nodes of a100 GPUs. The types come from node-name rules, set as an operator
 * does once the node names are known (yarn-site.xml, then an RM restart). Every job is a real
 * application of the training queue.
 */
@DisplayName(
    "Mixed GPU types: gangs on one speed, extras never slower than the base, a job's accepted types only")
class MixedGpuIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  private static Set<String> tags(Set<String> shape, String... extra) {
    Set<String> out = new TreeSet<>(shape);
    out.addAll(Set.of(extra));
    return out;
  }

  @Test
  @DisplayName(
      "a100-only jobs stay off the lent t4 node; a rigid gang lands on one speed; extras never on slower GPUs")
  void speedAwarePlacement() throws Exception {
    YarnConfiguration conf = ArylMiniCluster.restartableConf(dir.toFile());
    conf.set("aryl.scheduler.gpu-types", "a100,t4");
    conf.set("aryl.scheduler.gpu-type.t4.speed", "0.5");
    conf.set("aryl.scheduler.policy", ArylPolicy.ARYL_PLUS.policyName());
    // Node 0 inference (t4), nodes 1 and 2 training (a100), node 3 the default partition.
    try (ArylMiniCluster cluster = ArylMiniCluster.start("mixed-gpus", conf, 1, 2)) {
      String t4 = cluster.nodeName(0);
      String a100a = cluster.nodeName(1);
      String a100b = cluster.nodeName(2);
      cluster.restartRmWith(
          Map.of(
              "aryl.scheduler.gpu-type.nodes",
              "t4="
                  + t4.replace(".", "\\.")
                  + " a100="
                  + a100a.replace(".", "\\.")
                  + "|"
                  + a100b.replace(".", "\\.")));
      cluster.lend(0);
      cluster.awaitShowingStatus(
          "the lent t4 node and both a100 nodes are typed",
          WAIT,
          () -> {
            List<NodeStatus> nodes = nodes(cluster);
            return type(nodes, t4).equals("t4")
                && type(nodes, a100a).equals("a100")
                && type(nodes, a100b).equals("a100");
          });

      // 1. A job that accepts only a100 takes every a100 GPU and none of the idle t4 ones.
      try (TestJob fastOnly =
          TestJob.submit(
              cluster,
              "a100-only",
              "training",
              tags(TestJob.shape(1, 24, 1, 3600), "aryl.gpu-types=a100"),
              1,
              true)) {
        fastOnly.askWorkersAtOnce(24);
        cluster.awaitShowingStatus(
            "the a100-only job holds the 16 a100 GPUs", WAIT, () -> fastOnly.workers() == 16);
        Thread.sleep(1500); // several rounds: the 8 idle t4 GPUs stay idle for it
        assertThat(fastOnly.workersByNode())
            .as("its workers by node")
            .containsOnlyKeys(a100a, a100b);
        assertThat(fastOnly.workers()).isEqualTo(16);
        fastOnly.finish();
      }
      // Its containers are released after it unregisters: the next gang is placed on a cluster that
      // has seen them go.
      cluster.awaitShowingStatus(
          "the a100 GPUs are free again",
          WAIT,
          () -> usedGpus(nodes(cluster), a100a) == 0 && usedGpus(nodes(cluster), a100b) == 0);

      // 2. A rigid gang of 12 fits on the a100s as a whole: it goes there, not 8 + 4 across two
      // speeds.
      try (TestJob rigid =
          TestJob.submit(cluster, "rigid-12", "training", TestJob.shape(12, 12, 1, 600), 1, true)) {
        rigid.askWorkersAtOnce(12);
        cluster.awaitShowingStatus("the rigid gang of 12 runs", WAIT, () -> rigid.workers() == 12);
        assertThat(rigid.workersByNode().keySet())
            .as("the rigid gang's nodes")
            .isSubsetOf(a100a, a100b);

        // 3. An elastic job whose base fits on the 4 a100 GPUs left grows only there: extras never
        // on the slower t4.
        try (TestJob elastic =
            TestJob.submit(
                cluster, "elastic", "training", TestJob.shape(2, 24, 1, 3600), 1, true)) {
          elastic.askWorkersAtOnce(24);
          cluster.awaitShowingStatus(
              "the elastic job starts on the a100s", WAIT, () -> elastic.workers() >= 2);
          Thread.sleep(1500);
          assertThat(elastic.workersByNode().keySet())
              .as("the elastic job's nodes")
              .isSubsetOf(a100a, a100b);
          assertThat(elastic.workers()).as("base and extras, all on a100").isEqualTo(4);
          elastic.finish();
        }
        rigid.finish();
      }
    }
  }

  private static List<NodeStatus> nodes(ArylMiniCluster cluster) {
    try {
      return cluster.status().nodes();
    } catch (java.io.IOException e) {
      return List.of(); // not answering yet
    }
  }

  /** The node's GPUs in use as the last round saw them; -1 while the node is not shown. */
  private static int usedGpus(List<NodeStatus> nodes, String node) {
    return nodes.stream()
        .filter(n -> n.node().equals(node))
        .mapToInt(NodeStatus::usedGpus)
        .findFirst()
        .orElse(-1);
  }

  /** The node's GPU type as the status shows it; "" while it is not shown or not typed. */
  private static String type(List<NodeStatus> nodes, String node) {
    return nodes.stream()
        .filter(n -> n.node().equals(node) && n.gpuType() != null)
        .map(NodeStatus::gpuType)
        .findFirst()
        .orElse("");
  }
}
