package io.aryl.core.loan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DemandForecastTest {
  /** 100 rps at night, 1000 rps from 18:00 to 22:00, every day. */
  static final DoubleUnaryOperator DAILY_EVENING_PEAK =
      t -> {
        double hour = (t % 86400) / 3600;
        return hour >= 18 && hour < 22 ? 1000 : 100;
      };

  final DemandForecast twoHours = DemandForecast.daily(2 * 3600);

  @Test
  @DisplayName("on day two the evening rise is foreseen two hours ahead")
  void foreseesTheEveningPeak() {
    double day2At1630 = 86400 + 16.5 * 3600;
    assertThat(twoHours.planningRate(DAILY_EVENING_PEAK, day2At1630)).isEqualTo(1000);
    double day2At1500 = 86400 + 15 * 3600;
    assertThat(twoHours.planningRate(DAILY_EVENING_PEAK, day2At1500)).isEqualTo(100);
  }

  @Test
  @DisplayName("without a day of history the current rate is all there is")
  void firstDayUsesTheCurrentRate() {
    assertThat(twoHours.planningRate(DAILY_EVENING_PEAK, 16.5 * 3600)).isEqualTo(100);
  }

  @Test
  @DisplayName("never below the current rate")
  void neverBelowNow() {
    DoubleUnaryOperator risingToday = t -> t >= 86400 + 3600 ? 500 : 100;
    assertThat(twoHours.planningRate(risingToday, 86400 + 7200)).isEqualTo(500);
  }

  @Test
  @DisplayName("the forecast may only read the past: a horizon as long as the period is refused")
  void horizonShorterThanPeriod() {
    assertThatThrownBy(() -> new DemandForecast(86400, 86400, 600))
        .hasMessageContaining("forecast.horizonS")
        .hasMessageContaining("86400");
  }
}
