package io.aryl.core.loan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.loan.RateTrend.Sample;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RateTrendTest {
  static final long NOW = 1_000_000;
  final RateTrend minute = new RateTrend(60_000);

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case: rates every 5 s up to now (oldest first)         | lead ms | forecast
          a flat rate changes nothing                              | 5000    | 10 10 10 10 10                  | 10
          a rise of 1 rps/s is seen one lead ahead                 | 5000    | 10 15 20 25 30                  | 35
          the longer the lead, the further ahead                   | 20000   | 10 15 20 25 30                  | 50
          a falling rate is the rate now, never below              | 5000    | 30 25 20 15 10                  | 10
          a dip after a rise: the trend still rises                | 5000    | 10 20 30 40 35                  | 42
          no lead: the rate now                                    | 0       | 10 15 20 25 30                  | 30
          one sample: no trend                                     | 5000    | 42                              | 42
          """)
  void forecast(String name, long leadMs, String rates, double expected) {
    String[] r = rates.trim().split("\\s+");
    List<Sample> samples = new ArrayList<>();
    for (int i = 0; i < r.length; i++) {
      samples.add(new Sample(NOW - (r.length - 1 - i) * 5_000L, Double.parseDouble(r[i])));
    }
    assertThat(minute.forecast(samples, NOW, leadMs)).isCloseTo(expected, within(1e-9));
  }

  @Test
  @DisplayName("samples older than the window are not read: an old rise is forgotten")
  void oldSamplesAreForgotten() {
    List<Sample> samples =
        List.of(
            new Sample(NOW - 120_000, 0),
            new Sample(NOW - 90_000, 50),
            new Sample(NOW - 10_000, 50),
            new Sample(NOW, 50));
    assertThat(minute.forecast(samples, NOW, 30_000)).isEqualTo(50);
  }

  @Test
  @DisplayName("without the rate now, with a negative lead or window, the call is refused by name")
  void refusals() {
    assertThatThrownBy(() -> minute.forecast(List.of(), NOW, 5_000))
        .hasMessageContaining("rateTrend.samples");
    assertThatThrownBy(() -> minute.forecast(List.of(new Sample(NOW, 1)), NOW, -1))
        .hasMessageContaining("rateTrend.leadMs")
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> new RateTrend(0)).hasMessageContaining("rateTrend.windowMs");
    assertThatThrownBy(() -> new Sample(NOW, -2)).hasMessageContaining("rateTrend.sample.rate");
  }
}
