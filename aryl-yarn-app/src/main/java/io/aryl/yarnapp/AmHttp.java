package io.aryl.yarnapp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * The ApplicationMaster's own HTTP endpoint (its tracking URL): the JDK's server on an ephemeral
 * port, answering on one daemon thread so that it never keeps the AM's JVM alive, and the answers
 * it sends. What it serves is each AM's own.
 */
public final class AmHttp {
  private AmHttp() {}

  /** A server not started yet, on an ephemeral port of every address, its thread named so. */
  public static HttpServer server(String threadName) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(0), 0);
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            }));
    return server;
  }

  /** Answers {@code code} with {@code body} as UTF-8 text of media type {@code type}. */
  public static void send(HttpExchange ex, int code, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }
}
