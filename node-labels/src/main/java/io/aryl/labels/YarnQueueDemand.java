package io.aryl.labels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.core.loan.LoanPolicy;
import io.aryl.core.model.Checks;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Demand from the inference queue itself: the GPUs it uses and asks for on the inference label
 * ({@code /ws/v1/cluster/scheduler}, per-partition usage: the queue metrics read 0 for labelled queues), as
 * {@code ceil((used + pending) / gpusPerServer)} busy servers, given to the decision as the rate those servers serve
 * (the largest rate whose need under the policy is exactly that many servers).
 */
public final class YarnQueueDemand implements DemandSource {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GPU = "yarn.io/gpu";

  private final URI url;
  private final String queuePath;
  private final String label;
  private final int gpusPerServer;
  private final LoanPolicy policy;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  public YarnQueueDemand(String schedulerUrl, String queuePath, String label, int gpusPerServer, LoanPolicy policy) {
    this.url = URI.create(Checks.notBlank("schedulerUrl", schedulerUrl).replaceAll("/$", "") + "/ws/v1/cluster/scheduler");
    this.queuePath = Checks.notBlank("queuePath", queuePath);
    this.label = Checks.notBlank("label", label);
    this.gpusPerServer = Checks.positive("gpusPerServer", gpusPerServer);
    this.policy = Checks.notNull("policy", policy);
  }

  @Override
  public double rate() throws IOException {
    HttpResponse<String> r;
    try {
      r = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).header("Accept", "application/json")
          .GET().build(), HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted reading " + url, e);
    }
    if (r.statusCode() != 200) {
      throw new IOException(url + " answered " + r.statusCode());
    }
    return rateOfServers(busyServers(JSON.readTree(r.body())));
  }

  /** Servers the queue's used and pending GPUs on the label fill, from a {@code /ws/v1/cluster/scheduler} answer. */
  public int busyServers(JsonNode schedulerInfo) throws IOException {
    JsonNode queue = findQueue(schedulerInfo);
    if (queue == null) {
      throw new IOException("queue " + queuePath + " is not in " + url);
    }
    long gpus = 0;
    for (JsonNode p : queue.path("resources").path("resourceUsagesByPartition")) {
      if (label.equals(p.path("partitionName").asText())) {
        gpus += gpus(p.path("used")) + gpus(p.path("pending"));
      }
    }
    return (int) ((gpus + gpusPerServer - 1) / gpusPerServer);
  }

  /** The largest rate the policy serves with exactly {@code servers} servers. */
  public double rateOfServers(int servers) {
    return servers * policy.capacityPerServer() / (1 + policy.headroom());
  }

  private JsonNode findQueue(JsonNode n) {
    if (n.isObject()) {
      if (queuePath.equals(n.path("queuePath").asText(null))) {
        return n;
      }
      for (JsonNode child : n) {
        JsonNode q = findQueue(child);
        if (q != null) {
          return q;
        }
      }
    } else if (n.isArray()) {
      for (JsonNode child : n) {
        JsonNode q = findQueue(child);
        if (q != null) {
          return q;
        }
      }
    }
    return null;
  }

  private static long gpus(JsonNode resource) {
    JsonNode infos = resource.path("resourceInformations").path("resourceInformation");
    for (JsonNode i : infos) {
      if (GPU.equals(i.path("name").asText())) {
        return i.path("value").asLong();
      }
    }
    return 0;
  }

  @Override
  public String name() {
    return "yarn-queue " + queuePath;
  }
}
