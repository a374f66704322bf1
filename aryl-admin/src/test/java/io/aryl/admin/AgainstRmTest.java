package io.aryl.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The commands against a stand-in ResourceManager web app (the JDK's HTTP server) and against none
 * at all.
 */
class AgainstRmTest {
  private HttpServer rm;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile int answerStatus = 200;
  private volatile String answerBody = ViewsTest.STATUS;

  @BeforeEach
  void start() throws IOException {
    rm =
        HttpServer.create(
            new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 0);
    rm.createContext(
        "/",
        x -> {
          String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          requests.add(
              x.getRequestMethod() + " " + x.getRequestURI() + (body.isEmpty() ? "" : " " + body));
          byte[] out = answerBody.getBytes(StandardCharsets.UTF_8);
          x.sendResponseHeaders(answerStatus, out.length);
          x.getResponseBody().write(out);
          x.close();
        });
    rm.start();
  }

  @AfterEach
  void stop() {
    rm.stop(0);
  }

  private String url() {
    return "http://127.0.0.1:" + rm.getAddress().getPort();
  }

  private static String user() throws IOException {
    return UserGroupInformation.getCurrentUser().getShortUserName();
  }

  @Test
  @DisplayName(
      "status and nodes GET the scheduler's resource as the current user (simple auth) and print tables")
  void statusAndNodes() throws Exception {
    Cli status = Cli.run("status", "--rm", url());
    assertThat(status.exit()).as(status.err()).isZero();
    assertThat(status.out())
        .isEqualTo(Views.status(ArylJson.readStatus(ViewsTest.STATUS), Cli.NOW_MS));
    Cli nodes =
        Cli.run(
            "nodes",
            "-D",
            "yarn.resourcemanager.webapp.address=127.0.0.1:" + rm.getAddress().getPort());
    assertThat(nodes.exit()).as(nodes.err()).isZero();
    assertThat(nodes.out()).startsWith("NODE ").contains("gpu-inf-3:45454");
    assertThat(requests)
        .containsExactly(
            "GET " + ArylPaths.STATUS + "?user.name=" + user(),
            "GET " + ArylPaths.STATUS + "?user.name=" + user());
  }

  @Test
  @DisplayName("--json prints the answer as it came")
  void json() {
    Cli r = Cli.run("nodes", "--json", "--rm", url());
    assertThat(r.exit()).isZero();
    assertThat(r.out()).isEqualTo(ViewsTest.STATUS.strip() + "\n");
  }

  @Test
  @DisplayName(
      "reclaim POSTs nodes, the deadline as epoch ms from now, and the GPU type, and prints the reclaim")
  void reclaim() throws Exception {
    answerStatus = 201;
    answerBody =
        "{\"id\":9,\"phase\":\"DRAINING\",\"requested\":2,\"nodes\":[\"n1:1\",\"n2:1\"],"
            + "\"deadlineMs\":"
            + (Cli.NOW_MS + 300_000)
            + ",\"jobs\":{}}";
    Cli r =
        Cli.run("reclaim", "--nodes", "2", "--deadline", "5m", "--gpu-type", "t4", "--rm", url());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(requests)
        .containsExactly(
            "POST "
                + ArylPaths.RECLAIMS
                + "?user.name="
                + user()
                + " {\"nodes\":2,\"deadlineMs\":"
                + (Cli.NOW_MS + 300_000)
                + ",\"gpuType\":\"t4\"}");
    assertThat(r.out())
        .startsWith("RECLAIM       9\n")
        .contains("nodes         n1:1,n2:1\n", "(in 5m0s)");
  }

  @Test
  @DisplayName("reclaim without --deadline leaves the deadline to the scheduler")
  void reclaimDefaultDeadline() throws Exception {
    answerStatus = 201;
    answerBody = "{\"id\":9}";
    assertThat(Cli.run("reclaim", "--nodes", "1", "--rm", url()).exit()).isZero();
    assertThat(requests)
        .containsExactly("POST " + ArylPaths.RECLAIMS + "?user.name=" + user() + " {\"nodes\":1}");
  }

  @Test
  @DisplayName("a refusal exits 1 with the scheduler's error on one line")
  void refused() {
    answerStatus = 400;
    answerBody = "{\"error\": \"asked for 3 loaned node(s), only 2 are loaned\"}";
    Cli r = Cli.run("reclaim", "--nodes", "3", "--rm", url());
    assertThat(r.exit()).isEqualTo(ArylAdmin.REFUSED);
    assertThat(r.err())
        .isEqualTo(
            "aryl-admin reclaim: the ResourceManager at "
                + url()
                + " refused POST"
                + " "
                + ArylPaths.RECLAIMS
                + " (400): asked for 3 loaned node(s), only 2 are loaned\n");
    assertThat(r.out()).isEmpty();
  }

  @Test
  @DisplayName(
      "an answer that is not the status exits 1 naming what was expected and quoting what came")
  void notTheStatus() {
    answerBody = "{\"nodes\": \"many\"}";
    Cli r = Cli.run("nodes", "--rm", url());
    assertThat(r.exit()).isEqualTo(ArylAdmin.REFUSED);
    assertThat(r.err())
        .isEqualTo(
            "aryl-admin nodes: the ResourceManager at "
                + url()
                + " answered GET "
                + ArylPaths.STATUS
                + " (200) with no SchedulerStatus: {\"nodes\": \"many\"}\n");
  }

  @Test
  @DisplayName("a web app without Aryl (an HTML 404) exits 1 quoting the start of the page")
  void notAryl() {
    answerStatus = 404;
    answerBody = "<html>\n<body>Not Found</body>\n</html>";
    Cli r = Cli.run("status", "--rm", url());
    assertThat(r.exit()).isEqualTo(ArylAdmin.REFUSED);
    assertThat(r.err())
        .contains(
            "refused GET " + ArylPaths.STATUS + " (404): <html> <body>Not Found</body> </html>")
        .hasLineCount(1);
  }

  @Test
  @DisplayName("an RM that is down: exit 3, one line naming the address tried, no stack trace")
  void rmDown() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    for (String command : List.of("status", "nodes", "reclaim --nodes 1")) {
      String[] args =
          (command + " -D yarn.resourcemanager.webapp.address=127.0.0.1:" + port).split(" ");
      Cli r = Cli.run(args);
      assertThat(r.exit()).as(command + ": " + r.err()).isEqualTo(ArylAdmin.UNREACHABLE);
      assertThat(r.err())
          .as(command)
          .hasLineCount(1)
          .startsWith(
              "aryl-admin "
                  + command.replaceFirst(" .*", "")
                  + ": no ResourceManager answered (tried http://127.0.0.1:"
                  + port
                  + "): ")
          .contains("connection refused")
          .doesNotContain("user.name")
          .doesNotContain("may have reached");
      assertThat(r.out()).isEmpty();
    }
  }

  @Test
  @DisplayName("with HA, every rm-id's web address is tried and named")
  void haBothDown() throws Exception {
    int a;
    int b;
    try (ServerSocket s1 = new ServerSocket(0);
        ServerSocket s2 = new ServerSocket(0)) {
      a = s1.getLocalPort();
      b = s2.getLocalPort();
    }
    Cli r =
        Cli.run(
            "status",
            "-D",
            "yarn.resourcemanager.ha.enabled=true",
            "-D",
            "yarn.resourcemanager.ha.rm-ids=rm1,rm2",
            "-D",
            "yarn.resourcemanager.webapp.address.rm1=127.0.0.1:" + a,
            "-D",
            "yarn.resourcemanager.webapp.address.rm2=127.0.0.1:" + b);
    assertThat(r.exit()).isEqualTo(ArylAdmin.UNREACHABLE);
    assertThat(r.err())
        .hasLineCount(1)
        .contains("tried http://127.0.0.1:" + a + ", http://127.0.0.1:" + b + ")");
  }

  @Test
  @DisplayName("with HA, the active RM is found among the rm-ids")
  void haFindsActive() throws Exception {
    rm.removeContext("/");
    rm.createContext(
        "/",
        x -> {
          requests.add(x.getRequestURI().getPath());
          byte[] out =
              (x.getRequestURI().getPath().equals("/ws/v1/cluster/info")
                      ? "{\"clusterInfo\":{\"haState\":\"ACTIVE\"}}"
                      : ViewsTest.STATUS)
                  .getBytes(StandardCharsets.UTF_8);
          x.sendResponseHeaders(200, out.length);
          x.getResponseBody().write(out);
          x.close();
        });
    int down;
    try (ServerSocket s = new ServerSocket(0)) {
      down = s.getLocalPort();
    }
    Cli r =
        Cli.run(
            "nodes",
            "-D",
            "yarn.resourcemanager.ha.enabled=true",
            "-D",
            "yarn.resourcemanager.ha.rm-ids=rm1,rm2",
            "-D",
            "yarn.resourcemanager.webapp.address.rm1=127.0.0.1:" + down,
            "-D",
            "yarn.resourcemanager.webapp.address.rm2=127.0.0.1:" + rm.getAddress().getPort());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("gpu-inf-3:45454");
    assertThat(requests).containsExactly("/ws/v1/cluster/info", ArylPaths.STATUS);
  }
}
