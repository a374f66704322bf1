package io.aryl.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The slices in {@code src/main/resources/traces/}; the numbers are those of the README there. */
@DisplayName("BundledTraces")
class BundledTracesTest {

  @Test
  @DisplayName("the ITP slice holds the 2,571 cluster04 jobs of days 44 to 51, original times kept")
  void itpSlice() {
    List<TraceJob> jobs = BundledTraces.itpSlice();

    assertThat(jobs).hasSize(2571);
    assertThat(jobs.get(0))
        .isEqualTo(new TraceJob("bac770a4-c86e-cb62-84c0-a2e5dcbc8f64", 3807131, 19949, 8, ""));
    assertThat(jobs.get(jobs.size() - 1))
        .isEqualTo(new TraceJob("e5d6ce9f-c751-f523-897c-9f4e19870d8c", 4405412, 43770, 8, ""));
    assertThat(jobs)
        .allSatisfy(
            j ->
                assertThat(j.submitS())
                    .isGreaterThanOrEqualTo(BundledTraces.ITP_SLICE_START_S)
                    .isLessThan(BundledTraces.ITP_SLICE_END_S));
    assertThat(BundledTraces.ITP_SLICE_END_S - BundledTraces.ITP_SLICE_START_S)
        .isEqualTo(7 * 86400);
    assertThat(jobs.stream().mapToDouble(TraceJob::gpuSeconds).sum() / 3600)
        .isCloseTo(81442, within(1.0));
    assertThat(jobs.stream().filter(j -> j.gpus() == 1).count()).isEqualTo(1979);
    assertThat(jobs.stream().filter(j -> j.gpus() == 8).count()).isEqualTo(461);
  }

  @Test
  @DisplayName("the ServeGen curve holds the 2,016 ten-minute windows of m-small, its 37 gaps kept")
  void servegen() {
    InferenceCurve c = BundledTraces.servegenMSmall();

    assertThat(c.model()).isEqualTo(BundledTraces.SERVEGEN_MODEL).isEqualTo("m-small");
    assertThat(c.windows()).isEqualTo(2016);
    assertThat(c.windowS()).isEqualTo(600);
    assertThat(c.durationS()).isEqualTo(14 * 86400);
    assertThat(c.rateAt(0)).isEqualTo(809.7617);
    assertThat(c.rateAt(1209000)).isEqualTo(976.795);
    assertThat(c.peak()).isEqualTo(3879.5083);
    assertThat(c.rateAt(1023600)).isEqualTo(3879.5083);
    assertThat(c.mean()).isCloseTo(1174.4, within(0.05));
    assertThat(Arrays.stream(c.rates()).filter(r -> r == 0).count()).isEqualTo(37);
  }

  @Test
  @DisplayName("ships the upstream licenses and the README beside the data")
  void licenses() {
    for (String r :
        new String[] {"/traces/LICENSE.itp", "/traces/LICENSE.servegen", "/traces/README.md"}) {
      assertThat(BundledTraces.class.getResource(r)).as(r).isNotNull();
    }
  }
}
