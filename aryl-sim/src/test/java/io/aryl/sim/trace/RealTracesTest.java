package io.aryl.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Reads the full public traces where they are laid out beside the repository ({@code
 * <repo>/../shared/traces}, i.e. {@code ../../shared/traces} from this module); skipped where they
 * are absent. Expected counts are those published with the traces.
 */
@DisplayName("the real shared traces")
class RealTracesTest {
  private static final Path TRACES = Path.of("../../shared/traces");

  private static Path present(String relative) {
    Path p = TRACES.resolve(relative);
    assumeTrue(Files.exists(p), () -> p.toAbsolutePath().normalize() + " is absent");
    return p;
  }

  @ParameterizedTest(name = "ITP cluster{0}: {1} jobs")
  @CsvSource({
    "01, 1595", "02, 5778", "03, 3011", "04, 15802", "05, 3629",
    "06, 2396", "07, 12699", "08, 13047", "09, 11134", "10, 260",
  })
  void itp(String cluster, int jobs) {
    List<TraceJob> raw = ItpTrace.read(present("training/itp/raw/cluster" + cluster + ".csv"));
    List<TraceJob> ef =
        ItpTrace.read(present("training/itp/elasticflow/cluster" + cluster + ".csv"));

    assertThat(raw).hasSize(jobs).allSatisfy(j -> assertThat(j.model()).isEmpty());
    assertThat(ef).hasSize(jobs).allSatisfy(j -> assertThat(j.model()).isNotEmpty());
    assertThat(ef)
        .extracting(TraceJob::id)
        .containsExactlyElementsOf(raw.stream().map(TraceJob::id).toList());
  }

  @Test
  @DisplayName("ITP: 1.63 M GPU-hours over the 10 clusters, GPU counts in {1,2,4,8,16,32,64}")
  void itpTotals() {
    double gpuHours = 0;
    for (int c = 1; c <= 10; c++) {
      List<TraceJob> jobs =
          ItpTrace.read(present(String.format("training/itp/raw/cluster%02d.csv", c)));
      gpuHours += jobs.stream().mapToDouble(TraceJob::gpuSeconds).sum() / 3600;
      assertThat(jobs)
          .extracting(TraceJob::gpus)
          .allMatch(g -> List.of(1, 2, 4, 8, 16, 32, 64).contains(g));
    }
    assertThat(gpuHours).isCloseTo(1.63e6, within(0.005e6));
  }

  @Test
  @DisplayName("the bundled ITP slice is exactly the cluster04 jobs submitted in its window")
  void itpSliceMatchesSource() {
    List<TraceJob> full = ItpTrace.read(present("training/itp/raw/cluster04.csv"));

    assertThat(BundledTraces.itpSlice())
        .containsExactlyElementsOf(
            full.stream()
                .filter(j -> j.submitS() >= BundledTraces.ITP_SLICE_START_S)
                .filter(j -> j.submitS() < BundledTraces.ITP_SLICE_END_S)
                .toList());
  }

  @Test
  @DisplayName("Philly: 82,247 jobs over 15 clusters, 2017-09-04 10:30:41 to 2017-12-22 08:02:11")
  void philly() {
    Path file = present("training/philly/philly.csv");

    List<TraceJob> all = PhillyTrace.read(file, null);

    assertThat(all).hasSize(82_247);
    assertThat(all.get(0).submitS()).isZero();
    double lastS =
        Duration.between(
                LocalDateTime.of(2017, 9, 4, 10, 30, 41), LocalDateTime.of(2017, 12, 22, 8, 2, 11))
            .toSeconds();
    assertThat(all.get(all.size() - 1).submitS()).isEqualTo(lastS);
    assertThat(all).extracting(TraceJob::durationS).allMatch(d -> d >= 1);

    Map<String, Integer> expected =
        new TreeMap<>(
            Map.ofEntries(
                Map.entry("6214e9", 41226),
                Map.entry("11cb48", 16091),
                Map.entry("6c71a0", 9953),
                Map.entry("b436b2", 7423),
                Map.entry("103959", 1934),
                Map.entry("ee9e8c", 1511),
                Map.entry("0e4a51", 1435),
                Map.entry("ed69ec", 1137),
                Map.entry("7f04ca", 723),
                Map.entry("2869ce", 422),
                Map.entry("e13805", 374),
                Map.entry("23dbec", 8),
                Map.entry("51b7ef", 4),
                Map.entry("925e2b", 3),
                Map.entry("795a4c", 3)));
    assertThat(expected.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(82_247);
    for (Map.Entry<String, Integer> e : expected.entrySet()) {
      List<TraceJob> jobs = PhillyTrace.read(file, e.getKey());
      assertThat(jobs).as(e.getKey()).hasSize(e.getValue());
      assertThat(jobs.get(0).submitS()).as(e.getKey()).isZero();
    }
  }

  @Test
  @DisplayName(
      "ServeGen: 14 days for m-small, m-mid, m-large; 1 day for deepseek-r1, mm-image; m-small as bundled")
  void servegen() {
    Path file = present("inference/servegen/servegen_aggregate_rate_10min.csv");

    Map<String, Integer> windows =
        List.of("m-small", "m-mid", "m-large", "deepseek-r1", "mm-image").stream()
            .collect(Collectors.toMap(m -> m, m -> ServeGenTrace.read(file, m).windows()));

    assertThat(windows)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "m-small",
                2016,
                "m-mid",
                2016,
                "m-large",
                2016,
                "deepseek-r1",
                144,
                "mm-image",
                144));
    assertThat(ServeGenTrace.read(file, "m-small")).isEqualTo(BundledTraces.servegenMSmall());
  }
}
