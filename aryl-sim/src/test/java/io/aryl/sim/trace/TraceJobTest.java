package io.aryl.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("TraceJob and TraceFormatException")
class TraceJobTest {

  @Test
  @DisplayName("accepts a valid job")
  void valid() {
    TraceJob j = new TraceJob("j1", 0, 0.5, 8, "");

    assertThat(j.gpuSeconds()).isEqualTo(4.0);
  }

  @Test
  @DisplayName("refuses each invalid field, naming it and the value")
  void invalid() {
    assertThatThrownBy(() -> new TraceJob(" ", 0, 1, 1, ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("id must not be blank, was ' '");
    assertThatThrownBy(() -> new TraceJob(null, 0, 1, 1, ""))
        .hasMessageContaining("id must not be blank, was null");
    assertThatThrownBy(() -> new TraceJob("j1", -1, 1, 1, ""))
        .hasMessageContaining("job(j1).submitS")
        .hasMessageContaining("-1.0");
    assertThatThrownBy(() -> new TraceJob("j1", Double.NaN, 1, 1, ""))
        .hasMessageContaining("submitS");
    assertThatThrownBy(() -> new TraceJob("j1", 0, 0, 1, ""))
        .hasMessageContaining("job(j1).durationS")
        .hasMessageContaining("0.0");
    assertThatThrownBy(() -> new TraceJob("j1", 0, Double.POSITIVE_INFINITY, 1, ""))
        .hasMessageContaining("durationS");
    assertThatThrownBy(() -> new TraceJob("j1", 0, 1, 0, ""))
        .hasMessageContaining("job(j1).gpus must be > 0, was 0");
    assertThatThrownBy(() -> new TraceJob("j1", 0, 1, 1, null))
        .hasMessageContaining("job(j1).model");
  }

  @Test
  @DisplayName("TraceFormatException reads FILE:LINE: what, was 'VALUE'")
  void message() {
    TraceFormatException e =
        new TraceFormatException("a/b.csv", 7, "num_gpu must be a whole number > 0", "1.5");

    assertThat(e)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a/b.csv:7: num_gpu must be a whole number > 0, was '1.5'");
    assertThat(e.source()).isEqualTo("a/b.csv");
    assertThat(e.line()).isEqualTo(7);
    assertThat(e.problem()).isEqualTo("num_gpu must be a whole number > 0");
    assertThat(e.value()).isEqualTo("1.5");
  }
}
