package io.aryl.core.predict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.model.Job;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NoisyPredictorTest {
  private static Job job(String id, double remainingS) {
    return Job.builder(id).remainingS(remainingS).build();
  }

  @Property
  void stays_within_plus_or_minus_E_of_the_truth_and_is_never_negative(
      @ForAll @DoubleRange(min = 0, max = 0.99) double maxError,
      @ForAll long seed,
      @ForAll @StringLength(min = 1, max = 30) String id,
      @ForAll @DoubleRange(min = 0, max = 1e7) double remainingS) {
    Assume.that(!id.isBlank()); // not a valid job id
    double predicted = new NoisyPredictor(maxError, seed).predictRemainingS(job(id, remainingS));

    assertThat(predicted).isGreaterThanOrEqualTo(0);
    assertThat(predicted)
        .isBetween(
            remainingS * (1 - maxError) * (1 - 1e-12), remainingS * (1 + maxError) * (1 + 1e-12));
  }

  @Test
  void gives_a_job_the_same_relative_error_in_every_round_whatever_the_call_order() {
    NoisyPredictor first = new NoisyPredictor(0.5, 42);
    NoisyPredictor second = new NoisyPredictor(0.5, 42);

    double early = first.predictRemainingS(job("a", 1000)) / 1000;
    first.predictRemainingS(job("b", 1000));
    first.predictRemainingS(job("c", 1000));
    double late = first.predictRemainingS(job("a", 400)) / 400; // a later round: less work left
    second.predictRemainingS(job("z", 1000)); // another instance, asked in another order
    double elsewhere = second.predictRemainingS(job("a", 1000)) / 1000;

    assertThat(late).isCloseTo(early, within(1e-12));
    assertThat(elsewhere).isCloseTo(early, within(1e-12));
  }

  @Test
  void draws_different_errors_under_different_seeds() {
    int differing = 0;
    for (int i = 0; i < 100; i++) {
      String id = "job-" + i;
      if (new NoisyPredictor(0.5, 1).relativeError(id)
          != new NoisyPredictor(0.5, 2).relativeError(id)) {
        differing++;
      }
    }

    assertThat(differing).isEqualTo(100);
  }

  @Test
  void draws_different_errors_for_different_jobs() {
    NoisyPredictor noisy = new NoisyPredictor(0.5, 7);

    assertThat(noisy.relativeError("job-1")).isNotEqualTo(noisy.relativeError("job-2"));
  }

  @ParameterizedTest(name = "E = {0}")
  @ValueSource(doubles = {0.1, 0.3, 0.5, 0.9})
  void has_a_mean_relative_error_of_about_half_of_E_and_no_bias(double maxError) {
    NoisyPredictor noisy = new NoisyPredictor(maxError, 2024);
    int n = 20_000;
    List<Double> errors = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      errors.add(noisy.predictRemainingS(job("job-" + i, 1000)) / 1000 - 1);
    }

    double meanAbsolute = errors.stream().mapToDouble(Math::abs).average().orElseThrow();
    double mean = errors.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    assertThat(meanAbsolute).isCloseTo(maxError / 2, within(maxError * 0.03));
    assertThat(mean).isCloseTo(0, within(maxError * 0.03));
  }

  @Test
  void with_no_error_is_the_oracle() {
    Job j = job("j", 321);

    assertThat(new NoisyPredictor(0, 5).predictRemainingS(j)).isEqualTo(321);
  }

  @ParameterizedTest(name = "E = {0}")
  @ValueSource(doubles = {-0.1, 1.0, 1.5, Double.NaN, Double.POSITIVE_INFINITY})
  void refuses_an_error_bound_outside_zero_to_one_naming_it(double maxError) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new NoisyPredictor(maxError, 1))
        .withMessageContaining("prediction.maxRelativeError")
        .withMessageContaining(String.valueOf(maxError));
  }
}
