package io.aryl.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.conf.GpuCatalog;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class GpuTypesTest {
  private static GpuCatalog catalog(Configuration conf) {
    Map<String, String> speeds = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().matches("aryl\\.scheduler\\.gpu-type\\..+\\.speed")) {
        speeds.put(e.getKey(), e.getValue());
      }
    }
    return GpuCatalog.of(
        conf.get("aryl.scheduler.gpu-type"),
        conf.get("aryl.scheduler.gpu-types"),
        speeds,
        "gpu-type",
        conf.get("aryl.scheduler.gpu-type.nodes"));
  }

  @Test
  @DisplayName(
      "the scheduler's rules make the inference ports t4 at the speed, the training ports and the rest a100")
  void rulesTypeNodesByPort() {
    Configuration conf = new Configuration(false);
    DemoCluster.typeNodes(conf, new int[] {11001, 11002, 12001, 12002}, 2, 0.5);
    GpuCatalog c = catalog(conf);
    assertThat(c.types()).containsOnlyKeys("a100", "t4");
    for (String node : new String[] {"localhost:11001", "localhost:11002"}) {
      assertThat(c.resolve(node, Map.of()).type().name()).as(node).isEqualTo("t4");
      assertThat(c.resolve(node, Map.of()).type().trainingSpeed()).isEqualTo(0.5);
    }
    for (String node :
        new String[] {
          "localhost:12001", "localhost:12002", "localhost:110011", "localhost:43210"
        }) {
      assertThat(c.resolve(node, Map.of()).type().name()).as(node).isEqualTo("a100");
      assertThat(c.resolve(node, Map.of()).type().trainingSpeed()).isEqualTo(1.0);
    }
  }

  @Test
  @DisplayName("ports picked for the NodeManagers are distinct, free and below the ephemeral range")
  void freePorts() {
    int[] ports = DemoCluster.freePorts(9);
    assertThat(ports).doesNotHaveDuplicates().hasSize(9);
    assertThat(java.util.Arrays.stream(ports).boxed().toList())
        .allMatch(p -> p >= 10_000 && p < 20_000);
  }
}
