package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.aryl.core.job.CheckpointReport;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("AmCheckpointClient: a job's last checkpoint from its ApplicationMaster's status.json")
class AmCheckpointClientTest {

  private static CheckpointReport parse(String json) throws IOException {
    return AmCheckpointClient.parse(
        new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
  }

  @Nested
  @DisplayName("the status document")
  class Parse {
    static Stream<Arguments> documents() {
      return Stream.of(
          Arguments.of(
              "both fields",
              "{\"name\":\"bert\",\"lastCheckpointMs\":1700000000000,\"lastCheckpointStep\":12}",
              new CheckpointReport(1_700_000_000_000L, 12)),
          Arguments.of(
              "never checkpointed (-1)",
              "{\"lastCheckpointMs\":-1,\"lastCheckpointStep\":-1}",
              CheckpointReport.NONE),
          Arguments.of("no step field", "{\"lastCheckpointMs\":5}", new CheckpointReport(5, -1)),
          Arguments.of(
              "no checkpoint fields: an ApplicationMaster that does not report them",
              "{\"name\":\"other\",\"workers\":[{\"lastCheckpointMs\":99}]}",
              CheckpointReport.NONE),
          Arguments.of(
              "the fields after nested objects and arrays",
              "{\"workers\":[{\"a\":[1,2,{\"b\":3}]}],\"events\":{},\"lastCheckpointStep\":3,"
                  + "\"lastCheckpointMs\":4}",
              new CheckpointReport(4, 3)),
          Arguments.of("an empty object", "{}", CheckpointReport.NONE));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    @DisplayName("gives the top-level lastCheckpointMs and lastCheckpointStep, -1 where absent")
    void parsed(String what, String json, CheckpointReport expected) throws IOException {
      assertThat(parse(json)).isEqualTo(expected);
    }

    static Stream<Arguments> wrong() {
      return Stream.of(
          Arguments.of(
              "a time that is a string",
              "{\"lastCheckpointMs\":\"soon\"}",
              "lastCheckpointMs",
              "soon"),
          Arguments.of(
              "a fractional time", "{\"lastCheckpointMs\":1.5}", "lastCheckpointMs", "1.5"),
          Arguments.of("a time below -1", "{\"lastCheckpointMs\":-7}", "lastCheckpointMs", "-7"),
          Arguments.of(
              "a step that is an object", "{\"lastCheckpointStep\":{}}", "lastCheckpointStep", "{"),
          Arguments.of(
              "a time beyond a long",
              "{\"lastCheckpointMs\":99999999999999999999999}",
              "lastCheckpointMs",
              "99999999999999999999999"),
          Arguments.of("not an object", "[1,2]", "not a JSON object", ""),
          Arguments.of("not JSON", "<html>", "not JSON", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wrong")
    @DisplayName("is refused with a message naming the field and the value")
    void refused(String what, String json, String field, String value) {
      assertThatThrownBy(() -> parse(json))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(field)
          .hasMessageContaining(value);
    }
  }

  @Nested
  @DisplayName("the status URL under a tracking URL")
  class StatusUrl {
    static Stream<Arguments> urls() {
      return Stream.of(
          Arguments.of("http://host7:40123/", "http://host7:40123/status.json"),
          Arguments.of("http://host7:40123", "http://host7:40123/status.json"),
          Arguments.of("host7:40123", "http://host7:40123/status.json"),
          Arguments.of(" https://host7:40123/am/ ", "https://host7:40123/am/status.json"));
    }

    @ParameterizedTest(name = "''{0}'' -> {1}")
    @MethodSource("urls")
    @DisplayName("is status.json at the URL the ApplicationMaster registered")
    void statusJson(String tracking, String expected) throws IOException {
      assertThat(AmCheckpointClient.statusUrl(tracking)).hasToString(expected);
    }

    @Test
    @DisplayName("a URL of another scheme, or not a URL, is refused naming it")
    void refused() {
      assertThatThrownBy(() -> AmCheckpointClient.statusUrl("file:///etc/passwd"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("file:///etc/passwd");
      assertThatThrownBy(() -> AmCheckpointClient.statusUrl("http://host 7:1/"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("http://host 7:1/");
    }
  }

  @Nested
  @DisplayName("over HTTP")
  class Http {
    private HttpServer server;
    private final AtomicReference<String> body = new AtomicReference<>();
    private volatile int code = 200;

    @BeforeEach
    void start() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(
          "/status.json",
          ex -> {
            byte[] bytes = body.get().getBytes(StandardCharsets.UTF_8);
            if (code == 302) {
              ex.getResponseHeaders().set("Location", "http://127.0.0.1:1/status.json");
            }
            ex.sendResponseHeaders(code, bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
              out.write(bytes);
            } catch (IOException closedEarly) {
              // the client stops reading once it has both fields
            }
          });
      server.start();
    }

    @AfterEach
    void stop() {
      server.stop(0);
    }

    private String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    @Test
    @DisplayName("reads the report an ApplicationMaster serves")
    void reads() throws IOException {
      body.set(
          "{\"name\":\"bert\",\"lastCheckpointMs\":1700000000000,\"lastCheckpointStep\":12,\"workers\":[]}");
      assertThat(new AmCheckpointClient().fetch(url()))
          .isEqualTo(new CheckpointReport(1_700_000_000_000L, 12));
    }

    @Test
    @DisplayName("stops reading a large status once it has both fields")
    void largeStatusFieldsFirst() throws IOException {
      body.set(
          "{\"lastCheckpointMs\":1,\"lastCheckpointStep\":2,\"events\":["
              + "{\"d\":\"xxxxxxxxxx\"},".repeat(AmCheckpointClient.MAX_BYTES / 10)
              + "{}]}");
      assertThat(new AmCheckpointClient().fetch(url())).isEqualTo(new CheckpointReport(1, 2));
    }

    @Test
    @DisplayName("refuses a status larger than it reads")
    void tooLarge() {
      body.set(
          "{\"events\":["
              + "{\"d\":\"xxxxxxxxxx\"},".repeat(AmCheckpointClient.MAX_BYTES / 10)
              + "{}],\"lastCheckpointMs\":1}");
      assertThatThrownBy(() -> new AmCheckpointClient().fetch(url()))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("larger than");
    }

    @Test
    @DisplayName(
        "an answer other than 200, a redirect too, is an error naming the URL and the code")
    void notOk() {
      body.set("not found");
      code = 404;
      assertThatThrownBy(() -> new AmCheckpointClient().fetch(url()))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(url() + "status.json")
          .hasMessageContaining("404");
      code = 302;
      assertThatThrownBy(() -> new AmCheckpointClient().fetch(url()))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("302");
    }

    @Test
    @DisplayName("a bad field is an error naming the URL, the field and the value")
    void badField() {
      body.set("{\"lastCheckpointMs\":\"soon\"}");
      assertThatThrownBy(() -> new AmCheckpointClient().fetch(url()))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(url())
          .hasMessageContaining("lastCheckpointMs")
          .hasMessageContaining("soon");
    }
  }

  @Test
  @DisplayName(
      "an ApplicationMaster that accepts but never answers is given up after the read timeout")
  void silentAmTimesOut() throws IOException {
    try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      long t0 = System.nanoTime();
      assertThatThrownBy(
              () ->
                  new AmCheckpointClient().fetch("http://127.0.0.1:" + silent.getLocalPort() + "/"))
          .isInstanceOf(IOException.class);
      long tookMs = (System.nanoTime() - t0) / 1_000_000;
      assertThat(tookMs)
          .isGreaterThanOrEqualTo(AmCheckpointClient.READ_TIMEOUT_MS - 100)
          .isLessThan(
              AmCheckpointClient.CONNECT_TIMEOUT_MS + AmCheckpointClient.READ_TIMEOUT_MS + 2000);
    }
  }
}
