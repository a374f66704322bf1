package io.aryl.serve.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.sim.trace.InferenceCurve;
import io.aryl.sim.trace.ServeGenTrace;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RateCurve: a ServeGen curve sliced, compressed and scaled for the load generator")
class RateCurveTest {
  private static final InferenceCurve TRACE =
      ServeGenTrace.read(
          new ByteArrayInputStream(
              """
              model,window_start_s,total_rate_rps,active_clients
              m,0,10,1
              m,600,20,1
              m,1200,30,1
              m,1800,40,1
              other,0,99,1
              other,600,99,1
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test.csv",
          "m");

  @Test
  @DisplayName("--compress 60 plays a 10-minute window in 10 s at the window's rate, scaled")
  void compressAndScale() {
    RateCurve c = RateCurve.of(TRACE, 0, 0, 60, 0.5);
    assertThat(c.stepS()).isEqualTo(10.0);
    assertThat(c.rps()).containsExactly(5, 10, 15, 20);
    assertThat(c.durationS()).isEqualTo(40.0);
    assertThat(c.expectedRequests()).isEqualTo(500.0);
  }

  @Test
  @DisplayName("a slice starts at the window holding --from-s and spans --duration-s")
  void slice() {
    assertThat(RateCurve.of(TRACE, 700, 1200, 600, 1).rps()).containsExactly(20, 30);
    assertThat(RateCurve.of(TRACE, 1200, 0, 600, 1).rps()).containsExactly(30, 40);
  }

  @Test
  @DisplayName("bad options are refused naming the option and the value")
  void refusals() {
    assertThatThrownBy(() -> RateCurve.of(TRACE, 0, 0, 0, 1))
        .hasMessage("--compress must be a number > 0, was 0.0");
    assertThatThrownBy(() -> RateCurve.of(TRACE, 0, 0, 60, -1))
        .hasMessage("--rate-scale must be a number >= 0, was -1.0");
    assertThatThrownBy(() -> RateCurve.of(TRACE, 2400, 0, 60, 1))
        .hasMessage("--from-s must be within the trace (0 to 2400.0 s), was 2400.0");
  }
}
