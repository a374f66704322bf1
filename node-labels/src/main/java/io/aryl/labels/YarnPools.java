package io.aryl.labels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.client.ClientRMProxy;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol;
import org.apache.hadoop.yarn.server.api.protocolrecords.ReplaceLabelsOnNodeRequest;

/**
 * {@link Pools} on a real ResourceManager: node reports through {@link YarnClient}, relabelling through the RM admin
 * protocol, reclaims through the scheduler's REST resource ({@code /ws/v1/cluster/aryl}).
 */
public final class YarnPools implements Pools, AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final YarnClient client;
  private final ResourceManagerAdministrationProtocol admin;
  private final String schedulerUrl;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  public YarnPools(Configuration conf, String schedulerUrl) throws IOException {
    this.schedulerUrl = schedulerUrl.endsWith("/") ? schedulerUrl.substring(0, schedulerUrl.length() - 1)
        : schedulerUrl;
    YarnConfiguration yarn = new YarnConfiguration(conf);
    this.client = YarnClient.createYarnClient();
    client.init(yarn);
    client.start();
    this.admin = ClientRMProxy.createRMProxy(yarn, ResourceManagerAdministrationProtocol.class);
  }

  /** The RM web app's base URL: {@code aryl.labels.scheduler.url}, else from yarn.resourcemanager.webapp.address. */
  public static String schedulerUrl(Configuration conf) {
    String url = conf.getTrimmed(LabelsConf.SCHEDULER_URL.key(), "");
    return url.isEmpty() ? "http://" + WebAddress.of(conf) : url;
  }

  @Override
  public List<PoolNode> nodes() throws IOException {
    try {
      List<PoolNode> out = new ArrayList<>();
      for (NodeReport r : client.getNodeReports(NodeState.RUNNING)) {
        Set<String> labels = r.getNodeLabels() == null ? Set.of() : r.getNodeLabels();
        out.add(new PoolNode(r.getNodeId().toString(), labels, r.getNumContainers()));
      }
      return out;
    } catch (YarnException e) {
      throw new IOException("node reports: " + e.getMessage(), e);
    }
  }

  @Override
  public void relabel(String node, String label) throws IOException {
    try {
      admin.replaceLabelsOnNode(ReplaceLabelsOnNodeRequest.newInstance(Map.of(NodeId.fromString(node),
          Set.of(label))));
    } catch (YarnException e) {
      throw new IOException("relabel " + node + " to " + label + ": " + e.getMessage(), e);
    }
  }

  @Override
  public SchedulerReclaim requestReclaim(int nodes, long deadlineMs) throws IOException, ReclaimRefusedException {
    String body = JSON.writeValueAsString(Map.of("nodes", nodes, "deadlineMs", deadlineMs));
    HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(schedulerUrl + "/ws/v1/cluster/aryl/reclaims"))
        .header("Content-Type", "application/json").header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    if (r.statusCode() == 201) {
      return reclaim(JSON.readTree(r.body()));
    }
    if (r.statusCode() == 400) {
      JsonNode error = JSON.readTree(r.body()).get("error");
      throw new ReclaimRefusedException(error == null ? r.body() : error.asText());
    }
    throw new IOException("POST /ws/v1/cluster/aryl/reclaims answered " + r.statusCode() + ": " + r.body());
  }

  @Override
  public void reportStatus(Map<String, Object> status) throws IOException {
    HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(schedulerUrl + "/ws/v1/cluster/aryl/loan-controller"))
        .header("Content-Type", "application/json").header("Accept", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(status))).build());
    if (r.statusCode() != 200) {
      throw new IOException("PUT /ws/v1/cluster/aryl/loan-controller answered " + r.statusCode() + ": " + r.body());
    }
  }

  @Override
  public List<SchedulerReclaim> reclaims() throws IOException {
    HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(schedulerUrl + "/ws/v1/cluster/aryl"))
        .header("Accept", "application/json").GET().build());
    if (r.statusCode() != 200) {
      throw new IOException("GET /ws/v1/cluster/aryl answered " + r.statusCode() + ": " + r.body());
    }
    JsonNode status = JSON.readTree(r.body());
    List<SchedulerReclaim> out = new ArrayList<>();
    for (String field : List.of("reclaimsInFlight", "reclaimsDone")) {
      for (JsonNode n : status.path(field)) {
        out.add(reclaim(n));
      }
    }
    return out;
  }

  private static SchedulerReclaim reclaim(JsonNode n) {
    List<String> nodes = new ArrayList<>();
    n.path("nodes").forEach(x -> nodes.add(x.asText()));
    return new SchedulerReclaim(n.path("id").asLong(), n.path("phase").asText(), nodes, n.path("requestedMs").asLong(),
        n.path("deadlineMs").asLong());
  }

  private HttpResponse<String> send(HttpRequest request) throws IOException {
    try {
      return http.send(HttpRequest.newBuilder(request, (k, v) -> true).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + request.uri(), e);
    }
  }

  @Override
  public void close() {
    client.stop();
    org.apache.hadoop.ipc.RPC.stopProxy(admin);
  }

  /** The RM web app address from a YARN configuration. */
  static final class WebAddress {
    private WebAddress() {}

    static String of(Configuration conf) {
      return new YarnConfiguration(conf).get(YarnConfiguration.RM_WEBAPP_ADDRESS,
          YarnConfiguration.DEFAULT_RM_WEBAPP_ADDRESS);
    }
  }
}
