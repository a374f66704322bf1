package io.aryl.api.loan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.api.ArylJson;
import io.aryl.api.body.BadRequestException;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "LoanTarget and LendRequest: the bodies of PUT .../aryl/loan-target and POST .../aryl/loans")
class LoanTargetTest {
  /** 2025-11-29T16:00:00Z. */
  private static final long NOW = 1764432000000L;

  private static InputStream body(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName(
      "the fields a controller must send; the rest default to the scheduler's deadline and no reason")
  void requiredOnly() throws Exception {
    assertThat(
            LoanTarget.parse(
                body("{\"epoch\": 3, \"controller\": \"lc-1\", \"maxOnLoan\": 0}"), NOW))
        .isEqualTo(new LoanTarget(3, "lc-1", 0, 0, 0, ""));
  }

  @Test
  @DisplayName("written by the controller and read back the same")
  void roundTrip() throws Exception {
    LoanTarget t =
        new LoanTarget(7, "controller-2", 4, NOW + 120_000, NOW, "rate 10.0 rps needs 3 server(s)");
    assertThat(LoanTarget.parse(body(ArylJson.write(t)), NOW)).isEqualTo(t);
    assertThat(ArylJson.write(new LoanTarget(7, "c", 1, 0, NOW, "")))
        .as("returnByMs only when set")
        .doesNotContain("returnByMs");
  }

  @Test
  @DisplayName(
      "the demand a target was decided on is read back the same; a body without it (an older"
          + " controller's) is taken, its demand null and absent when written")
  void demand() throws Exception {
    LoanTarget t = new LoanTarget(7, "c", 1, 0, NOW, "", new LoanDemand(120.5, 150, 2, 4_800));
    assertThat(LoanTarget.parse(body(ArylJson.write(t)), NOW)).isEqualTo(t);
    assertThat(
            LoanTarget.parse(
                body(
                    "{\"epoch\": 3, \"controller\": \"lc-1\", \"maxOnLoan\": 0, \"demand\":"
                        + " {\"rateRps\": 8, \"forecastRps\": 8.5, \"serversNeeded\": 1,"
                        + " \"timeToServeMs\": 0}}"),
                NOW))
        .isEqualTo(new LoanTarget(3, "lc-1", 0, 0, 0, "", new LoanDemand(8, 8.5, 1, 0)));
    assertThat(
            LoanTarget.parse(
                    body("{\"epoch\": 3, \"controller\": \"lc-1\", \"maxOnLoan\": 0}"), NOW)
                .demand())
        .isNull();
    assertThat(ArylJson.write(new LoanTarget(7, "c", 1, 0, NOW, ""))).doesNotContain("demand");
  }

  @Test
  @DisplayName(
      "the replica's start-up in the time to serve is read back the same; a demand without it (a"
          + " controller that measured none, or an older one) is all reclaim, and written without it")
  void startup() throws Exception {
    LoanTarget t =
        new LoanTarget(7, "c", 1, 0, NOW, "", new LoanDemand(120.5, 150, 2, 4_800, 2_500L));
    assertThat(LoanTarget.parse(body(ArylJson.write(t)), NOW)).isEqualTo(t);
    assertThat(t.demand().reclaimMs()).isEqualTo(2_300);
    LoanDemand without = new LoanDemand(120.5, 150, 2, 4_800);
    assertThat(without.reclaimMs()).isEqualTo(4_800);
    assertThat(ArylJson.write(new LoanTarget(7, "c", 1, 0, NOW, "", without)))
        .contains("timeToServeMs")
        .doesNotContain("startupMs");
    assertThatThrownBy(() -> new LoanDemand(1, 1, 1, 1_000, -1L))
        .hasMessage("demand.startupMs must be in [0, timeToServeMs=1000], was -1");
  }

  static Stream<Arguments> refused() {
    String ok = "\"epoch\": 3, \"controller\": \"lc-1\", \"maxOnLoan\": 2";
    return Stream.of(
        Arguments.of(
            "no epoch", "{\"controller\": \"lc-1\", \"maxOnLoan\": 2}", "epoch is required"),
        Arguments.of(
            "epoch 0",
            "{\"epoch\": 0, \"controller\": \"lc-1\", \"maxOnLoan\": 2}",
            "epoch must be an integer in [1, 9223372036854775807], was 0"),
        Arguments.of(
            "no controller",
            "{\"epoch\": 3, \"maxOnLoan\": 2}",
            "controller must be printable text of 1-256 characters, was missing"),
        Arguments.of(
            "a negative target",
            "{\"epoch\": 3, \"controller\": \"lc-1\", \"maxOnLoan\": -1}",
            "maxOnLoan must be an integer in [0, 100000], was -1"),
        Arguments.of(
            "a fraction",
            "{\"epoch\": 3, \"controller\": \"lc-1\", \"maxOnLoan\": 1.5}",
            "maxOnLoan must be an integer in [0, 100000], was 1.5"),
        Arguments.of(
            "returnBy in seconds",
            "{" + ok + ", \"returnByMs\": " + NOW / 1000 + "}",
            "returnByMs must be epoch milliseconds within an hour before and 7 days after now"),
        Arguments.of("an unknown field", "{" + ok + ", \"nodes\": 2}", "unknown field 'nodes'"),
        Arguments.of("a field twice", "{" + ok + ", \"maxOnLoan\": 3}", "maxOnLoan"),
        Arguments.of(
            "a reason with a control character",
            "{" + ok + ", \"reason\": \"a\\u0000b\"}",
            "reason must be printable text of at most 1024 characters"),
        Arguments.of("not an object", "[1]", "body must be a JSON object"),
        Arguments.of(
            "a demand that is not an object",
            "{" + ok + ", \"demand\": 12}",
            "demand must be an object with forecastRps, rateRps, serversNeeded, startupMs,"
                + " timeToServeMs, was 12"),
        Arguments.of(
            "a demand without its rate",
            "{" + ok + ", \"demand\": {" + demand("forecastRps", "1") + "}}",
            "demand.rateRps must be a rate in [0, 1000000000] requests/s, was missing"),
        Arguments.of(
            "a negative rate",
            "{" + ok + ", \"demand\": {\"rateRps\": -1, " + demand("forecastRps", "1") + "}}",
            "demand.rateRps must be a rate in [0, 1000000000] requests/s, was -1"),
        Arguments.of(
            "a forecast in words",
            "{"
                + ok
                + ", \"demand\": {\"rateRps\": 1, \"forecastRps\": \"high\", "
                + demand("serversNeeded", "1")
                + "}}",
            "demand.forecastRps must be a rate in [0, 1000000000] requests/s, was \"high\""),
        Arguments.of(
            "a fraction of a server",
            "{"
                + ok
                + ", \"demand\": {\"rateRps\": 1, \"forecastRps\": 1,"
                + " \"serversNeeded\": 1.5, \"timeToServeMs\": 0}}",
            "demand.serversNeeded must be an integer in [0, 1000000], was 1.5"),
        Arguments.of(
            "a time to serve over a day",
            "{"
                + ok
                + ", \"demand\": {\"rateRps\": 1, \"forecastRps\": 1,"
                + " \"serversNeeded\": 1, \"timeToServeMs\": 86400001}}",
            "demand.timeToServeMs must be an integer in [0, 86400000], was 86400001"),
        Arguments.of(
            "a start-up longer than the whole time to serve",
            "{"
                + ok
                + ", \"demand\": {\"rateRps\": 1, \"forecastRps\": 1,"
                + " \"serversNeeded\": 1, \"timeToServeMs\": 4000, \"startupMs\": 4001}}",
            "demand.startupMs must be an integer in [0, 4000], was 4001"),
        Arguments.of(
            "a start-up in seconds as text",
            "{"
                + ok
                + ", \"demand\": {\"rateRps\": 1, \"forecastRps\": 1,"
                + " \"serversNeeded\": 1, \"timeToServeMs\": 4000, \"startupMs\": \"2s\"}}",
            "demand.startupMs must be an integer in [0, 4000], was \"2s\""),
        Arguments.of(
            "an unknown demand field",
            "{"
                + ok
                + ", \"demand\": {\"rateRps\": 1, \"forecastRps\": 1,"
                + " \"serversNeeded\": 1, \"timeToServeMs\": 0, \"p99\": 3}}",
            "unknown field 'demand.p99'"));
  }

  /** The demand's other fields, valid, from {@code from} on in declaration order. */
  private static String demand(String from, String value) {
    return switch (from) {
      case "forecastRps" ->
          "\"forecastRps\": " + value + ", \"serversNeeded\": 1, \"timeToServeMs\": 0";
      case "serversNeeded" -> "\"serversNeeded\": " + value + ", \"timeToServeMs\": 0";
      default -> throw new IllegalArgumentException(from);
    };
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  @DisplayName("anything else is refused, naming the field and the value")
  void refusals(String what, String json, String message) {
    assertThatThrownBy(() -> LoanTarget.parse(body(json), NOW))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining(message);
  }

  @Test
  @DisplayName("nodes to lend by hand: a list of distinct names")
  void lendRequest() throws Exception {
    assertThat(
            LendRequest.parse(body("{\"nodes\": [\"gpu-inf-1:8041\", \"gpu-inf-2:8041\"]}"))
                .nodes())
        .containsExactly("gpu-inf-1:8041", "gpu-inf-2:8041");
    assertThatThrownBy(() -> LendRequest.parse(body("{\"nodes\": []}")))
        .hasMessage("nodes must be a list of 1-1000 names, was []");
    assertThatThrownBy(() -> LendRequest.parse(body("{\"nodes\": [\"a\", \"a\"]}")))
        .hasMessage("nodes names \"a\" twice");
    assertThatThrownBy(() -> LendRequest.parse(body("{\"nodes\": [\" \"]}")))
        .hasMessageStartingWith("nodes must hold names of 1-256 printable characters");
    assertThatThrownBy(() -> LendRequest.parse(body("{\"node\": \"a\"}")))
        .hasMessageStartingWith("unknown field 'node'");
    assertThat(ArylJson.write(new LendRequest(List.of("a")))).isEqualTo("{\"nodes\":[\"a\"]}");
  }
}
