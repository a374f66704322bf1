package io.aryl.conf;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("resource-types.xml and node-resources.xml templates")
class ResourceTemplatesTest {

  private static final String GPU = ResourceInformation.GPU_URI;

  private final Configuration types = Templates.load(Templates.RESOURCE_TYPES);
  private final Configuration node = Templates.load(Templates.NODE_RESOURCES);

  @Test
  @DisplayName("resource-types declares yarn.io/gpu")
  void declaresGpu() {
    assertThat(GPU).isEqualTo("yarn.io/gpu");
    assertThat(types.getTrimmedStringCollection(YarnConfiguration.RESOURCE_TYPES))
        .containsExactly(GPU);
  }

  @Test
  @DisplayName(
      "resource-types gives yarn.io/gpu a minimum allocation of 0 and a finite maximum allocation")
  void gpuAllocationBounds() {
    String prefix = YarnConfiguration.RESOURCE_TYPES + "." + GPU;
    assertThat(types.get(prefix + ".minimum-allocation")).isEqualTo("0");
    assertThat(types.get(prefix + ".maximum-allocation")).isNotNull();
    assertThat(types.getLong(prefix + ".maximum-allocation", -1)).isPositive();
  }

  @Test
  @DisplayName("node-resources declares a GPU count the maximum allocation can cover")
  void nodeGpuCount() {
    long gpus = node.getLong(YarnConfiguration.NM_RESOURCES_PREFIX + GPU, -1);
    long max =
        types.getLong(YarnConfiguration.RESOURCE_TYPES + "." + GPU + ".maximum-allocation", -1);
    assertThat(gpus).isPositive().isLessThanOrEqualTo(max);
  }

  @Test
  @DisplayName("node-resources does not turn on the GPU plugin (that needs nvidia-smi on the node)")
  void noGpuPlugin() {
    assertThat(Templates.loadAll().get(YarnConfiguration.NM_RESOURCE_PLUGINS)).isNull();
  }
}
