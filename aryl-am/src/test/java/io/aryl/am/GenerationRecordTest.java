package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GenerationRecordTest {
  private static final String TWO_WORKERS =
      """
      {"format": 1, "generation": 4, "attempt": 2, "running": true, "masterAddr": "h2", "masterPort": 21234,
       "workers": [{"container": "c9", "host": "h2", "rank": 0}, {"container": "c1", "host": "h1", "rank": 1}]}
      """;

  private static GenerationRecord parse(String json) {
    return GenerationRecord.fromJson(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName(
      "reads the documented format: ranks in order, hosts, master, number, attempt, running")
  void readsTheFormat() {
    GenerationRecord r = parse(TWO_WORKERS);
    assertThat(r.attempt()).isEqualTo(2);
    assertThat(r.running()).isTrue();
    Generation g = r.generation();
    assertThat(g.number()).isEqualTo(4);
    assertThat(g.ranks()).containsExactly(Map.entry("c9", 0), Map.entry("c1", 1));
    assertThat(g.hosts()).containsEntry("c9", "h2").containsEntry("c1", "h1");
    assertThat(g.masterAddr()).isEqualTo("h2");
    assertThat(g.masterPort()).isEqualTo(21234);
  }

  @Test
  @DisplayName("what it writes it reads back equal, with the same environment for every worker")
  void roundTrip() {
    Generation g =
        Generation.assign(
            7,
            List.of(
                new Generation.Member("c3", "b"),
                new Generation.Member("c1", "a"),
                new Generation.Member("c2", "b")),
            null,
            99);
    for (boolean running : new boolean[] {true, false}) {
      GenerationRecord written = new GenerationRecord(g, 3, running);
      GenerationRecord read = GenerationRecord.fromJson(written.toJson());
      assertThat(read).isEqualTo(written);
      assertThat(read.generation().ranks().keySet()).containsExactly("c1", "c2", "c3");
      for (String id : g.ranks().keySet()) {
        assertThat(read.generation().env(id)).isEqualTo(g.env(id));
      }
    }
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("", "is empty"),
        Arguments.of("{\"format\": 1, \"generation\": 4", "not JSON"),
        Arguments.of("[1, 2]", "must be a JSON object, was [1,2]"),
        Arguments.of(
            TWO_WORKERS.replace("\"format\": 1", "\"format\": 2"), "format must be 1, was 2"),
        Arguments.of(
            TWO_WORKERS.replace("\"running\": true", "\"running\": \"yes\""),
            "running must be true or false, was \"yes\""),
        Arguments.of(
            TWO_WORKERS.replace("\"generation\": 4", "\"generation\": \"4\""),
            "generation must be an integer, was \"4\""),
        Arguments.of(
            TWO_WORKERS.replace("\"generation\": 4", "\"generation\": 0"),
            "generation number must be >= 1, was 0"),
        Arguments.of(
            TWO_WORKERS.replace("\"attempt\": 2", "\"attempt\": 0"), "attempt must be >= 1, was 0"),
        Arguments.of(
            TWO_WORKERS.replace("\"masterPort\": 21234", "\"masterPort\": 70000"),
            "masterPort must be 1-65535, was 70000"),
        Arguments.of(
            TWO_WORKERS.replace("\"masterAddr\": \"h2\"", "\"masterAddr\": \"h1\""),
            "masterAddr must be rank 0's host h2, was h1"),
        Arguments.of(
            TWO_WORKERS.replace("\"rank\": 1", "\"rank\": 2"), "ranks must be 0..1 in order, was"),
        Arguments.of(
            TWO_WORKERS.replace("\"container\": \"c1\"", "\"container\": \"c9\""),
            "workers: container c9 appears twice"),
        Arguments.of(
            TWO_WORKERS.replace("\"host\": \"h1\", ", ""),
            "host must be a non-empty string, was null"),
        Arguments.of(
            TWO_WORKERS.replace("\"workers\": [", "\"workers\": [],\"x\": ["),
            "ranks must not be empty"));
  }

  @ParameterizedTest(name = "refused: {1}")
  @MethodSource("invalid")
  @DisplayName(
      "anything but a whole, consistent record is refused with a message naming the field and value")
  void refusesInvalid(String json, String message) {
    assertThatThrownBy(() -> parse(json))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
