package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.ErrorBody;
import io.aryl.api.reclaim.ReclaimRequest;
import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Reading Aryl's REST resource ({@code GET /ws/v1/cluster/aryl}) and asking it for reclaims, in
 * tests: through the records of aryl-api, as aryl-admin and the loan controller do.
 */
final class ArylStatus {
  private ArylStatus() {}

  /**
   * The status, or null when no ResourceManager answers it (a condition polled across a restart).
   */
  static SchedulerStatus orNull(ArylMiniCluster cluster) {
    try {
      return cluster.status();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The workers of the application that the last planning round saw running ({@code
   * actualWorkers}), or -1 while the status does not list it or no ResourceManager answers.
   */
  static int actualWorkers(ArylMiniCluster cluster, ApplicationId appId) {
    SchedulerStatus s = orNull(cluster);
    ApplicationStatus a = s == null ? null : s.application(appId.toString());
    return a == null ? -1 : a.actualWorkers();
  }

  /** Whether the status shows the node owned by inference and on loan to training. */
  static boolean onLoan(ArylMiniCluster cluster, String name) {
    SchedulerStatus s = orNull(cluster);
    NodeStatus n = s == null ? null : s.node(name);
    return n != null && n.onLoan();
  }

  /** The done reclaims with this id. */
  static List<ReclaimStatus> doneWithId(SchedulerStatus status, long id) {
    return status.reclaimsDone().stream().filter(r -> r.id() == id).toList();
  }

  /**
   * Asks for {@code nodes} nodes back ({@code deadlineMs} 0: the default deadline) and returns the
   * 201's reclaim.
   */
  static ReclaimStatus reclaim(ArylMiniCluster cluster, int nodes, long deadlineMs)
      throws IOException {
    String body = ArylJson.write(new ReclaimRequest(nodes, deadlineMs, null));
    ArylMiniCluster.Http answer = cluster.post(ArylPaths.RECLAIMS, body);
    assertThat(answer.status())
        .as("POST %s %s answered %s", ArylPaths.RECLAIMS, body, answer.body())
        .isEqualTo(201);
    return ArylJson.read(answer.body(), ReclaimStatus.class);
  }

  /** The {@code error} of a refusal. */
  static String error(ArylMiniCluster.Http answer) throws IOException {
    return ArylJson.read(answer.body(), ErrorBody.class).error();
  }

  static long roundMs(YarnConfiguration conf) {
    return conf.getLong("aryl.scheduler.round-interval-ms", -1);
  }

  static long graceMs(YarnConfiguration conf) {
    return conf.getLong("aryl.scheduler.shrink-grace-ms", -1);
  }
}
