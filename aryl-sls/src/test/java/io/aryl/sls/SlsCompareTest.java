package io.aryl.sls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("SlsCompare: the summaries of SLS runs side by side, and the first over the second")
class SlsCompareTest {
  /** A run of 100 jobs on 1000 nodes; {@code finished} and {@code grew} vary, the rest as given. */
  private static SlsSummary summary(
      String scheduler, int finished, int grew, double queueP50S, double peakRate) {
    return new SlsSummary(
        scheduler,
        finished == 100,
        600,
        1000,
        8000,
        100,
        finished,
        40,
        grew,
        12,
        1.5,
        3.5,
        queueP50S,
        90.5,
        300,
        550,
        0.8125,
        5000,
        8.5,
        peakRate,
        250,
        1.25,
        4.5,
        9.75,
        0.5,
        2.25,
        3.5,
        0.125,
        0.5,
        0.0625,
        0.25,
        2048);
  }

  private static final SlsSummary ARYL = summary("aryl", 100, 30, 12.5, 40);
  private static final SlsSummary CAPACITY = summary("capacity", 50, 0, 50, 20);

  private static List<String> lines(String table) {
    return Arrays.asList(table.split("\n"));
  }

  /** The table row of {@code measure}, as its cells. */
  private static List<String> row(String table, String measure) {
    return lines(table).stream()
        .filter(l -> l.startsWith("| " + measure + " |"))
        .findFirst()
        .map(
            l ->
                Arrays.stream(l.substring(1, l.length() - 1).split("\\|"))
                    .map(String::strip)
                    .toList())
        .orElseThrow(() -> new AssertionError("no row '" + measure + "' in\n" + table));
  }

  @Test
  @DisplayName("the header names both schedulers and a ratio column of the first over the second")
  void header() {
    List<String> table = lines(SlsCompare.table(List.of(ARYL, CAPACITY)));

    assertThat(table.get(0)).isEqualTo("| measure | aryl | capacity | aryl / capacity |");
    assertThat(table.get(1)).isEqualTo("|---|---:|---:|---:|");
  }

  @ParameterizedTest(name = "{0}: {1} and {2}, ratio {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        // measure                                  | aryl   | capacity | aryl / capacity
        "jobs finished                              | 100    | 50       | 2.00",
        "jobs submitted                             | 100    | 100      | 1.00",
        "queue time p50 (s)                         | 12.5   | 50.0     | 0.25",
        "peak allocation rate, 10 s (containers/s)  | 40.00  | 20.00    | 2.00",
        "GPU utilisation (%)                        | 81.3   | 81.3     | 1.00",
        // the second is 0: no ratio
        "elastic jobs that grew                     | 30     | 0        | -",
      })
  @DisplayName(
      "each row holds both values in its format and the ratio of the first over the second, '-' if the"
          + " second is 0")
  void rows(String measure, String aryl, String capacity, String ratio) {
    String table = SlsCompare.table(List.of(ARYL, CAPACITY));

    assertThat(row(table, measure.strip())).containsExactly(measure.strip(), aryl, capacity, ratio);
  }

  @Test
  @DisplayName("the ratio is first over second, so swapping the runs inverts it")
  void ratioOrder() {
    String table = SlsCompare.table(List.of(CAPACITY, ARYL));

    assertThat(lines(table).get(0)).isEqualTo("| measure | capacity | aryl | capacity / aryl |");
    assertThat(row(table, "jobs finished")).containsExactly("jobs finished", "50", "100", "0.50");
    assertThat(row(table, "elastic jobs that grew"))
        .containsExactly("elastic jobs that grew", "0", "30", "0.00");
  }

  @Test
  @DisplayName("a measure that is 0 in both runs has no ratio")
  void bothZero() {
    SlsSummary a = summary("aryl", 0, 0, 0, 0);
    SlsSummary b = summary("capacity", 0, 0, 0, 0);

    assertThat(row(SlsCompare.table(List.of(a, b)), "jobs finished"))
        .containsExactly("jobs finished", "0", "0", "-");
  }

  @Test
  @DisplayName("every row of a two-run table has four cells, and the table has a row per measure")
  void shape() {
    List<String> table = lines(SlsCompare.table(List.of(ARYL, CAPACITY)));

    assertThat(table).hasSizeGreaterThan(20);
    assertThat(table).allSatisfy(l -> assertThat(l).startsWith("|").endsWith("|"));
    assertThat(table.subList(2, table.size()))
        .allSatisfy(l -> assertThat(l.chars().filter(c -> c == '|')).hasSize(5));
  }

  @Test
  @DisplayName("one run, or three, get a column each and no ratio")
  void noRatioUnlessTwo() {
    assertThat(lines(SlsCompare.table(List.of(ARYL))).get(0)).isEqualTo("| measure | aryl |");
    assertThat(lines(SlsCompare.table(List.of(ARYL))).get(1)).isEqualTo("|---|---:|");
    assertThat(row(SlsCompare.table(List.of(ARYL)), "jobs finished"))
        .containsExactly("jobs finished", "100");

    String three = SlsCompare.table(List.of(ARYL, CAPACITY, ARYL));
    assertThat(lines(three).get(0)).isEqualTo("| measure | aryl | capacity | aryl |");
    assertThat(row(three, "jobs finished")).containsExactly("jobs finished", "100", "50", "100");
  }

  @Test
  @DisplayName("read() of a directory without summary.json names the directory")
  void readWithoutSummary(@TempDir Path dir) {
    assertThatThrownBy(() -> SlsCompare.read(dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no summary.json in " + dir);
  }

  @Test
  @DisplayName("a summary written to summary.json as SlsRun writes it reads back the same")
  void roundTrip(@TempDir Path dir) throws IOException {
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(dir.resolve("summary.json").toFile(), ARYL);

    assertThat(SlsCompare.read(dir)).isEqualTo(ARYL);
  }

  @Test
  @DisplayName(
      "summary.json holds the record's components by name, and nothing else (not the one-line text)")
  void summaryJsonFields(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("summary.json");
    new ObjectMapper().writeValue(file.toFile(), CAPACITY);

    var json = new ObjectMapper().readTree(file.toFile());
    assertThat(json.path("scheduler").asText()).isEqualTo("capacity");
    assertThat(json.path("finished").asInt()).isEqualTo(50);
    assertThat(json.path("peakAllocationRatePerS").asDouble()).isEqualTo(20);
    assertThat(json.size()).isEqualTo(SlsSummary.class.getRecordComponents().length);
    assertThat(Files.readString(file)).doesNotContain("oneLine");
  }
}
