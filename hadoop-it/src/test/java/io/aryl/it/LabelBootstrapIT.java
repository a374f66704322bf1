package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.core.loan.LoanPolicy;
import io.aryl.labels.LabelBootstrap;
import io.aryl.labels.YarnQueueDemand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.yarn.client.ClientRMProxy;
import org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code aryl-labels init} against a real ResourceManager, and the yarn-queue demand source on its
 * scheduler REST.
 */
class LabelBootstrapIT {
  @TempDir Path dir;

  @Test
  @DisplayName(
      "init puts nodes in their pools idempotently and refuses unknown nodes, changing nothing")
  void initIsIdempotentAndRefusesUnknownNodes() throws Exception {
    try (ArylMiniCluster cluster =
        ArylMiniCluster.start("bootstrap", ArylMiniCluster.testConf(dir.toFile()), 2, 1)) {
      ResourceManagerAdministrationProtocol admin =
          ClientRMProxy.createRMProxy(cluster.conf(), ResourceManagerAdministrationProtocol.class);
      LabelBootstrap b = new LabelBootstrap(cluster.client(), admin, "inference", "training");

      Path hosts = dir.resolve("pools.txt");
      Files.writeString(
          hosts,
          "# the two pools\n"
              + cluster.nodeName(0)
              + " inference\n"
              + cluster.nodeName(1)
              + " training\n"
              + cluster.nodeName(3)
              + " training   # was in the default partition\n");
      LabelBootstrap.Result first = b.init(b.readHostsFile(hosts));
      assertThat(first.labelsCreated()).as("the labels exist already").isEmpty();
      assertThat(first.relabelled())
          .isEqualTo(Map.of(cluster.nodeName(1), "training", cluster.nodeName(3), "training"));
      assertThat(first.unchanged()).isEqualTo(Map.of(cluster.nodeName(0), "inference"));
      ArylMiniCluster.await(
          "labels applied",
          java.time.Duration.ofSeconds(10),
          () ->
              "training".equals(cluster.partitionOf(1))
                  && "training".equals(cluster.partitionOf(3)));

      LabelBootstrap.Result again = b.init(b.readHostsFile(hosts));
      assertThat(again.relabelled()).as("a second run changes nothing").isEmpty();
      assertThat(again.unchanged()).hasSize(3);

      Files.writeString(hosts, cluster.nodeName(0) + " training\nnosuch-host:1234 inference\n");
      assertThatThrownBy(() -> b.init(b.readHostsFile(hosts)))
          .hasMessageContaining("unknown node(s) [nosuch-host:1234]")
          .hasMessageContaining(cluster.nodeName(0))
          .hasMessageContaining("nothing was changed");
      assertThat(cluster.partitionOf(0)).isEqualTo("inference");

      assertThatThrownBy(() -> b.fromPatterns("gpu-inf-.*", null))
          .hasMessageContaining("matches none");
      org.apache.hadoop.ipc.RPC.stopProxy(admin);

      // The yarn-queue source finds the inference queue in the scheduler's REST answer: no
      // inference work, no server.
      YarnQueueDemand demand =
          new YarnQueueDemand(
              cluster.webAddress(), "root.inference", "inference", 8, new LoanPolicy(100, 0, 0));
      assertThat(
              demand.busyServers(
                  new ObjectMapper().readTree(cluster.get("/ws/v1/cluster/scheduler").body())))
          .isZero();
      assertThat(demand.rate()).isZero();
    }
  }
}
