package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/** Reading Aryl's REST resource ({@code GET /ws/v1/cluster/aryl}) and asking it for reclaims, in tests. */
final class ArylStatus {
  static final String RECLAIMS = "/ws/v1/cluster/aryl/reclaims";
  private static final ObjectMapper JSON = new ObjectMapper();

  private ArylStatus() {}

  /** The status, or null when no ResourceManager answers it (a condition polled across a restart). */
  static JsonNode orNull(ArylMiniCluster cluster) {
    try {
      return cluster.status();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The entry of {@code nodes[]} for the node, or a missing node. */
  static JsonNode node(JsonNode status, String name) {
    for (JsonNode n : status.path("nodes")) {
      if (name.equals(n.path("node").asText())) {
        return n;
      }
    }
    return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }

  /**
   * The workers of the application that the last planning round saw running ({@code actualWorkers}), or -1 while the
   * status does not list it or no ResourceManager answers.
   */
  static int actualWorkers(ArylMiniCluster cluster, ApplicationId appId) {
    JsonNode s = orNull(cluster);
    if (s != null) {
      for (JsonNode a : s.path("applications")) {
        if (a.path("application").asText().equals(appId.toString())) {
          return a.path("actualWorkers").asInt();
        }
      }
    }
    return -1;
  }

  /** Whether the status shows the node owned by inference and on loan to training. */
  static boolean onLoan(ArylMiniCluster cluster, String name) {
    JsonNode s = orNull(cluster);
    if (s == null) {
      return false;
    }
    JsonNode n = node(s, name);
    return "inference".equals(n.path("owner").asText()) && n.path("loaned").asBoolean();
  }

  static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  static Map<String, String> textMap(JsonNode object) {
    Map<String, String> out = new TreeMap<>();
    object.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }

  /** The done reclaims with this id. */
  static List<JsonNode> doneWithId(JsonNode status, long id) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode r : status.path("reclaimsDone")) {
      if (r.path("id").asLong() == id) {
        out.add(r);
      }
    }
    return out;
  }

  /** Asks for {@code nodes} nodes back ({@code deadlineMs} 0: the default deadline) and returns the 201's reclaim. */
  static JsonNode reclaim(ArylMiniCluster cluster, int nodes, long deadlineMs) throws IOException {
    String body = deadlineMs > 0 ? "{\"nodes\":" + nodes + ",\"deadlineMs\":" + deadlineMs + "}"
        : "{\"nodes\":" + nodes + "}";
    ArylMiniCluster.Http answer = cluster.post(RECLAIMS, body);
    assertThat(answer.status()).as("POST %s %s answered %s", RECLAIMS, body, answer.body()).isEqualTo(201);
    return JSON.readTree(answer.body());
  }

  static long roundMs(YarnConfiguration conf) {
    return conf.getLong("aryl.scheduler.round-interval-ms", -1);
  }

  static long graceMs(YarnConfiguration conf) {
    return conf.getLong("aryl.scheduler.shrink-grace-ms", -1);
  }
}
