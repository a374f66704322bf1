package io.aryl.core.predict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.core.model.Job;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("HistoryPredictor")
class HistoryPredictorTest {
  private static Job job(String kind, double attainedS) {
    return Job.builder("j").kind(kind).remainingS(1).attainedS(attainedS).build();
  }

  private static HistoryPredictor withHistory(Object... kindThenTotal) {
    HistoryPredictor history = new HistoryPredictor();
    for (int i = 0; i < kindThenTotal.length; i += 2) {
      history.observe((String) kindThenTotal[i], ((Number) kindThenTotal[i + 1]).doubleValue());
    }
    return history;
  }

  @Test
  void predicts_the_median_total_of_the_jobs_kind_less_the_work_already_done() {
    HistoryPredictor history =
        withHistory("bert", 1000, "bert", 5000, "bert", 2000, "resnet", 90_000);

    assertThat(history.predictRemainingS(job("bert", 0))).isEqualTo(2000);
    assertThat(history.predictRemainingS(job("bert", 500))).isEqualTo(1500);
  }

  @Test
  void takes_the_mean_of_the_middle_two_for_an_even_count() {
    HistoryPredictor history = withHistory("bert", 1000, "bert", 2000, "bert", 4000, "bert", 9000);

    assertThat(history.predictRemainingS(job("bert", 0))).isEqualTo(3000);
  }

  @Test
  void is_not_swayed_by_one_runaway_job() {
    HistoryPredictor history = withHistory("bert", 1000, "bert", 1100, "bert", 1_000_000);

    assertThat(history.predictRemainingS(job("bert", 0))).isEqualTo(1100);
  }

  @Test
  void falls_back_to_the_median_over_all_kinds_while_a_kind_has_fewer_than_min_samples() {
    HistoryPredictor history =
        withHistory(
            "gpt", 100, "gpt", 200, // only 2 of 3 needed
            "bert", 1000, "bert", 1000, "bert", 1000);

    assertThat(history.predictRemainingS(job("gpt", 0)))
        .isEqualTo(1000); // median of 100,200,1000,1000,1000
    assertThat(history.predictRemainingS(job("never-seen", 0))).isEqualTo(1000);
    assertThat(history.predictRemainingS(job("", 0))).isEqualTo(1000);

    history.observe("gpt", 300);

    assertThat(history.predictRemainingS(job("gpt", 0))).isEqualTo(200);
  }

  @Test
  void uses_the_configured_default_total_with_no_history_at_all() {
    assertThat(new HistoryPredictor().predictRemainingS(job("bert", 0))).isEqualTo(3600);
    assertThat(new HistoryPredictor(10, 1, 60, 7200).predictRemainingS(job("bert", 200)))
        .isEqualTo(7000);
  }

  @ParameterizedTest(name = "attained {0}s of a 1000s median -> {1}s")
  @MethodSource
  void never_predicts_less_than_the_floor_for_a_job_that_outlived_its_history(
      double attainedS, double expected) {
    HistoryPredictor history = withHistory("bert", 1000, "bert", 1000, "bert", 1000);

    assertThat(history.predictRemainingS(job("bert", attainedS))).isEqualTo(expected);
  }

  static Stream<Arguments>
      never_predicts_less_than_the_floor_for_a_job_that_outlived_its_history() {
    return Stream.of(
        Arguments.of(900, 100),
        Arguments.of(940, 60),
        Arguments.of(990, 60),
        Arguments.of(1000, 60),
        Arguments.of(50_000, 60));
  }

  @Test
  void honours_a_configured_floor() {
    HistoryPredictor history = new HistoryPredictor(10, 1, 5, 3600);
    history.observe("bert", 100);

    assertThat(history.predictRemainingS(job("bert", 99))).isEqualTo(5);
  }

  @Test
  void keeps_only_the_last_window_observations_per_kind() {
    HistoryPredictor history = new HistoryPredictor(3, 3, 60, 3600);
    history.observe("bert", 100);
    history.observe("bert", 200);
    history.observe("bert", 300);
    assertThat(history.predictRemainingS(job("bert", 0))).isEqualTo(200);

    history.observe("bert", 10_000);
    history.observe("bert", 20_000);

    assertThat(history.samples("bert")).isEqualTo(3);
    assertThat(history.predictRemainingS(job("bert", 0)))
        .isEqualTo(10_000); // of 300, 10_000, 20_000
  }

  @Test
  void bounds_memory_under_a_long_stream_of_observations() {
    HistoryPredictor history = new HistoryPredictor();
    for (int i = 0; i < 50_000; i++) {
      history.observe("bert", i);
    }

    assertThat(history.samples("bert")).isEqualTo(HistoryPredictor.DEFAULT_WINDOW);
    assertThat(history.expectedTotalS("bert")).isEqualTo((49_499 + 49_500) / 2.0);
  }

  @Test
  void gives_the_same_predictions_for_the_same_observations() {
    HistoryPredictor a = withHistory("x", 5, "y", 7, "x", 3, "x", 11, "y", 2);
    HistoryPredictor b = withHistory("x", 5, "y", 7, "x", 3, "x", 11, "y", 2);

    for (String kind : new String[] {"x", "y", "z", ""}) {
      assertThat(a.predictRemainingS(job(kind, 1))).isEqualTo(b.predictRemainingS(job(kind, 1)));
    }
  }

  @Test
  void apply_sets_the_prediction_on_the_job() {
    HistoryPredictor history = withHistory("bert", 1000, "bert", 1000, "bert", 1000);

    assertThat(history.apply(job("bert", 250)).predictedRemainingS()).isEqualTo(750);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void refuses_bad_settings_and_observations_naming_the_field_and_value(
      String field, String value, Executable bad) {
    assertThatIllegalArgumentException()
        .isThrownBy(bad::execute)
        .withMessageContaining(field)
        .withMessageContaining(value);
  }

  static Stream<Arguments> refuses_bad_settings_and_observations_naming_the_field_and_value() {
    return Stream.of(
        Arguments.of(
            "history.window", "0", (Executable) () -> new HistoryPredictor(0, 1, 60, 3600)),
        Arguments.of(
            "history.minSamples", "-1", (Executable) () -> new HistoryPredictor(10, -1, 60, 3600)),
        Arguments.of(
            "history.minSamples", "11", (Executable) () -> new HistoryPredictor(10, 11, 60, 3600)),
        Arguments.of(
            "history.floorS", "-5.0", (Executable) () -> new HistoryPredictor(10, 3, -5, 3600)),
        Arguments.of(
            "history.defaultTotalS",
            "NaN",
            (Executable) () -> new HistoryPredictor(10, 3, 60, Double.NaN)),
        Arguments.of(
            "history.totalBaseSeconds",
            "-1.0",
            (Executable) () -> new HistoryPredictor().observe("bert", -1)),
        Arguments.of(
            "history.totalBaseSeconds",
            "Infinity",
            (Executable) () -> new HistoryPredictor().observe("bert", Double.POSITIVE_INFINITY)),
        Arguments.of(
            "history.kind", "null", (Executable) () -> new HistoryPredictor().observe(null, 1)));
  }
}
