package io.aryl.am;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.aryl.core.job.CheckpointReport;
import io.aryl.yarnapp.AmHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The AM's tracking URL: {@code /} an HTML status page, {@code /status.json} the same as JSON
 * (workers, generations, scaling events, the last checkpoint, which the scheduler reads to price
 * preemptions), {@code /hosts} the current generation's host:slots lines (what the host-discovery
 * script prints). JDK HTTP server on an ephemeral port; the RM web proxy forwards {@code
 * /proxy/<app>/...} here, and people reach the pages only that way ({@link ProxyOnlyPages}). Worker
 * supervisors {@code POST /exited} their worker's {@link ExitReport}, with the attempt's token in
 * header {@value #TOKEN_HEADER}.
 */
public final class StatusServer implements AutoCloseable {
  static final String TOKEN_HEADER = "X-Aryl-Token";
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;

  /**
   * @param pages who may read the pages for people ({@code /} and {@code /status.json}) here;
   *     others are sent to the RM's web proxy. {@code /hosts} and {@code /exited} serve the job's
   *     own containers.
   */
  public StatusServer(
      Supplier<Map<String, Object>> status,
      Supplier<List<String>> hosts,
      String reportToken,
      Consumer<ExitReport> exits,
      ProxyOnlyPages pages)
      throws IOException {
    server = AmHttp.server("aryl-status");
    server.createContext(
        "/status.json",
        ex -> {
          if (!redirected(ex, pages)) {
            send(
                ex,
                "application/json",
                JSON.writerWithDefaultPrettyPrinter().writeValueAsString(status.get()));
          }
        });
    server.createContext(
        "/hosts", ex -> send(ex, "text/plain", String.join("\n", hosts.get()) + "\n"));
    byte[] token = reportToken.getBytes(StandardCharsets.UTF_8);
    server.createContext(
        "/exited",
        ex -> {
          if (!ex.getRequestMethod().equals("POST")) {
            send(ex, 405, "text/plain", "POST only\n");
            return;
          }
          String shown = ex.getRequestHeaders().getFirst(TOKEN_HEADER);
          if (shown == null
              || !MessageDigest.isEqual(token, shown.getBytes(StandardCharsets.UTF_8))) {
            send(ex, 403, "text/plain", "not this attempt's token\n");
            return;
          }
          ExitReport report;
          try {
            report = ExitReport.fromQuery(ex.getRequestURI().getRawQuery());
          } catch (IllegalArgumentException e) {
            send(ex, 400, "text/plain", e.getMessage() + "\n");
            return;
          }
          exits.accept(report);
          send(ex, "text/plain", "ok\n");
        });
    server.createContext(
        "/",
        ex -> {
          if (redirected(ex, pages)) {
            return;
          }
          if (!ex.getRequestURI().getPath().replaceAll("/+$", "").isEmpty()) {
            send(ex, 404, "text/plain", "not found: " + ex.getRequestURI().getPath() + "\n");
            return;
          }
          send(ex, "text/html", html(status.get()));
        });
  }

  public void start() {
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /**
   * Sends a request from a host the pages do not serve to the web proxy (302), as AmIpFilter does.
   */
  private static boolean redirected(HttpExchange ex, ProxyOnlyPages pages) throws IOException {
    String to =
        pages.redirectFor(
            ex.getRemoteAddress().getAddress(),
            ex.getRequestURI().getRawPath(),
            ex.getRequestURI().getRawQuery());
    if (to == null) {
      return false;
    }
    ex.getResponseHeaders().set("Location", to);
    send(ex, 302, "text/plain", "see " + to + "\n");
    return true;
  }

  private static void send(HttpExchange ex, String type, String body) throws IOException {
    AmHttp.send(ex, 200, type, body);
  }

  private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
    AmHttp.send(ex, code, type, body);
  }

  @SuppressWarnings("unchecked")
  static String html(Map<String, Object> s) {
    StringBuilder b =
        new StringBuilder("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Aryl job ")
            .append(esc(s.get("name")))
            .append("</title></head><body><h1>Aryl job ")
            .append(esc(s.get("name")))
            .append("</h1><p>")
            .append(esc(s.get("application")))
            .append(" &middot; state ")
            .append(esc(s.get("state")))
            .append(" &middot; workers ")
            .append(esc(s.get("held")))
            .append(" (min ")
            .append(esc(s.get("minWorkers")))
            .append(", max ")
            .append(esc(s.get("maxWorkers")))
            .append(") &middot; generation ")
            .append(esc(s.get("generation")))
            .append(" &middot; restarts ")
            .append(esc(s.get("restartsUsed")))
            .append(" of ")
            .append(esc(s.get("maxRestarts")))
            .append(" &middot; last checkpoint ")
            .append(esc(lastCheckpoint(s)))
            .append(" &middot; <a href=\"status.json\">JSON</a></p>")
            .append(
                "<h2>Workers</h2><table border=\"1\"><tr><th>container</th><th>host</th><th>state</th>")
            .append("<th>generation</th><th>rank</th></tr>");
    for (Map<String, Object> w : (List<Map<String, Object>>) s.get("workers")) {
      b.append("<tr><td>")
          .append(esc(w.get("container")))
          .append("</td><td>")
          .append(esc(w.get("host")))
          .append("</td><td>")
          .append(esc(w.get("state")))
          .append("</td><td>")
          .append(esc(w.get("generation")))
          .append("</td><td>")
          .append(esc(w.get("rank")))
          .append("</td></tr>");
    }
    b.append(
            "</table><h2>Scaling events</h2><table border=\"1\"><tr><th>time (ms)</th><th>kind</th>")
        .append("<th>detail</th></tr>");
    for (Map<String, Object> e : (List<Map<String, Object>>) s.get("events")) {
      b.append("<tr><td>")
          .append(esc(e.get("timeMs")))
          .append("</td><td>")
          .append(esc(e.get("kind")))
          .append("</td><td>")
          .append(esc(e.get("detail")))
          .append("</td></tr>");
    }
    return b.append("</table></body></html>\n").toString();
  }

  /** The last checkpoint as a person reads it: its time (UTC) and step, or "none". */
  static String lastCheckpoint(Map<String, Object> s) {
    Object ms = s.get(CheckpointReport.LAST_CHECKPOINT_MS);
    if (!(ms instanceof Number n) || n.longValue() < 0) {
      return "none";
    }
    Object step = s.get(CheckpointReport.LAST_CHECKPOINT_STEP);
    String when = Instant.ofEpochMilli(n.longValue()).toString();
    return step instanceof Number st && st.longValue() >= 0 ? when + " (step " + st + ")" : when;
  }

  private static String esc(Object o) {
    return String.valueOf(o)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
