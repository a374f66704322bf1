package io.aryl.it;

import static io.aryl.it.ArylMiniCluster.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.it.ArylMiniCluster.Http;
import io.aryl.yarn.ArylScheduler;
import io.aryl.yarn.web.ArylWebServices;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Aryl dropped into a ResourceManager configured from exactly the conf-templates files: the stock
 * Capacity Scheduler page and REST views keep working next to Aryl's own REST resource and metrics.
 * One cluster: 2 inference nodes, 2 training nodes (8 GPUs each) and one unlabelled node for
 * ApplicationMasters.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName(
    "Drop-in: the templates give a ResourceManager running Aryl, with stock views and Aryl's REST and JMX")
class DropInIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;

  private ArylMiniCluster cluster;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = ArylMiniCluster.start("dropin", ArylMiniCluster.testConf(dir.toFile()), 2, 2);
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private JsonNode json(Http h) {
    try {
      return JSON.readTree(h.body());
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + h.body(), e);
    }
  }

  private JsonNode getJson(String path) throws IOException {
    Http h = cluster.get(path);
    assertThat(h.status()).as("GET %s: %s", path, h.body()).isEqualTo(200);
    return json(h);
  }

  @Test
  @DisplayName(
      "the scheduler is ArylScheduler with Aryl enabled and the REST class from the templates")
  void schedulerIsAryl() {
    assertThat(cluster.scheduler()).isExactlyInstanceOf(ArylScheduler.class);
    assertThat(cluster.aryl().running()).isTrue();
    assertThat(cluster.aryl().metrics()).isNotNull();
    assertThat(cluster.rm().getConfig().get(YarnConfiguration.YARN_WEBAPP_CUSTOM_WEBSERVICE_CLASS))
        .isEqualTo(ArylWebServices.class.getName());
  }

  @Test
  @DisplayName(
      "the Capacity Scheduler page /cluster/scheduler answers 200 and shows both partitions and the queues")
  void capacitySchedulerPageStays() throws Exception {
    Http page = cluster.get("/cluster/scheduler");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.body())
        .as("scheduler page HTML")
        .contains("Partition: inference &lt;memory:32768, vCores:32, yarn.io/gpu: 16&gt;")
        .contains("Partition: training &lt;memory:32768, vCores:32, yarn.io/gpu: 16&gt;")
        .contains("'root.inference' Queue Status for Partition 'inference'")
        .contains("'root.training' Queue Status for Partition 'training'");
  }

  @Test
  @DisplayName(
      "REST /ws/v1/cluster/scheduler answers 200: type capacityScheduler with both partitions and"
          + " the default, inference and training queues")
  void capacitySchedulerRestStays() throws Exception {
    JsonNode info = getJson("/ws/v1/cluster/scheduler").path("scheduler").path("schedulerInfo");
    assertThat(info.path("type").asText()).isEqualTo("capacityScheduler");
    List<String> partitions = new ArrayList<>();
    info.path("capacities")
        .path("queueCapacitiesByPartition")
        .forEach(p -> partitions.add(p.path("partitionName").asText()));
    assertThat(partitions).contains("inference", "training");
    List<String> queues = new ArrayList<>();
    info.path("queues").path("queue").forEach(q -> queues.add(q.path("queueName").asText()));
    // root.default serves what submits to "default" (MapReduce, Spark, yarn's own tools)
    assertThat(queues).containsExactlyInAnyOrder("default", "inference", "training");
  }

  @Test
  @DisplayName(
      "GET /ws/v1/cluster/aryl answers the status, no field beyond the record: 5 nodes, 2 labelled"
          + " inference, plan and reclaim lists")
  void arylStatus() throws Exception {
    Http h = cluster.get(ArylPaths.STATUS);
    assertThat(h.status()).as(h.body()).isEqualTo(200);
    SchedulerStatus s = ArylJson.strictReader(SchedulerStatus.class).readValue(h.body());
    assertThat(s.enabled()).isTrue();
    assertThat(s.nodes()).hasSize(5);
    List<String> labels = s.nodes().stream().map(NodeStatus::label).toList();
    assertThat(labels).filteredOn("inference"::equals).hasSize(2);
    assertThat(labels).filteredOn("training"::equals).hasSize(2);
    assertThat(s.nodes()).allSatisfy(n -> assertThat(n.loaned()).as("%s loaned", n).isFalse());
    assertThat(s.loanedNodes()).isEmpty();
    assertThat(s.plan()).as("plan in %s", s).isNotNull();
    assertThat(s.recovery()).isNotNull();
    assertThat(s.store()).isNotNull();
    assertThat(s.reclaimsInFlight()).isEmpty();
    assertThat(s.reclaimsDone()).isEmpty();
  }

  @Test
  @DisplayName(
      "an elastic job's entry in /ws/v1/cluster/aryl shows target and actual workers reaching 4")
  void elasticJobInStatus() throws Exception {
    try (TestJob job =
        TestJob.submit(cluster, "elastic", "training", TestJob.shape(1, 4, 1, 60), 1, true)) {
      job.askWorkers(4);
      String id = job.id().toString();
      AtomicReference<ApplicationStatus> last = new AtomicReference<>();
      await(
          "targetWorkers and actualWorkers of " + id + " reach 4",
          Duration.ofSeconds(45),
          () -> {
            try {
              ApplicationStatus entry = cluster.status().application(id);
              last.set(entry);
              return entry != null && entry.targetWorkers() == 4 && entry.actualWorkers() == 4;
            } catch (IOException e) {
              return false;
            }
          });
      ApplicationStatus entry = last.get();
      assertThat(entry.minWorkers()).isEqualTo(1);
      assertThat(entry.maxWorkers()).isEqualTo(4);
      assertThat(entry.gpusPerWorker()).isEqualTo(1);
      // The scheduler counts containers from allocation on; the AM holds them after its next
      // heartbeat.
      await("the job holds its 4 workers", Duration.ofSeconds(30), () -> job.workers() == 4);
    }
  }

  @Test
  @DisplayName(
      "stock endpoints still answer next to Aryl's: /ws/v1/cluster/info and /ws/v1/cluster/nodes")
  void stockEndpointsStay() throws Exception {
    JsonNode info = getJson("/ws/v1/cluster/info").path("clusterInfo");
    assertThat(info.path("state").asText()).isEqualTo("STARTED");
    assertThat(info.path("haState").asText()).isEqualTo("ACTIVE");
    JsonNode nodes = getJson("/ws/v1/cluster/nodes").path("nodes").path("node");
    assertThat(nodes).hasSize(5);
    List<String> labels = new ArrayList<>();
    nodes.forEach(n -> n.path("nodeLabels").forEach(l -> labels.add(l.asText())));
    assertThat(labels).containsExactlyInAnyOrder("inference", "inference", "training", "training");
  }

  @Test
  @DisplayName(
      "JMX Hadoop:service=ResourceManager,name=ArylScheduler publishes loans, reclaims, shrinks and rounds")
  void jmxMetrics() throws Exception {
    // Rounds run every 250 ms in tests: wait for one to be counted.
    AtomicReference<JsonNode> bean = new AtomicReference<>();
    await(
        "a planning round counted in JMX",
        Duration.ofSeconds(30),
        () -> {
          try {
            JsonNode beans =
                getJson("/jmx?qry=Hadoop:service=ResourceManager,name=ArylScheduler").path("beans");
            bean.set(beans.size() == 1 ? beans.get(0) : null);
            return bean.get() != null && bean.get().path("PlanningRoundNumOps").asLong() > 0;
          } catch (IOException e) {
            return false;
          }
        });
    JsonNode b = bean.get();
    assertThat(b.path("name").asText())
        .isEqualTo("Hadoop:service=ResourceManager,name=ArylScheduler");
    for (String metric :
        List.of(
            "LoanedNodes",
            "LoanedGpus",
            "ReclaimsInFlight",
            "ReclaimsStarted",
            "ReclaimsFinished",
            "ReclaimsLate",
            "ContainersShrunk",
            "ContainersPreempted",
            "GpuSecondsLost",
            "PlanningRoundNumOps",
            "PlanningRoundAvgTime")) {
      assertThat(b.has(metric)).as("%s in %s", metric, b).isTrue();
    }
    assertThat(b.path("LoanedNodes").asInt()).isZero();
    assertThat(b.path("ReclaimsStarted").asLong()).isZero();
  }

  @Test
  @DisplayName("POST /ws/v1/cluster/aryl/reclaims with no loaned node answers 400 with the reason")
  void reclaimWithoutLoansIsRefused() throws Exception {
    Http h = cluster.post(ArylPaths.RECLAIMS, "{\"nodes\": 1}");
    assertThat(h.status()).as(h.body()).isEqualTo(400);
    String error = ArylStatus.error(h);
    assertThat(error).contains("reclaim of 1 node(s) refused", "but only 0 are loaned");
    assertThat(cluster.status().reclaimsInFlight()).isEmpty();
    assertThat(cluster.aryl().metrics().reclaimsStarted()).isZero();
  }

  @Test
  @DisplayName(
      "POST /ws/v1/cluster/aryl/reclaims with a malformed body answers 400 with the reason")
  void malformedReclaimIsRefused() throws Exception {
    Http notJson = cluster.post(ArylPaths.RECLAIMS, "{nodes: ");
    assertThat(notJson.status()).as(notJson.body()).isEqualTo(400);
    assertThat(ArylStatus.error(notJson)).startsWith("body is not JSON");

    Http noNodes = cluster.post(ArylPaths.RECLAIMS, "{\"nodes\": 0}");
    assertThat(noNodes.status()).as(noNodes.body()).isEqualTo(400);
    assertThat(ArylStatus.error(noNodes)).contains("nodes must be an integer in [1, 10000], was 0");

    Http notObject = cluster.post(ArylPaths.RECLAIMS, "[1]");
    assertThat(notObject.status()).as(notObject.body()).isEqualTo(400);
    assertThat(ArylStatus.error(notObject)).contains("body must be a JSON object");
  }
}
