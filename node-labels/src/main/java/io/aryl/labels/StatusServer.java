package io.aryl.labels;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.aryl.core.model.Checks;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * The controller's own status over HTTP: {@code GET /status} answers {@link
 * LoanController#status()} as JSON.
 */
public final class StatusServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;

  public StatusServer(LoanController controller, String host, int port) throws IOException {
    Checks.notNull("controller", controller);
    server = HttpServer.create(new InetSocketAddress(host, port), 16);
    server.createContext(
        "/status",
        exchange -> {
          if (!"GET".equals(exchange.getRequestMethod())) {
            send(exchange, 405, Map.of("error", "only GET"));
            return;
          }
          send(exchange, 200, controller.status());
        });
  }

  public StatusServer start() {
    server.start();
    return this;
  }

  /** The port bound (useful with port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void send(HttpExchange exchange, int code, Object body) throws IOException {
    byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
