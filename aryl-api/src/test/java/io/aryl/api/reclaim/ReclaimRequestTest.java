package io.aryl.api.reclaim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.api.ArylJson;
import io.aryl.api.body.BadRequestException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("ReclaimRequest: the body of POST /ws/v1/cluster/aryl/reclaims")
class ReclaimRequestTest {
  /** 2025-11-29T16:00:00Z. */
  private static final long NOW = 1764432000000L;

  private static InputStream body(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName("nodes alone: the scheduler's default deadline, any GPU type")
  void nodesAlone() throws Exception {
    assertThat(ReclaimRequest.parse(body("{\"nodes\": 2}"), NOW)).isEqualTo(ReclaimRequest.of(2));
  }

  @Test
  @DisplayName("every field; a deadline an hour back is due at once, one 7 days out is the latest")
  void everyField() throws Exception {
    assertThat(
            ReclaimRequest.parse(
                body(
                    "{\"nodes\": 3, \"deadlineMs\": " + (NOW + 300_000) + ", \"gpuType\": \"t4\"}"),
                NOW))
        .isEqualTo(new ReclaimRequest(3, NOW + 300_000, "t4"));
    assertThat(
            ReclaimRequest.parse(
                    body("{\"nodes\": 1, \"deadlineMs\": " + (NOW - 3_600_000) + "}"), NOW)
                .deadlineMs())
        .isEqualTo(NOW - 3_600_000);
    assertThat(
            ReclaimRequest.parse(
                    body("{\"nodes\": 10000, \"deadlineMs\": " + (NOW + 7 * 86_400_000L) + "}"),
                    NOW)
                .nodes())
        .isEqualTo(10000);
    assertThat(
            ReclaimRequest.parse(
                body("{\"nodes\": 1, \"deadlineMs\": null, \"gpuType\": null}"), NOW))
        .as("null is as absent")
        .isEqualTo(ReclaimRequest.of(1));
  }

  @Test
  @DisplayName(
      "written by a client: deadlineMs only when set, gpuType only when named, and read back the same")
  void written() throws Exception {
    assertThat(ArylJson.write(ReclaimRequest.of(1))).isEqualTo("{\"nodes\":1}");
    ReclaimRequest full = new ReclaimRequest(2, NOW + 60_000, "a100");
    assertThat(ArylJson.write(full))
        .isEqualTo("{\"nodes\":2,\"deadlineMs\":" + (NOW + 60_000) + ",\"gpuType\":\"a100\"}");
    assertThat(ReclaimRequest.parse(body(ArylJson.write(full)), NOW)).isEqualTo(full);
  }

  static Stream<Arguments> refused() {
    String pad = "x".repeat(5000);
    long seconds = NOW / 1000;
    long yearOut = NOW + 365L * 86_400_000L;
    return Stream.of(
        Arguments.of("empty body", "", "body is empty: send a JSON object like {\"nodes\": 2}"),
        Arguments.of("blank body", " \n ", "body is empty: send a JSON object like {\"nodes\": 2}"),
        // After "body is not JSON: ", Jackson's own words (and position), which differ between its
        // versions.
        Arguments.of(
            "not JSON", "{nodes: 1}", "body is not JSON: Unexpected character ('n' (code 110))"),
        Arguments.of("an array", "[1]", "body must be a JSON object like {\"nodes\": 2}, was [1]"),
        Arguments.of(
            "a string", "\"two\"", "body must be a JSON object like {\"nodes\": 2}, was \"two\""),
        Arguments.of("null", "null", "body must be a JSON object like {\"nodes\": 2}, was null"),
        Arguments.of(
            "two objects", "{\"nodes\":1} {\"nodes\":2}", "body is not JSON: Trailing token"),
        Arguments.of(
            "a field twice",
            "{\"nodes\":1,\"nodes\":2}",
            "body is not JSON: Duplicate field 'nodes'"),
        Arguments.of(
            "an unknown field",
            "{\"nodes\":1,\"node\":1}",
            "unknown field 'node'; the fields are deadlineMs, gpuType, nodes"),
        Arguments.of(
            "an unknown field's name, shortened",
            "{\"" + "n".repeat(100) + "\":1}",
            "unknown field '" + "n".repeat(80) + "...'; the fields are deadlineMs, gpuType, nodes"),
        Arguments.of("no nodes", "{}", "nodes is required: an integer in [1, 10000]"),
        Arguments.of(
            "nodes null", "{\"nodes\":null}", "nodes is required: an integer in [1, 10000]"),
        Arguments.of(
            "nodes as text",
            "{\"nodes\":\"1\"}",
            "nodes must be an integer in [1, 10000], was \"1\""),
        Arguments.of(
            "nodes a fraction",
            "{\"nodes\":1.5}",
            "nodes must be an integer in [1, 10000], was 1.5"),
        Arguments.of(
            "nodes zero", "{\"nodes\":0}", "nodes must be an integer in [1, 10000], was 0"),
        Arguments.of(
            "nodes negative", "{\"nodes\":-3}", "nodes must be an integer in [1, 10000], was -3"),
        Arguments.of(
            "nodes absurd",
            "{\"nodes\":1000000}",
            "nodes must be an integer in [1, 10000], was 1000000"),
        Arguments.of(
            "nodes beyond a long",
            "{\"nodes\":1e30}",
            "nodes must be an integer in [1, 10000], was 1.0E30"),
        Arguments.of(
            "nodes beyond a long, integral",
            "{\"nodes\":99999999999999999999}",
            "nodes must be an integer in [1, 10000], was 99999999999999999999"),
        Arguments.of(
            "nodes a boolean",
            "{\"nodes\":true}",
            "nodes must be an integer in [1, 10000], was true"),
        Arguments.of(
            "deadline negative",
            "{\"nodes\":1,\"deadlineMs\":-5}",
            "deadlineMs must be an integer in [0, 9223372036854775807], was -5"),
        Arguments.of(
            "deadline as text",
            "{\"nodes\":1,\"deadlineMs\":\"5m\"}",
            "deadlineMs must be an integer in [0, 9223372036854775807], was \"5m\""),
        Arguments.of(
            "deadline in seconds",
            "{\"nodes\":1,\"deadlineMs\":" + seconds + "}",
            "deadlineMs must be epoch milliseconds within an hour before and 7 days after now ("
                + NOW
                + "), or 0"
                + " for the default deadline, was "
                + seconds
                + " (1970-01-21T10:07:12Z)"),
        Arguments.of(
            "deadline a year out",
            "{\"nodes\":1,\"deadlineMs\":" + yearOut + "}",
            "deadlineMs must be epoch milliseconds within an hour before and 7 days after now ("
                + NOW
                + "), or 0"
                + " for the default deadline, was "
                + yearOut
                + " (2026-11-29T16:00:00Z)"),
        Arguments.of(
            "deadline a moment more than an hour back",
            "{\"nodes\":1,\"deadlineMs\":" + (NOW - 3_600_001) + "}",
            "deadlineMs must be epoch milliseconds within an hour before and 7 days after"
                + " now ("
                + NOW
                + "), or 0 for the default deadline, was "
                + (NOW - 3_600_001)
                + " (2025-11-29T14:59:59.999Z)"),
        Arguments.of(
            "gpuType a number",
            "{\"nodes\":1,\"gpuType\":7}",
            "gpuType must be a name of 1-64 letters, digits, '.', '_' or '-', was 7"),
        Arguments.of(
            "gpuType empty",
            "{\"nodes\":1,\"gpuType\":\"\"}",
            "gpuType must be a name of 1-64 letters, digits, '.', '_' or '-', was \"\""),
        Arguments.of(
            "gpuType markup",
            "{\"nodes\":1,\"gpuType\":\"<b>t4</b>\"}",
            "gpuType must be a name of 1-64 letters, digits, '.', '_' or '-', was \"<b>t4</b>\""),
        Arguments.of(
            "gpuType too long",
            "{\"nodes\":1,\"gpuType\":\"" + "a".repeat(65) + "\"}",
            "gpuType must be a name of 1-64 letters, digits, '.', '_' or '-', was \""
                + "a".repeat(65)
                + "\""),
        Arguments.of(
            "gpuType far too long, quoted shortened",
            "{\"nodes\":1,\"gpuType\":\"" + "a".repeat(100) + "\"}",
            "gpuType must be a name of 1-64 letters, digits, '.', '_' or '-', was \""
                + "a".repeat(79)
                + "..."),
        Arguments.of(
            "body too long",
            "{\"nodes\":1,\"gpuType\":\"" + pad + "\"}",
            "body is longer than 4096 bytes"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  @DisplayName("refused with a message naming the field and the value")
  void refused(String name, String body, String says) {
    assertThatThrownBy(() -> ReclaimRequest.parse(body(body), NOW))
        .isInstanceOf(BadRequestException.class)
        .hasMessageStartingWith(says);
  }

  @Test
  @DisplayName("a refusal's message is whole: nothing follows the quoted value")
  void wholeMessages() {
    assertThatThrownBy(() -> ReclaimRequest.parse(body("{\"nodes\":0}"), NOW))
        .hasMessage("nodes must be an integer in [1, 10000], was 0");
    assertThatThrownBy(() -> ReclaimRequest.parse(body("{\"nodes\":1,\"gpuType\":\"<b>\"}"), NOW))
        .hasMessage("gpuType must be a name of 1-64 letters, digits, '.', '_' or '-', was \"<b>\"");
  }

  @Test
  @DisplayName("a body that cannot be read is refused with the reason")
  void unreadable() {
    InputStream broken =
        new InputStream() {
          @Override
          public int read() throws IOException {
            throw new IOException("connection reset");
          }

          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            throw new IOException("connection reset");
          }
        };
    assertThatThrownBy(() -> ReclaimRequest.parse(broken, NOW))
        .isInstanceOf(BadRequestException.class)
        .hasMessage("body could not be read: connection reset");
    assertThatThrownBy(() -> ReclaimRequest.parse(null, NOW))
        .isInstanceOf(BadRequestException.class)
        .hasMessageStartingWith("body is empty");
  }
}
