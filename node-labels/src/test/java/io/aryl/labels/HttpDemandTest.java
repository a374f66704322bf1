package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("HttpDemand: the rate read from a real HTTP endpoint answering JSON")
class HttpDemandTest {
  private HttpServer server;
  private final AtomicReference<String> body = new AtomicReference<>("{}");
  private final AtomicInteger status = new AtomicInteger(200);

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/demand",
        exchange -> {
          byte[] b = body.get().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status.get(), b.length);
          exchange.getResponseBody().write(b);
          exchange.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private HttpDemand source(String pointer) {
    return new HttpDemand(
        URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/demand"),
        pointer,
        Duration.ofSeconds(2));
  }

  @Test
  @DisplayName("reads the number at the JSON pointer, following the endpoint as it changes")
  void readsThePointer() throws IOException {
    body.set("{\"inference\": {\"rps\": 420.5}}");
    HttpDemand demand = source("/inference/rps");
    assertThat(demand.rate()).isEqualTo(420.5);
    body.set("{\"inference\": {\"rps\": 17}}");
    assertThat(demand.rate()).isEqualTo(17.0);
  }

  @Test
  @DisplayName(
      "a missing, negative or non-numeric value is an error naming the pointer and the value")
  void refusesBadValues() {
    HttpDemand demand = source("/rate");
    for (String bad : new String[] {"{}", "{\"rate\": -1}", "{\"rate\": \"high\"}"}) {
      body.set(bad);
      assertThatThrownBy(demand::rate)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("/rate");
    }
  }

  @Test
  @DisplayName("an answer other than 200 is an error: the controller then loans nothing")
  void refusesErrorStatus() {
    status.set(503);
    assertThatThrownBy(source("/rate")::rate)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("503");
  }

  @Test
  @DisplayName("a pointer that is not a JSON pointer is refused at construction")
  void refusesBadPointer() {
    assertThatThrownBy(() -> source("rate"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rate");
  }
}
