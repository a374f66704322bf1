package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RateTraceTest {
  @TempDir Path dir;

  private Path csv() throws Exception {
    Path f = dir.resolve("rates.csv");
    Files.writeString(
        f,
        """
        model,window_start_s,total_rate_rps,active_clients
        m-large,0,9.0,1
        m-small,0,100.0,3
        m-small,600,250.5,3
        m-small,1200,40.0,2
        """);
    return f;
  }

  @Test
  void readsOneModelAsAStepFunctionThatWraps() throws Exception {
    RateTrace t = RateTrace.read(csv(), "m-small");
    assertThat(t.windows()).isEqualTo(3);
    assertThat(t.periodS()).isEqualTo(1800);
    assertThat(t.rateAt(0)).isEqualTo(100.0);
    assertThat(t.rateAt(599)).isEqualTo(100.0);
    assertThat(t.rateAt(600)).isEqualTo(250.5);
    assertThat(t.rateAt(1799)).isEqualTo(40.0);
    assertThat(t.rateAt(1800 + 700)).isEqualTo(250.5);
    assertThat(RateTrace.read(csv(), "").rateAt(5)).as("first model").isEqualTo(9.0);
  }

  @Test
  void replayScalesTimeAndRate() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000);
    ReplayDemand r = new ReplayDemand(RateTrace.read(csv(), "m-small"), 600, 0, 2, now::get);
    assertThat(r.rate()).isEqualTo(200.0);
    now.addAndGet(1000); // one wall second = one 600 s window
    assertThat(r.rate()).isEqualTo(501.0);
    now.addAndGet(1000);
    assertThat(r.rate()).isEqualTo(80.0);
  }

  @Test
  void refusesAFileWithoutTheColumnsOrTheModel() throws Exception {
    Path bad = dir.resolve("bad.csv");
    Files.writeString(bad, "a,b\n1,2\n");
    assertThatThrownBy(() -> RateTrace.read(bad, "")).hasMessageContaining("window_start_s");
    assertThatThrownBy(() -> RateTrace.read(csv(), "m-huge")).hasMessageContaining("m-huge");
  }
}
