package io.aryl.sim.report;

import static io.aryl.sim.report.Fixtures.aryl;
import static io.aryl.sim.report.Fixtures.fifo;
import static io.aryl.sim.report.Fixtures.instant;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ResultsTable")
class ResultsTableTest {
  private static List<String> row(String table, String policy) {
    return table
        .lines()
        .filter(l -> l.startsWith(policy + " "))
        .findFirst()
        .map(l -> Arrays.asList(l.trim().split("\\s+")))
        .orElseThrow(() -> new AssertionError("no row for " + policy + " in\n" + table));
  }

  @Test
  void has_a_row_per_policy_with_the_metrics_in_hours_and_percent() {
    String table = ResultsTable.format(List.of(fifo(), aryl(), instant()), "fifo");

    assertThat(table).contains("fifo", "aryl", "instant", "queue x", "JCT x");
    // Queue 75 s avg, 240 s p95; JCT 1600 s avg, 2800 s p95; 65/60/75 % use; 2 loaned GPU-h; 3
    // preemptions; 5
    // scale-ins; 0.5 lost GPU-h; 42 server-s short, over 21 s of the 10,000 (0.210 %); vs fifo:
    // queue 700/75 = 9.33, JCT 2400/1600 =
    // 1.50.
    // JCT over the bound: aryl's bounds 700, 1200, 1540, 2560 (mean 1500): 1600/1500 = 1.07; fifo's
    // 900, 1700,
    // 2400, 1800 (mean 1700): 2400/1700 = 1.41. Nobody waited a day: 0 starved. p99 and max queue:
    // the longest
    // wait (240 s, 1800 s). Worst slowdown: aryl's j1 800/700 = 1.1, fifo's j4 3600/1800 = 2.0.
    // These results carry
    // no capacity-aware bound, so the JCT over it is the JCT over the per-job bound.
    assertThat(row(table, "aryl"))
        .containsExactly(
            "aryl", "4", "0.02", "0.07", "0.07", "0.07", "0.44", "0.78", "1.07", "1.07", "65.0",
            "60.0", "75.0", "2.0", "3", "5", "0.5", "42", "0.210", "0", "1.1", "9.33", "1.50");
    assertThat(row(table, "fifo"))
        .containsExactly(
            "fifo", "4", "0.19", "0.50", "0.50", "0.50", "0.67", "1.00", "1.41", "1.41", "50.0",
            "50.0", "50.0", "0.0", "0", "0", "0.0", "0", "0.000", "0", "2.0", "1.00", "1.00");
  }

  @Test
  void says_inf_when_only_the_policy_never_queues() {
    String table = ResultsTable.format(List.of(fifo(), aryl(), instant()), "fifo");

    // instant: no queue at all; JCT 1000 s avg, so 2400/1000 = 2.40.
    assertThat(row(table, "instant")).endsWith("inf", "2.40");
  }

  @Test
  void compares_with_a_baseline_anywhere_in_the_list() {
    String table = ResultsTable.format(List.of(aryl(), fifo()), "aryl");

    // fifo against aryl: queue 75/700 = 0.11, JCT 1600/2400 = 0.67.
    assertThat(row(table, "fifo")).endsWith("0.11", "0.67");
    assertThat(row(table, "aryl")).endsWith("1.00", "1.00");
  }

  @Test
  void says_dash_when_neither_queues() {
    String table = ResultsTable.format(List.of(instant(), fifo()), "instant");

    assertThat(row(table, "instant")).endsWith("-", "1.00");
    assertThat(row(table, "fifo")).endsWith("0.00", "0.42");
    assertThat(ResultsTable.ratio(0, 0)).isEqualTo("-");
    assertThat(ResultsTable.ratio(5, 0)).isEqualTo("inf");
    assertThat(ResultsTable.ratio(5, 2)).isEqualTo("2.50");
  }

  @Test
  void leaves_the_ratio_columns_out_without_a_baseline() {
    for (String baseline : new String[] {null, "missing"}) {
      String table = ResultsTable.format(List.of(fifo(), aryl()), baseline);

      assertThat(table).contains("fifo", "aryl").doesNotContain("queue x").doesNotContain("JCT x");
      assertThat(row(table, "aryl")).hasSize(21).endsWith("42", "0.210", "0", "1.1");
    }
  }

  @Test
  void lines_up_the_columns() {
    String table = ResultsTable.format(List.of(fifo(), aryl(), instant()), "fifo");
    List<String> lines = table.lines().toList();

    // Header, rule and the three rows end at the same column; numbers are right-aligned.
    assertThat(lines.subList(0, 5)).extracting(String::length).containsOnly(lines.get(0).length());
    assertThat(lines.get(1)).matches("[- ]+");
    assertThat(lines.get(0)).startsWith("policy ");
    assertThat(table).endsWith("\n");
  }

  @Test
  void does_not_depend_on_the_default_locale() {
    Locale before = Locale.getDefault();
    try {
      Locale.setDefault(Locale.GERMANY);
      assertThat(row(ResultsTable.format(List.of(fifo(), aryl()), "fifo"), "aryl"))
          .contains("9.33", "65.0");
    } finally {
      Locale.setDefault(before);
    }
  }

  @Test
  void formats_no_results_as_just_the_header() {
    assertThat(ResultsTable.format(List.of(), "fifo").lines()).hasSize(2);
  }
}
