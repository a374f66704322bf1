package io.aryl.api.loan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.api.ArylJson;
import io.aryl.api.body.BadRequestException;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("LoanControllerReport: the body of PUT /ws/v1/cluster/aryl/loan-controller")
class LoanControllerReportTest {
  private static InputStream body(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName("epoch, instance and role are checked; the whole report is kept as it came, nulls and order included")
  void keptAsItCame() throws Exception {
    LoanControllerReport r = LoanControllerReport.parse(body("{\"instance\": \"lc-1\", \"role\": \"LEADER\","
        + " \"acting\": true, \"epoch\": 4, \"ticks\": 21, \"lastError\": null, \"ledger\": [{\"node\": \"a:1\"}]}"));
    assertThat(r.epoch()).isEqualTo(4);
    assertThat(r.instance()).isEqualTo("lc-1");
    assertThat(r.status()).containsEntry("ticks", 21).containsEntry("lastError", null)
        .containsEntry("ledger", List.of(Map.of("node", "a:1")));
    assertThat(r.status().keySet()).containsExactly("instance", "role", "acting", "epoch", "ticks", "lastError",
        "ledger");
  }

  static Stream<Arguments> refused() {
    String notLeader = "role must be \"LEADER\" (only the loan controller's leader reports), was ";
    String notText = "instance must be printable text of 1-256 characters, was ";
    return Stream.of(
        Arguments.of("without epoch", "{\"instance\":\"c3\",\"role\":\"LEADER\"}",
            "epoch is required: an integer in [1, 9223372036854775807]"),
        Arguments.of("epoch zero", "{\"epoch\":0,\"instance\":\"c3\",\"role\":\"LEADER\"}",
            "epoch must be an integer in [1, 9223372036854775807], was 0"),
        Arguments.of("epoch as text", "{\"epoch\":\"3\",\"instance\":\"c3\",\"role\":\"LEADER\"}",
            "epoch must be an integer in [1, 9223372036854775807], was \"3\""),
        Arguments.of("from a standby", "{\"epoch\":3,\"instance\":\"c3\",\"role\":\"STANDBY\"}",
            notLeader + "\"STANDBY\""),
        Arguments.of("without role", "{\"epoch\":3,\"instance\":\"c3\"}", notLeader + "missing"),
        Arguments.of("without instance", "{\"epoch\":3,\"role\":\"LEADER\"}", notText + "missing"),
        Arguments.of("instance blank", "{\"epoch\":3,\"instance\":\" \",\"role\":\"LEADER\"}", notText + "\" \""),
        Arguments.of("instance a number", "{\"epoch\":3,\"instance\":7,\"role\":\"LEADER\"}", notText + "7"),
        Arguments.of("an array", "[]", "body must be a JSON object like {\"epoch\": 3, \"instance\": \"controller-1\","
            + " \"role\": \"LEADER\", ...}, was []"),
        Arguments.of("a field twice", "{\"epoch\":3,\"epoch\":4}", "body is not JSON: Duplicate field 'epoch'"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  @DisplayName("refused with a message naming the field and the value")
  void refused(String name, String body, String says) {
    assertThatThrownBy(() -> LoanControllerReport.parse(body(body))).isInstanceOf(BadRequestException.class)
        .hasMessageStartingWith(says);
  }

  @Test
  @DisplayName("a report of more than 64 KiB is refused unread")
  void tooLong() {
    String big = "{\"epoch\":3,\"instance\":\"c3\",\"role\":\"LEADER\",\"x\":\"" + "y".repeat(70_000) + "\"}";
    assertThatThrownBy(() -> LoanControllerReport.parse(body(big))).isInstanceOf(BadRequestException.class)
        .hasMessage("body is longer than 65536 bytes");
  }

  @Test
  @DisplayName("a control character in the instance name is refused")
  void controlCharacter() {
    assertThatThrownBy(() -> LoanControllerReport.parse(body("{\"epoch\":3,\"instance\":\"c\\u0007\",\"role\":"
        + "\"LEADER\"}"))).isInstanceOf(BadRequestException.class).hasMessageStartingWith("instance must be printable");
  }

  @Test
  @DisplayName("the answers: accepted with its epoch, or stale with the epoch in force")
  void answers() {
    assertThat(ArylJson.write(ReportAccepted.of(4))).isEqualTo("{\"accepted\":true,\"epoch\":4}");
    assertThat(ArylJson.write(new StaleReport("refused", 3, 4)))
        .isEqualTo("{\"error\":\"refused\",\"epoch\":3,\"currentEpoch\":4}");
  }
}
