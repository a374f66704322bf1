package io.aryl.core.speedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Specification of the {@link SpeedupModel}s: linear, power law and measured. (No class-level
 * {@code @DisplayName}: jqwik, which runs the {@code @Property} methods, warns about JUnit
 * annotations it cannot process.)
 */
class SpeedupModelsTest {
  private static final double EPS = 1e-12;

  @Nested
  @DisplayName("linear")
  class Linear {
    private final SpeedupModel linear = SpeedupModel.linear();

    @Test
    @DisplayName("n workers run n times as fast as one")
    void throughputIsWorkers() {
      assertThat(linear.throughput(1)).isEqualTo(1.0);
      assertThat(linear.throughput(7)).isEqualTo(7.0);
      assertThat(linear.speedup(2, 8)).isEqualTo(4.0);
    }

    @Test
    @DisplayName("zero workers is an error naming the value")
    void zeroWorkers() {
      assertThatThrownBy(() -> linear.throughput(0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("workers must be > 0, was 0");
    }
  }

  @Nested
  @DisplayName("power law")
  class PowerLaw {
    @Test
    @DisplayName("throughput is n^exponent: 16 workers at 0.5 are 4 times one")
    void throughputIsPower() {
      SpeedupModel s = SpeedupModel.powerLaw(0.5);
      assertThat(s.throughput(1)).isEqualTo(1.0);
      assertThat(s.throughput(16)).isCloseTo(4.0, within(EPS));
      assertThat(s.speedup(4, 16)).isCloseTo(2.0, within(EPS));
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {1, 2, 3, 7, 64, 127, 128, 129, 1000})
    @DisplayName(
        "every width, within the widths worked out ahead and beyond them, is Math.pow to the last bit")
    void throughputIsMathPowExactly(int workers) {
      assertThat(SpeedupModel.powerLaw(0.8).throughput(workers)).isEqualTo(Math.pow(workers, 0.8));
      assertThat(SpeedupModel.powerLaw(0.37).throughput(workers))
          .isEqualTo(Math.pow(workers, 0.37));
    }

    @Test
    @DisplayName("two models of one exponent are equal, of two exponents not")
    void equalByExponent() {
      assertThat(SpeedupModel.powerLaw(0.8))
          .isEqualTo(SpeedupModel.powerLaw(0.8))
          .hasSameHashCodeAs(SpeedupModel.powerLaw(0.8))
          .isNotEqualTo(SpeedupModel.powerLaw(0.9))
          .hasToString("power-law(0.8)");
    }

    @Test
    @DisplayName("exponent 1 is linear")
    void exponentOneIsLinear() {
      assertThat(SpeedupModel.powerLaw(1).throughput(12)).isCloseTo(12.0, within(EPS));
    }

    @ParameterizedTest(name = "exponent {0}")
    @ValueSource(doubles = {0.0, -0.5, 1.0000001, 2.0, Double.NaN, Double.POSITIVE_INFINITY})
    @DisplayName("an exponent outside (0, 1] is an error naming speedup.exponent and the value")
    void exponentOutOfBounds(double exponent) {
      assertThatThrownBy(() -> SpeedupModel.powerLaw(exponent))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("speedup.exponent must be within (0, 1], was " + exponent);
    }
  }

  @Nested
  @DisplayName("measured")
  class Measured {
    /** 1 -> 10, 2 -> 18, 4 -> 30 samples/s: relative 1, 1.8, 3. */
    private final MeasuredSpeedup table =
        new MeasuredSpeedup("t", Map.of(1, 10.0, 2, 18.0, 4, 30.0));

    @Test
    @DisplayName("is normalized to the 1-worker throughput")
    void normalizedToOneWorker() {
      assertThat(table.throughput(1)).isEqualTo(1.0);
      assertThat(table.throughput(2)).isCloseTo(1.8, within(EPS));
      assertThat(table.throughput(4)).isCloseTo(3.0, within(EPS));
      assertThat(table.maxMeasuredWorkers()).isEqualTo(4);
    }

    @Test
    @DisplayName("interpolates linearly between measured counts")
    void interpolates() {
      assertThat(table.throughput(3)).isCloseTo((1.8 + 3.0) / 2, within(EPS));
      MeasuredSpeedup sparse = new MeasuredSpeedup("s", Map.of(1, 1.0, 5, 3.0));
      assertThat(sparse.throughput(2)).isCloseTo(1.5, within(EPS));
      assertThat(sparse.throughput(4)).isCloseTo(2.5, within(EPS));
    }

    @Test
    @DisplayName("stays flat beyond the largest measured count")
    void flatBeyondLargest() {
      assertThat(table.throughput(5)).isEqualTo(table.throughput(4));
      assertThat(table.throughput(1_000)).isEqualTo(table.throughput(4));
    }

    @Test
    @DisplayName("a table without a 1-worker point is an error naming the table and its counts")
    void missingOneWorker() {
      assertThatThrownBy(() -> new MeasuredSpeedup("no-one", Map.of(2, 18.0, 4, 30.0)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'no-one'")
          .hasMessageContaining("1 worker")
          .hasMessageContaining("[2, 4]");
    }

    @Test
    @DisplayName("a non-positive throughput is an error naming the point")
    void badPoint() {
      assertThatThrownBy(() -> new MeasuredSpeedup("bad", Map.of(1, 10.0, 2, 0.0)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("workers=2, throughput=0.0");
    }

    @Test
    @DisplayName("zero workers is an error")
    void zeroWorkers() {
      assertThatThrownBy(() -> table.throughput(0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("workers must be > 0, was 0");
    }
  }

  // jqwik properties live at the top level: jqwik does not look inside JUnit @Nested classes.

  @Property
  @Label("power law never beats linear and never loses throughput by adding a worker")
  boolean powerLawBoundedByLinearAndMonotone(
      @ForAll @DoubleRange(min = 0.01, max = 1.0) double exponent,
      @ForAll @IntRange(min = 1, max = 10_000) int n) {
    SpeedupModel s = SpeedupModel.powerLaw(exponent);
    return s.throughput(n) >= 1
        && s.throughput(n) <= n + EPS
        && s.throughput(n + 1) >= s.throughput(n);
  }

  @Property
  @Label("measured: a value between two measured counts lies between their throughputs")
  boolean measuredInterpolationStaysBetweenNeighbours(
      @ForAll @DoubleRange(min = 0.1, max = 100) double atK,
      @ForAll @IntRange(min = 2, max = 64) int k,
      @ForAll @IntRange(min = 1, max = 64) int n) {
    MeasuredSpeedup s = new MeasuredSpeedup("p", Map.of(1, 1.0, k, atK));
    double v = s.throughput(n);
    return v >= Math.min(1.0, atK) - EPS && v <= Math.max(1.0, atK) + EPS;
  }
}
