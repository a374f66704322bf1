package io.aryl.labels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.core.loan.LoanPolicy;
import io.aryl.core.model.Checks;
import io.aryl.labels.ActiveRmWebApp.Answer;
import java.io.IOException;

/**
 * Demand from the inference queue itself: the GPUs it uses and asks for on the inference label
 * ({@code /ws/v1/cluster/scheduler}, per-partition usage: the queue metrics read 0 for labelled
 * queues), as {@code ceil((used + pending) / gpusPerServer)} busy servers, given to the decision as
 * the rate those servers serve (the largest rate whose need under the policy is exactly that many
 * servers). It reads the active ResourceManager ({@link ActiveRmWebApp}): a standby's scheduler
 * knows no queue usage.
 */
public final class YarnQueueDemand implements DemandSource {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GPU = "yarn.io/gpu";
  private static final String SCHEDULER = "/ws/v1/cluster/scheduler";

  private final ActiveRmWebApp web;
  private final String queuePath;
  private final String label;
  private final int gpusPerServer;
  private final LoanPolicy policy;

  /**
   * @param schedulerUrl the RM web app's base URL, or a comma-separated list of candidates
   */
  public YarnQueueDemand(
      String schedulerUrl, String queuePath, String label, int gpusPerServer, LoanPolicy policy) {
    this(
        ActiveRmWebApp.of(
            ActiveRmWebApp.parseCandidates(
                "schedulerUrl", Checks.notBlank("schedulerUrl", schedulerUrl))),
        queuePath,
        label,
        gpusPerServer,
        policy);
  }

  public YarnQueueDemand(
      ActiveRmWebApp web, String queuePath, String label, int gpusPerServer, LoanPolicy policy) {
    this.web = Checks.notNull("web", web);
    this.queuePath = Checks.notBlank("queuePath", queuePath);
    this.label = Checks.notBlank("label", label);
    this.gpusPerServer = Checks.positive("gpusPerServer", gpusPerServer);
    this.policy = Checks.notNull("policy", policy);
  }

  @Override
  public double rate() throws IOException {
    Answer a = web.get(SCHEDULER);
    if (a.status() != 200) {
      throw new IOException(a.rm() + SCHEDULER + " answered " + a.status());
    }
    return rateOfServers(busyServers(JSON.readTree(a.body())));
  }

  /**
   * Servers the queue's used and pending GPUs on the label fill, from a {@code
   * /ws/v1/cluster/scheduler} answer.
   */
  public int busyServers(JsonNode schedulerInfo) throws IOException {
    JsonNode queue = findQueue(schedulerInfo);
    if (queue == null) {
      throw new IOException("queue " + queuePath + " is not in " + SCHEDULER);
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
