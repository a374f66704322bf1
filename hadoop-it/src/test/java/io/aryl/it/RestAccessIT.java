package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.loan.LoanTargetAccepted;
import io.aryl.api.loan.StaleTarget;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.it.ArylMiniCluster.Http;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may write to Aryl's REST resource, and what a write must look like, on a real ResourceManager
 * with {@code yarn.acl.enable=true}, {@code yarn.admin.acl=admin} and Hadoop's simple HTTP
 * authentication (the caller names itself with {@code user.name}; anonymous callers may read, as
 * the RM's own pages allow): only an admin reclaims or sets the loan target, only the loan
 * controller in force sets it, and a bad body changes nothing.
 */
class RestAccessIT {
  private static final String RECLAIMS = ArylPaths.RECLAIMS;
  private static final String TARGET = ArylPaths.LOAN_TARGET;
  private static final String LOANS = ArylPaths.LOANS;
  private static final String AS_ADMIN = "?user.name=admin";
  private static final String AS_BOB = "?user.name=bob";

  @TempDir Path dir;

  private static YarnConfiguration aclConf(java.io.File workDir) {
    YarnConfiguration conf = ArylMiniCluster.restartableConf(workDir);
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    conf.set(YarnConfiguration.YARN_ADMIN_ACL, "admin");
    conf.set(
        "hadoop.http.filter.initializers",
        "org.apache.hadoop.security.AuthenticationFilterInitializer");
    conf.set("hadoop.http.authentication.type", "simple");
    conf.setBoolean("hadoop.http.authentication.simple.anonymous.allowed", true);
    return conf;
  }

  @Test
  @DisplayName("only a YARN admin reclaims; a non-admin is refused by name and nothing is fenced")
  void onlyAnAdminReclaims() throws Exception {
    try (ArylMiniCluster cluster = ArylMiniCluster.start("rest-acl", aclConf(dir.toFile()), 1, 1)) {
      String lent = lendNodeZero(cluster);

      Http anonymous = cluster.post(RECLAIMS, "{\"nodes\":1}");
      assertThat(anonymous.status()).as(anonymous.body()).isEqualTo(401);
      Http bob = cluster.post(RECLAIMS + AS_BOB, "{\"nodes\":1}");
      assertThat(bob.status()).as(bob.body()).isEqualTo(403);
      assertThat(error(bob)).isEqualTo("user bob is not a YARN admin");
      Http bobTarget = cluster.http("PUT", TARGET + AS_BOB, target(1, "c1", 0));
      assertThat(bobTarget.status()).as(bobTarget.body()).isEqualTo(403);
      // bob with aryl-admin: the same refusal, exit 1, one line; he may still read.
      java.io.File yarnSite = dir.resolve("yarn-site.xml").toFile();
      AdminCommand.writeClientConf(cluster, yarnSite);
      AdminCommand.Run bobAdmin =
          AdminCommand.onClusterAs("bob", yarnSite, "reclaim", "--nodes", "1");
      assertThat(bobAdmin.exit()).as(bobAdmin.out() + bobAdmin.err()).isEqualTo(1);
      assertThat(bobAdmin.err())
          .contains("user bob is not a YARN admin")
          .doesNotContain("Exception")
          .hasLineCount(1);
      AdminCommand.Run bobStatus = AdminCommand.onClusterAs("bob", yarnSite, "nodes");
      assertThat(bobStatus.exit()).as(bobStatus.err()).isZero();
      assertThat(bobStatus.out()).contains(lent);

      SchedulerStatus status = cluster.status();
      assertThat(status.reclaimsInFlight()).as("no reclaim started").isEmpty();
      assertThat(status.node(lent).fenced()).as("nothing fenced").isFalse();
      assertThat(status.loanTarget()).as("bob's target is not in force").isNull();

      // The admin, with aryl-admin: the reclaim as the scheduler answered it.
      AdminCommand.Run admin =
          AdminCommand.onClusterAs("admin", yarnSite, "reclaim", "--nodes", "1", "--json");
      assertThat(admin.exit()).as(admin.out() + admin.err()).isZero();
      assertThat(ArylJson.read(admin.out(), ReclaimStatus.class).nodes()).containsExactly(lent);
      cluster.awaitShowingStatus(
          "node 0 back with inference",
          Duration.ofSeconds(30),
          () -> "inference".equals(cluster.partitionOf(0)));
    }
  }

  @Test
  @DisplayName(
      "the loan controller's target: only an admin sets it, the scheduler lends and reclaims to meet it, and a"
          + " deposed controller's target is refused with both epochs, also after an RM restart")
  void loanTargetIsTheSchedulersToCarryOut() throws Exception {
    try (ArylMiniCluster cluster =
        ArylMiniCluster.start("rest-target", aclConf(dir.toFile()), 1, 1)) {
      String node = cluster.nodeName(0);
      ArylMiniCluster.await(
          "node 0 at home",
          Duration.ofSeconds(30),
          () -> "inference".equals(cluster.partitionOf(0)));
      Http bob = cluster.http("PUT", TARGET + AS_BOB, target(1, "c1", 1));
      assertThat(bob.status()).as(bob.body()).isEqualTo(403);

      Http first = cluster.http("PUT", TARGET + AS_ADMIN, target(1, "c1", 1));
      assertThat(first.status()).as(first.body()).isEqualTo(200);
      LoanTargetAccepted accepted = ArylJson.read(first.body(), LoanTargetAccepted.class);
      assertThat(accepted.target().maxOnLoan()).isEqualTo(1);
      assertThat(accepted.inferenceNodes()).isEqualTo(1);
      cluster.awaitShowingStatus(
          "node 0 lent by the scheduler to meet the target",
          Duration.ofSeconds(30),
          () -> ArylStatus.onLoan(cluster, node) && "training".equals(cluster.partitionOf(0)));
      assertThat(cluster.status().node(node).place()).isEqualTo(NodeStatus.Place.LENT);
      Http byHand = cluster.post(LOANS + AS_ADMIN, "{\"nodes\":[\"" + node + "\"]}");
      assertThat(byHand.status()).as("a controller decides: %s", byHand.body()).isEqualTo(409);

      Http lower = cluster.http("PUT", TARGET + AS_ADMIN, target(2, "c2", 0));
      assertThat(lower.status()).as(lower.body()).isEqualTo(200);
      cluster.awaitShowingStatus(
          "node 0 returned to meet the lower target",
          Duration.ofSeconds(30),
          () -> "inference".equals(cluster.partitionOf(0)));

      Http stale = cluster.http("PUT", TARGET + AS_ADMIN, target(1, "c1", 1));
      assertThat(stale.status()).as(stale.body()).isEqualTo(409);
      StaleTarget answer = ArylJson.read(stale.body(), StaleTarget.class);
      assertThat(answer.epoch()).isEqualTo(1);
      assertThat(answer.currentEpoch()).isEqualTo(2);
      assertThat(answer.error()).contains("loan target of epoch 1 refused", "c2 with epoch 2");

      cluster.restartRm();

      Http afterRestart = cluster.http("PUT", TARGET + AS_ADMIN, target(1, "c1", 1));
      assertThat(afterRestart.status())
          .as("the new RM read the target back: %s", afterRestart.body())
          .isEqualTo(409);
      assertThat(cluster.status().loanTarget().controller()).isEqualTo("c2");
      assertThat(cluster.status().loanTarget().maxOnLoan()).isZero();
    }
  }

  /** A bad request: method, path (query included), body, and what its 400 must say. */
  private record Bad(String name, String method, String path, String body, String says) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static List<Bad> badRequests(long now, String lent, String trainingNode) {
    String pad = "x".repeat(5000);
    List<Bad> t = new ArrayList<>();
    t.add(new Bad("empty body", "POST", RECLAIMS, "", "body is empty"));
    t.add(new Bad("not JSON", "POST", RECLAIMS, "{nodes: 1}", "body is not JSON"));
    t.add(
        new Bad(
            "an array",
            "POST",
            RECLAIMS,
            "[1]",
            "body must be a JSON object like {\"nodes\": 2}, was [1]"));
    t.add(new Bad("a string", "POST", RECLAIMS, "\"two\"", "was \"two\""));
    t.add(
        new Bad(
            "two objects", "POST", RECLAIMS, "{\"nodes\":1} {\"nodes\":2}", "body is not JSON"));
    t.add(
        new Bad(
            "a field twice",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"nodes\":2}",
            "Duplicate field 'nodes'"));
    t.add(
        new Bad(
            "an unknown field",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"node\":1}",
            "unknown field 'node'"));
    t.add(new Bad("no nodes", "POST", RECLAIMS, "{}", "nodes is required"));
    t.add(new Bad("nodes null", "POST", RECLAIMS, "{\"nodes\":null}", "nodes is required"));
    t.add(
        new Bad(
            "nodes as text",
            "POST",
            RECLAIMS,
            "{\"nodes\":\"1\"}",
            "nodes must be an integer in [1, 10000], was \"1\""));
    t.add(
        new Bad(
            "nodes a fraction",
            "POST",
            RECLAIMS,
            "{\"nodes\":1.5}",
            "nodes must be an integer in [1, 10000], was 1.5"));
    t.add(new Bad("nodes zero", "POST", RECLAIMS, "{\"nodes\":0}", "was 0"));
    t.add(new Bad("nodes negative", "POST", RECLAIMS, "{\"nodes\":-3}", "was -3"));
    t.add(new Bad("nodes absurd", "POST", RECLAIMS, "{\"nodes\":1000000}", "was 1000000"));
    t.add(new Bad("nodes beyond a long", "POST", RECLAIMS, "{\"nodes\":1e30}", "was 1.0E30"));
    t.add(new Bad("nodes a boolean", "POST", RECLAIMS, "{\"nodes\":true}", "was true"));
    t.add(
        new Bad(
            "more nodes than on loan",
            "POST",
            RECLAIMS,
            "{\"nodes\":5}",
            "reclaim of 5 node(s) refused"));
    t.add(
        new Bad(
            "deadline negative",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"deadlineMs\":-5}",
            "deadlineMs must be an integer"));
    t.add(
        new Bad(
            "deadline in seconds",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"deadlineMs\":" + now / 1000 + "}",
            "deadlineMs must be epoch milliseconds within an hour before and 7 days after now"));
    t.add(
        new Bad(
            "deadline a year out",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"deadlineMs\":" + (now + 365L * 86_400_000L) + "}",
            "was " + (now + 365L * 86_400_000L)));
    t.add(
        new Bad(
            "deadline as text",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"deadlineMs\":\"5m\"}",
            "was \"5m\""));
    t.add(
        new Bad(
            "gpuType a number",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"gpuType\":7}",
            "gpuType must be a name of 1-64"));
    t.add(
        new Bad(
            "gpuType empty",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"gpuType\":\"\"}",
            "gpuType must be a name"));
    t.add(
        new Bad(
            "gpuType markup",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"gpuType\":\"<b>t4</b>\"}",
            "was \"<b>t4</b>\""));
    t.add(
        new Bad(
            "gpuType undeclared",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"gpuType\":\"h100\"}",
            "aryl.scheduler.gpu-types"));
    t.add(
        new Bad(
            "body too long",
            "POST",
            RECLAIMS,
            "{\"nodes\":1,\"gpuType\":\"" + pad + "\"}",
            "longer than 4096 bytes"));
    t.add(
        new Bad(
            "arguments in the query",
            "POST",
            RECLAIMS + AS_ADMIN + "&nodes=1",
            "{\"nodes\":1}",
            "unknown query parameter 'nodes'"));
    t.add(
        new Bad(
            "target epoch zero",
            "PUT",
            TARGET,
            target(0, "c3", 1),
            "epoch must be an integer in [1, "));
    t.add(
        new Bad(
            "target epoch as text",
            "PUT",
            TARGET,
            "{\"epoch\":\"3\",\"controller\":\"c3\",\"maxOnLoan\":1}",
            "was \"3\""));
    t.add(
        new Bad(
            "target without controller",
            "PUT",
            TARGET,
            "{\"epoch\":3,\"maxOnLoan\":1}",
            "controller must be printable text"));
    t.add(
        new Bad(
            "target too long",
            "PUT",
            TARGET,
            "{\"epoch\":3,\"controller\":\"c3\",\"maxOnLoan\":1,\"reason\":\""
                + "y".repeat(9_000)
                + "\"}",
            "longer than 8192 bytes"));
    t.add(new Bad("target an array", "PUT", TARGET, "[]", "body must be a JSON object"));
    t.add(
        new Bad(
            "target without epoch",
            "PUT",
            TARGET,
            "{\"controller\":\"c3\",\"maxOnLoan\":1}",
            "epoch is required"));
    t.add(
        new Bad(
            "target below zero",
            "PUT",
            TARGET,
            "{\"epoch\":3,\"controller\":\"c3\",\"maxOnLoan\":-1}",
            "maxOnLoan must be an integer in [0, 100000], was -1"));
    t.add(
        new Bad(
            "target naming nodes",
            "PUT",
            TARGET,
            "{\"epoch\":3,\"controller\":\"c3\",\"maxOnLoan\":1,\"nodes\":[\"x\"]}",
            "unknown field 'nodes'"));
    t.add(
        new Bad(
            "lend none",
            "POST",
            LOANS,
            "{\"nodes\":[]}",
            "nodes must be a list of 1-1000 names, was []"));
    t.add(
        new Bad(
            "lend a training node",
            "POST",
            LOANS,
            "{\"nodes\":[\"" + trainingNode + "\"]}",
            "node " + trainingNode + " cannot be lent: it is not an inference node"));
    t.add(
        new Bad(
            "lend a lent node",
            "POST",
            LOANS,
            "{\"nodes\":[\"" + lent + "\"]}",
            "node " + lent + " cannot be lent: it is lent already"));
    return t;
  }

  @Test
  @DisplayName(
      "bad bodies and parameters are a 400 naming the field and the value, and nothing changes")
  void badRequestsChangeNothing() throws Exception {
    try (ArylMiniCluster cluster = ArylMiniCluster.start("rest-bad", aclConf(dir.toFile()), 1, 1)) {
      String lent = lendNodeZero(cluster);
      List<Bad> table = badRequests(System.currentTimeMillis(), lent, cluster.nodeName(1));
      assertThat(table).hasSizeGreaterThanOrEqualTo(20);
      List<String> wrong = new ArrayList<>();
      for (Bad b : table) {
        String path = b.path().contains("?") ? b.path() : b.path() + AS_ADMIN;
        Http a = cluster.http(b.method(), path, b.body());
        String said = a.status() == 400 ? error(a) : "";
        if (a.status() != 400 || !said.contains(b.says())) {
          wrong.add(b.name() + ": " + a.status() + " " + a.body());
        }
      }
      assertThat(wrong).as("requests not refused as specified").isEmpty();

      SchedulerStatus status = cluster.status();
      assertThat(status.reclaimsInFlight()).isEmpty();
      assertThat(status.reclaimsDone()).isEmpty();
      assertThat(status.node(lent).fenced()).isFalse();
      assertThat(ArylStatus.onLoan(cluster, lent)).isTrue();
      assertThat(status.loanTarget()).as("no target set").isNull();
    }
  }

  /** Lends node 0 to training and waits until Aryl shows the loan; the node's name. */
  private static String lendNodeZero(ArylMiniCluster cluster) throws Exception {
    String lent = cluster.nodeName(0);
    cluster.lend(0);
    cluster.awaitShowingStatus("node 0 on loan", () -> ArylStatus.onLoan(cluster, lent));
    return lent;
  }

  /** A loan controller leader's target, as it sends one. */
  private static String target(long epoch, String controller, int maxOnLoan) {
    return "{\"epoch\":"
        + epoch
        + ",\"controller\":\""
        + controller
        + "\",\"maxOnLoan\":"
        + maxOnLoan
        + ",\"reason\":\"test\"}";
  }

  private static String error(Http answer) throws Exception {
    return ArylStatus.error(answer);
  }
}
