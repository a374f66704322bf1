package io.aryl.labels;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.loan.LoanTargetAccepted;
import io.aryl.api.status.LoanTargetStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A ResourceManager's web app as the loan controller meets it, on a real local HTTP server. Active,
 * it answers {@code /ws/v1/cluster/info} and ArylScheduler's resource ({@code GET
 * /ws/v1/cluster/aryl}, {@code PUT .../loan-target}). Standby, it answers {@code
 * /ws/v1/cluster/info} with {@code haState STANDBY} and everything else as Hadoop 3.5.0's {@code
 * RMWebAppFilter} does on a standby: a 307 to the active RM, a 307 with a {@code Refresh} header
 * when it knows no active RM, or the plain "There is no active RM right now." page.
 */
final class FakeRmWebApp implements AutoCloseable {
  enum Ha {
    ACTIVE,
    STANDBY
  }

  /** What a standby answers for a path it does not serve itself. */
  enum StandbyAnswer {
    REDIRECT,
    REFRESH,
    NO_ACTIVE_PAGE
  }

  private final HttpServer server;
  volatile Ha ha;
  volatile StandbyAnswer standbyAnswer = StandbyAnswer.REDIRECT;

  /** Where a standby's redirect points: the active RM's base URL. */
  volatile String activeLocation = "http://127.0.0.1:1";

  /** Body of {@code GET /ws/v1/cluster/aryl} while active. */
  volatile String arylStatus = "{\"enabled\": true, \"nodes\": []}";

  volatile int targetStatus = 200;

  /** The answer to a target, as the scheduler gives one. */
  volatile String targetBody =
      ArylJson.write(
          new LoanTargetAccepted(
              new LoanTargetStatus(3, "a", 2, 0, 10, "rate 100.0 rps", 11, 1), 4, false));

  /** Reads every call and hangs up without an answer, as an RM dying in the middle of it. */
  volatile boolean hangsUp;

  /** Every call, as "METHOD path", and the bodies received, in order. */
  final List<String> calls = new CopyOnWriteArrayList<>();

  final List<String> bodies = new CopyOnWriteArrayList<>();

  FakeRmWebApp(Ha ha) throws IOException {
    this.ha = ha;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  private boolean closed;

  /** The RM dies: from now on its port refuses connections. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      server.stop(0);
    }
  }

  long calls(String call) {
    return calls.stream().filter(call::equals).count();
  }

  private void handle(HttpExchange x) throws IOException {
    String path = x.getRequestURI().getPath();
    String call = x.getRequestMethod() + " " + path;
    calls.add(call);
    bodies.add(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    if (hangsUp) {
      x.close();
      return;
    }
    if (path.equals("/ws/v1/cluster/info")) {
      send(
          x,
          200,
          "{\"clusterInfo\": {\"id\": 1, \"haState\": \""
              + ha
              + "\", \"haZooKeeperConnectionState\":"
              + " \"CONNECTED\"}}");
    } else if (ha == Ha.STANDBY) {
      switch (standbyAnswer) {
        case REDIRECT -> {
          x.getResponseHeaders().set("Location", activeLocation + path);
          send(x, 307, "This is standby RM. The redirect url is: " + path);
        }
        case REFRESH -> {
          x.getResponseHeaders()
              .set("Refresh", "5;url=" + url() + path + "?next.refresh.interval=1");
          send(
              x,
              307,
              "Can not find any active RM. Will retry in next 5 seconds.\nHA Zookeeper Connection State:"
                  + " CONNECTED");
        }
        case NO_ACTIVE_PAGE ->
            send(
                x,
                200,
                "There is no active RM right now.\nHA Zookeeper Connection State:" + " CONNECTED");
      }
    } else if (call.equals("GET " + ArylPaths.STATUS)) {
      send(x, 200, arylStatus);
    } else if (call.equals("PUT " + ArylPaths.LOAN_TARGET)) {
      send(x, targetStatus, targetBody);
    } else {
      send(x, 404, "{\"error\": \"no such resource " + path + "\"}");
    }
  }

  private static void send(HttpExchange x, int status, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders()
        .set("Content-Type", body.startsWith("{") ? "application/json" : "text/plain");
    x.sendResponseHeaders(status, b.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(b);
    }
  }
}
