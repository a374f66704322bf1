package io.aryl.core.loan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TimeToServeTest {

  @ParameterizedTest(name = "{0}: measures [{2}] in a window of {1} give {3} ms")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                      | window | measures (oldest first)        | figure
          nothing measured: the seed                  | 5      | ''                             | 30000
          one measure replaces the seed               | 5      | 4100                           | 4100
          a fast reclaim does not shorten it (p90)    | 10     | 4100 4800 4300 4500 4200 4400 4600 4700 4900 1000 | 4800
          a slow one among ten is above the p90       | 10     | 4100 4200 4300 4400 4500 4600 4700 4800 4900 9000 | 4900
          p90 of two is the larger                    | 5      | 4100 4800                      | 4800
          only the last window count                  | 3      | 9000 9000 2000 2100 2200       | 2200
          """)
  void figure(String name, int window, String measures, long figure) {
    TimeToServe t = TimeToServe.seeded(30_000, window);
    for (long m : parse(measures)) {
      t = t.with(m);
    }
    assertThat(t.figureMs()).isEqualTo(figure);
    assertThat(t.measured()).isEqualTo(!measures.isBlank());
    assertThat(t.samplesMs()).hasSizeLessThanOrEqualTo(window);
  }

  @Test
  @DisplayName("a negative measure or seed, and a window of 0, are refused by name")
  void refusals() {
    assertThatThrownBy(() -> TimeToServe.seeded(30_000, 5).with(-1))
        .hasMessageContaining("time to serve")
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> TimeToServe.seeded(-5, 5))
        .hasMessageContaining("timeToServe.seedMs")
        .hasMessageContaining("-5");
    assertThatThrownBy(() -> TimeToServe.seeded(30_000, 0))
        .hasMessageContaining("timeToServe.window");
  }

  private static List<Long> parse(String measures) {
    return measures.isBlank()
        ? List.of()
        : Arrays.stream(measures.trim().split("\\s+")).map(Long::valueOf).toList();
  }
}
