package io.aryl.serve.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Arrivals: open-loop Poisson arrivals on a piecewise-constant rate")
class ArrivalsTest {
  /** 20 s at 50/s, 20 s idle, 20 s at 200/s. */
  private static final RateCurve CURVE = new RateCurve(20, new double[] {50, 0, 200});

  @Test
  @DisplayName("the same curve and seed give the same times; another seed other times")
  void deterministic() {
    double[] a = Arrivals.times(CURVE, 42);
    assertThat(Arrivals.times(CURVE, 42)).containsExactly(a);
    assertThat(Arrays.equals(Arrivals.times(CURVE, 43), a)).isFalse();
  }

  @Test
  @DisplayName("times ascend and stay within the curve")
  void ordered() {
    double[] a = Arrivals.times(CURVE, 1);
    assertThat(a).isSorted();
    assertThat(a[0]).isGreaterThanOrEqualTo(0);
    assertThat(a[a.length - 1]).isLessThan(CURVE.durationS());
  }

  @Test
  @DisplayName("each step holds its rate's count within 4 standard deviations, none when idle")
  void ratePerStep() {
    for (long seed = 1; seed <= 20; seed++) {
      double[] a = Arrivals.times(CURVE, seed);
      long first = Arrays.stream(a).filter(t -> t < 20).count();
      long idle = Arrays.stream(a).filter(t -> t >= 20 && t < 40).count();
      long last = Arrays.stream(a).filter(t -> t >= 40).count();
      // Poisson: mean = variance = rate x 20 s
      assertThat((double) first)
          .isCloseTo(1000, org.assertj.core.data.Offset.offset(4 * Math.sqrt(1000)));
      assertThat(idle).isZero();
      assertThat((double) last)
          .isCloseTo(4000, org.assertj.core.data.Offset.offset(4 * Math.sqrt(4000)));
    }
  }

  @Test
  @DisplayName("gaps are exponential: their mean is 1 / rate and their coefficient of variation 1")
  void exponentialGaps() {
    RateCurve steady = new RateCurve(100, new double[] {100});
    double[] a = Arrivals.times(steady, 7);
    double[] gaps = new double[a.length - 1];
    for (int i = 1; i < a.length; i++) {
      gaps[i - 1] = a[i] - a[i - 1];
    }
    double mean = Arrays.stream(gaps).average().orElseThrow();
    double sd =
        Math.sqrt(Arrays.stream(gaps).map(g -> (g - mean) * (g - mean)).sum() / gaps.length);
    assertThat(mean).isCloseTo(0.01, org.assertj.core.data.Offset.offset(0.0005));
    assertThat(sd / mean).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.05));
  }
}
