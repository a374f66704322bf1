package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.NodeStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.hadoop.yarn.api.records.NodeAttribute;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.resourceplugin.ResourcePlugin;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.resourceplugin.gpu.GpuResourcePlugin;
import org.apache.hadoop.yarn.server.nodemanager.webapp.dao.gpu.NMGpuResourceInfo;
import org.apache.hadoop.yarn.server.nodemanager.webapp.dao.gpu.PerGpuDeviceInformation;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * YARN's own GPU discovery, where the GPUs are fake but the path is real: the NodeManager runs the
 * GPU plugin ({@code yarn.nodemanager.resource-plugins=yarn.io/gpu}, {@code
 * allowed-gpu-devices=auto}) on a fake {@code nvidia-smi} that prints {@code nvidia-smi -x -q} XML
 * for N GPUs of one product, and the attribute script of conf-templates ({@code
 * aryl-conf/gpu-type-attribute.sh}) asks the same executable for the product name and reports the
 * type as the distributed node attribute {@code nm.yarn.io/gpu-type}. So the ResourceManager's GPU
 * count and Aryl's GPU type come from where they come from on a real node; no GPU count is
 * configured.
 *
 * <p>One NodeManager, named by its host as in production ({@code include-port-in-node-name=false}),
 * and one cluster per GPU product. The NodeManagers of a MiniYARNCluster share one configuration
 * and one host, and YARN keys node attributes by host: the Capacity Scheduler applies an attribute
 * update to the scheduler node whose <em>name</em> is the host ({@code
 * ClusterNodeTracker.getNodeIdsByResourceName(host)}), so with nodes named host:port (as the other
 * tests name them, to label them one by one) the RM holds {@code nm.yarn.io/gpu-type} but no
 * scheduler node gets it.
 *
 * <p>With the DefaultContainerExecutor the plugin discovers and counts, and its view (what {@code
 * /ws/v1/node/resources/yarn.io%2Fgpu} answers) carries nvidia-smi's product names, but nothing
 * binds or isolates devices: that needs the LinuxContainerExecutor (a setuid container-executor
 * binary and cgroups), which this machine does not have.
 */
@DisplayName(
    "YARN GPU discovery: the GPU plugin counts and the attribute script types, from one nvidia-smi")
class GpuDiscoveryIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String GPU = "yarn.io/gpu";

  @TempDir Path dir;

  @Test
  @DisplayName(
      "4 x Tesla T4: the RM sees 4 discovered GPUs per node, Aryl types the node t4 at speed 0.5")
  void teslaT4() throws Exception {
    discover("Tesla T4", 4, 15360, "t4", 0.5);
  }

  @Test
  @DisplayName(
      "2 x NVIDIA A100-SXM4-80GB: the RM sees 2 discovered GPUs per node, Aryl types the node a100")
  void a100() throws Exception {
    discover("NVIDIA A100-SXM4-80GB", 2, 81920, "a100", 1.0);
  }

  private void discover(String product, int gpus, int memoryMib, String type, double speed)
      throws Exception {
    Path smi = fakeNvidiaSmi(product, gpus, memoryMib);
    Path script =
        executable(
            resource(ArylMiniCluster.TEMPLATES + "gpu-type-attribute.sh"),
            dir.resolve("gpu-type-attribute.sh"));

    YarnConfiguration conf = ArylMiniCluster.testConf(dir.toFile());
    // No configured count: node-resources.xml's 8 GPUs go, the plugin's discovery is the only
    // source.
    conf.unset("yarn.nodemanager.resource-type." + GPU);
    conf.set(YarnConfiguration.NM_RESOURCE_PLUGINS, GPU);
    conf.set(
        YarnConfiguration.NM_GPU_ALLOWED_DEVICES,
        YarnConfiguration.AUTOMATICALLY_DISCOVER_GPU_DEVICES);
    conf.set(YarnConfiguration.NM_GPU_PATH_TO_EXEC, smi.toString());
    // The GPU type: distributed node attributes from the conf-templates script, given the same
    // nvidia-smi.
    conf.set(YarnConfiguration.NM_NODE_ATTRIBUTES_PROVIDER_CONFIG, "script");
    conf.set(YarnConfiguration.NM_SCRIPT_BASED_NODE_ATTRIBUTES_PROVIDER_PATH, script.toString());
    conf.set(YarnConfiguration.NM_SCRIPT_BASED_NODE_ATTRIBUTES_PROVIDER_OPTS, smi.toString());
    conf.set(
        YarnConfiguration.FS_NODE_ATTRIBUTE_STORE_ROOT_DIR,
        dir.resolve("node-attributes").toUri().toString());
    conf.set("aryl.scheduler.gpu-types", "a100,t4");
    conf.set("aryl.scheduler.gpu-type.t4.speed", "0.5");
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, false);
    assertThat(conf.get("yarn.nodemanager.resource-type." + GPU))
        .as("a configured GPU count")
        .isNull();

    // One NodeManager, which the test puts in the training pool (the only pool Aryl types nodes
    // in).
    try (ArylMiniCluster cluster = ArylMiniCluster.start("gpu-discovery-" + type, conf, 0, 0)) {
      ArylMiniCluster.await("the scheduler has the NodeManager", WAIT, () -> cluster.registered(0));
      cluster.label(0, "training"); // the bootstrap puts it in the training pool: not a loan
      NodeId id = cluster.nodeId(0);
      String node = cluster.scheduler().getSchedulerNode(id).getNodeName();
      assertThat(node).as("the scheduler's name of the node").isEqualTo(id.getHost());

      // 1. The count: what the plugin discovered is what every NodeManager registered with the RM.
      Map<String, Long> counts = new TreeMap<>();
      for (NodeReport r : cluster.client().getNodeReports(NodeState.RUNNING)) {
        counts.put(r.getNodeId().toString(), r.getCapability().getResourceValue(GPU));
      }
      System.out.printf(
          "GpuDiscoveryIT: %s x %d: RM node capabilities yarn.io/gpu %s%n", product, gpus, counts);
      assertThat(counts)
          .as("yarn.io/gpu of each running node in the RM")
          .hasSize(1)
          .allSatisfy((n, count) -> assertThat(count).as(n).isEqualTo(gpus));

      // 2. The NodeManager's GPU information: the devices and the product name nvidia-smi printed.
      NodeManager nm = cluster.nodeManager(0);
      ResourcePlugin plugin =
          nm.getNMContext().getResourcePluginManager().getNameToPlugins().get(GPU);
      assertThat(plugin)
          .as("the NodeManager's yarn.io/gpu plugin")
          .isInstanceOf(GpuResourcePlugin.class);
      // The view /ws/v1/node/resources/yarn.io%2Fgpu answers needs the plugin's GPU resource
      // handler. A NodeManager
      // creates it at start even with the DefaultContainerExecutor (its ContainerScheduler builds
      // ResourceHandlerModule's chain), but that chain is static: in a JVM that started
      // NodeManagers before (the other
      // tests, the other case) this one gets no handler. It gets it here as that chain would give
      // it (no cgroups behind
      // it; the plugin returns the handler it has, if any).
      plugin.createResourceHandler(nm.getNMContext(), null, null);
      NMGpuResourceInfo info = (NMGpuResourceInfo) plugin.getNMResourceInfo();
      List<PerGpuDeviceInformation> devices = info.getGpuDeviceInformation().getGpus();
      assertThat(devices)
          .as("GPUs nvidia-smi -x -q listed")
          .hasSize(gpus)
          .allSatisfy(d -> assertThat(d.getProductName()).isEqualTo(product));
      assertThat(devices)
          .extracting(PerGpuDeviceInformation::getMinorNumber)
          .as("minor numbers")
          .containsExactlyElementsOf(IntStream.range(0, gpus).boxed().toList());
      assertThat(devices.get(gpus - 1).getGpuMemoryUsage().getTotalMemoryMiB())
          .isEqualTo(memoryMib);
      assertThat(info.getGpuDeviceInformation().getDriverVersion()).isEqualTo("535.104.05");
      System.out.printf(
          "GpuDiscoveryIT: NM %s GPU info: driver %s, %s%n",
          node,
          info.getGpuDeviceInformation().getDriverVersion(),
          devices.stream()
              .map(d -> d.getMinorNumber() + ":" + d.getProductName() + ":" + d.getUuid())
              .toList());
      // Only the LinuxContainerExecutor bootstraps the handler, which adds the devices it may hand
      // out (and sets up
      // the devices cgroup): with the DefaultContainerExecutor that list stays empty and nothing is
      // isolated.
      System.out.printf(
          "GpuDiscoveryIT: devices the NM may hand out (LinuxContainerExecutor only): %s%n",
          info.getTotalGpuDevices());

      // 3. The type: the script's attribute reached the RM with the distributed prefix...
      cluster.awaitShowingStatus(
          "the RM has nm.yarn.io/gpu-type=" + type + " on " + node,
          WAIT,
          () ->
              type.equals(
                  attributes(cluster, id).get(NodeAttribute.PREFIX_DISTRIBUTED + "/gpu-type")));
      System.out.printf(
          "GpuDiscoveryIT: RM node attributes of %s: %s%n", node, attributes(cluster, id));

      // ... and Aryl's status shows the node's type from it: no node-name rule is set.
      assertThat(conf.get("aryl.scheduler.gpu-type.nodes", "")).isEmpty();
      cluster.awaitShowingStatus(
          "Aryl types " + node + " " + type,
          WAIT,
          () -> statusOf(cluster, node) != null && type.equals(statusOf(cluster, node).gpuType()));
      NodeStatus status = statusOf(cluster, node);
      System.out.printf("GpuDiscoveryIT: Aryl status of %s: %s%n", node, status);
      assertThat(status.gpuSpeed()).as("gpuSpeed").isEqualTo(speed);
      assertThat(status.gpus()).as("gpus").isEqualTo(gpus);
      assertThat(status.gpuTypeError()).as("gpuTypeError in " + status).isNull();
    }
  }

  /** The test resource {@code gpu/nvidia-smi} for this product, as {@code <dir>/bin/nvidia-smi}. */
  private Path fakeNvidiaSmi(String product, int gpus, int memoryMib) throws IOException {
    String text =
        resource("gpu/nvidia-smi")
            .replace("@GPUS@", Integer.toString(gpus))
            .replace("@PRODUCT@", product)
            .replace("@MEMORY_MIB@", Integer.toString(memoryMib));
    // The plugin runs the configured file only if it is named nvidia-smi.
    return executable(text, Files.createDirectories(dir.resolve("bin")).resolve("nvidia-smi"));
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = GpuDiscoveryIT.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException(name + " is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Path executable(String text, Path file) throws IOException {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    return file;
  }

  /** The RM's attributes of the node, as prefix/name=value. */
  private static Map<String, String> attributes(ArylMiniCluster cluster, NodeId node) {
    Map<String, String> out = new TreeMap<>();
    try {
      for (NodeReport r : cluster.client().getNodeReports(NodeState.RUNNING)) {
        if (r.getNodeId().equals(node) && r.getNodeAttributes() != null) {
          for (NodeAttribute a : r.getNodeAttributes()) {
            out.put(
                a.getAttributeKey().getAttributePrefix()
                    + "/"
                    + a.getAttributeKey().getAttributeName(),
                a.getAttributeValue());
          }
        }
      }
    } catch (YarnException | IOException e) {
      // not answering yet: no attributes
    }
    return out;
  }

  /**
   * The node's entry in the status, or null while it is not shown or no ResourceManager answers.
   */
  private static NodeStatus statusOf(ArylMiniCluster cluster, String node) {
    try {
      return cluster.status().node(node);
    } catch (IOException e) {
      return null; // not answering yet
    }
  }
}
