package io.aryl.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("ServeGenTrace and InferenceCurve")
class ServeGenTraceTest {
  private static final String HEADER = "model,window_start_s,total_rate_rps,active_clients\n";

  private static final String TWO_MODELS =
      HEADER
          + "m-large,0,212.78,43\n"
          + "m-large,600,179.6983,40\n"
          + "m-small,0,10,1\n"
          + "m-small,600,20.5,2\n"
          + "m-small,1200,30,3\n"
          + "m-small,1800,0.0,0\n";

  @TempDir Path dir;

  private Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  @Test
  @DisplayName("reads the chosen model's windows exactly")
  void selectsModel() throws IOException {
    Path f = write("rates.csv", TWO_MODELS);

    InferenceCurve small = ServeGenTrace.read(f, "m-small");
    InferenceCurve large = ServeGenTrace.read(f, "m-large");

    assertThat(small).isEqualTo(new InferenceCurve("m-small", 600, new double[] {10, 20.5, 30, 0}));
    assertThat(small.windows()).isEqualTo(4);
    assertThat(small.durationS()).isEqualTo(2400);
    assertThat(small.peak()).isEqualTo(30);
    assertThat(small.mean()).isEqualTo((10 + 20.5 + 30 + 0) / 4);
    assertThat(large.rates()).containsExactly(212.78, 179.6983);
  }

  @Test
  @DisplayName("refuses a model the file does not have, listing those it has")
  void absentModel() throws IOException {
    Path f = write("rates.csv", TWO_MODELS);

    assertThatThrownBy(() -> ServeGenTrace.read(f, "m-mid"))
        .isInstanceOf(IllegalArgumentException.class)
        .isNotInstanceOf(TraceFormatException.class)
        .hasMessage(f + ": no line for model 'm-mid'; models present: m-large, m-small");
  }

  @Test
  @DisplayName("refuses a model with a single window: its length is unknown")
  void singleWindow() throws IOException {
    Path f = write("rates.csv", HEADER + "solo,0,1,1\n");

    assertThatThrownBy(() -> ServeGenTrace.read(f, "solo"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'solo' has a single window");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "gap                 | m-small,1800,30,3   | 1800 | must be contiguous and 600 s apart: expected 1200",
        "overlap             | m-small,900,30,3    | 900  | must be contiguous and 600 s apart: expected 1200",
        "out of order        | m-small,0,30,3      | 0    | must be contiguous and 600 s apart: expected 1200",
        "negative rate       | m-small,1200,-1,3   | -1   | total_rate_rps must be >= 0",
        "rate not a number   | m-small,1200,fast,3 | fast | total_rate_rps must be a number",
        "rate Infinity       | m-small,1200,Infinity,3 | Infinity | total_rate_rps must be a number",
        "start not a number  | m-small,later,30,3  | later | window_start_s must be a number",
        "start negative      | m-small,-600,30,3   | -600 | window_start_s must be >= 0",
        "clients negative    | m-small,1200,30,-3  | -3   | active_clients must be >= 0",
        "too many columns    | m-small,1200,30,3,x | m-small,1200,30,3,x | expected 4 comma-separated columns",
        "blank model         | ,1200,30,3          | ''   | model must not be blank",
        "other model's line  | m-large,0,-5,3      | -5   | total_rate_rps must be >= 0",
      })
  void malformed(String what, String line, String value, String problem) throws IOException {
    Path f = write("bad-rates.csv", HEADER + "m-small,0,10,1\nm-small,600,20,2\n" + line + "\n");

    assertThatThrownBy(() -> ServeGenTrace.read(f, "m-small"))
        .as(what)
        .isInstanceOf(TraceFormatException.class)
        .hasMessageStartingWith(f + ":4: ")
        .hasMessageContaining(problem)
        .hasMessageEndingWith(", was '" + value + "'");
  }

  @Test
  @DisplayName("refuses a curve that does not start at the trace's t=0")
  void firstWindowAtZero() throws IOException {
    Path f = write("late.csv", HEADER + "m-small,600,10,1\nm-small,1200,20,2\n");

    assertThatThrownBy(() -> ServeGenTrace.read(f, "m-small"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessage(f + ":2: the first window of model 'm-small' must start at 0, was '600'");
  }

  @Test
  @DisplayName("refuses a second window starting at 0, naming its line")
  void zeroSpacing() throws IOException {
    Path f = write("dup.csv", HEADER + "m-small,0,10,1\nm-small,0,20,2\n");

    assertThatThrownBy(() -> ServeGenTrace.read(f, "m-small"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageStartingWith(f + ":3: ")
        .hasMessageEndingWith("was '0'");
  }

  @Nested
  @DisplayName("InferenceCurve")
  class Curve {
    private final InferenceCurve curve = new InferenceCurve("m", 600, new double[] {10, 20, 30});

    @Test
    @DisplayName("is piecewise constant over its windows")
    void piecewise() {
      assertThat(curve.rateAt(0)).isEqualTo(10);
      assertThat(curve.rateAt(599.999)).isEqualTo(10);
      assertThat(curve.rateAt(600)).isEqualTo(20);
      assertThat(curve.rateAt(1199.5)).isEqualTo(20);
      assertThat(curve.rateAt(1200)).isEqualTo(30);
      assertThat(curve.rateAt(1799.999)).isEqualTo(30);
    }

    @Test
    @DisplayName("repeats itself past its end")
    void cyclic() {
      assertThat(curve.durationS()).isEqualTo(1800);
      assertThat(curve.rateAt(1800)).isEqualTo(10);
      assertThat(curve.rateAt(2400)).isEqualTo(20);
      assertThat(curve.rateAt(5 * 1800 + 1250)).isEqualTo(30);
      assertThat(curve.rateAt(1e9)).isEqualTo(curve.rateAt(1e9 % 1800));
    }

    @Test
    @DisplayName("has peak and time-weighted mean")
    void peakMean() {
      assertThat(curve.peak()).isEqualTo(30);
      assertThat(curve.mean()).isCloseTo(20, within(1e-12));
    }

    @Test
    @DisplayName("refuses negative or non-finite times")
    void badTime() {
      assertThatThrownBy(() -> curve.rateAt(-1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("-1");
      assertThatThrownBy(() -> curve.rateAt(Double.NaN))
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("is validated at construction, naming the field and value")
    void validated() {
      assertThatThrownBy(() -> new InferenceCurve(" ", 600, new double[] {1}))
          .hasMessageContaining("model must not be blank");
      assertThatThrownBy(() -> new InferenceCurve("m", 0, new double[] {1}))
          .hasMessageContaining("windowS")
          .hasMessageContaining("0.0");
      assertThatThrownBy(() -> new InferenceCurve("m", 600, new double[0]))
          .hasMessageContaining("at least one");
      assertThatThrownBy(() -> new InferenceCurve("m", 600, new double[] {1, -2}))
          .hasMessageContaining("rates[1]")
          .hasMessageContaining("-2.0");
    }

    @Test
    @DisplayName("copies its array in and out, and compares by content")
    void immutable() {
      double[] in = {1, 2};
      InferenceCurve c = new InferenceCurve("m", 60, in);
      in[0] = 99;
      c.rates()[1] = 99;

      assertThat(c.rates()).containsExactly(1, 2);
      InferenceCurve same = new InferenceCurve("m", 60, new double[] {1, 2});
      assertThat(c).isEqualTo(same).hasSameHashCodeAs(same);
      assertThat(c).isNotEqualTo(new InferenceCurve("m", 60, new double[] {1, 3}));
    }
  }
}
