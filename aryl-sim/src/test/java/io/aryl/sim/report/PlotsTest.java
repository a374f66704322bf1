package io.aryl.sim.report;

import static io.aryl.sim.report.Fixtures.aryl;
import static io.aryl.sim.report.Fixtures.empty;
import static io.aryl.sim.report.Fixtures.fifo;
import static io.aryl.sim.report.Fixtures.instant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import io.aryl.sim.engine.PolicyResult;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Plots")
class PlotsTest {
  private static final List<String> FILES =
      List.of("utilization.png", "jct-cdf.png", "queue-cdf.png", "loans.png");

  @TempDir Path dir;

  private void assertValidPngs(Path where) throws Exception {
    for (String name : FILES) {
      Path file = where.resolve(name);
      assertThat(file).exists();
      byte[] head = Arrays.copyOf(Files.readAllBytes(file), 8);
      assertThat(head).as(name).containsExactly(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
      BufferedImage image = ImageIO.read(file.toFile());
      assertThat(image).as(name).isNotNull();
      assertThat(image.getWidth()).as(name).isEqualTo(1200);
      assertThat(image.getHeight()).as(name).isEqualTo(700);
    }
  }

  @Test
  void writes_four_valid_pngs_of_1200_by_700() throws Exception {
    Plots.write(dir.resolve("plots"), List.of(fifo(), aryl(), instant()));

    assertValidPngs(dir.resolve("plots"));
  }

  @Test
  void still_writes_every_chart_when_there_is_nothing_to_draw() throws Exception {
    Plots.write(dir.resolve("none"), List.of());
    Plots.write(dir.resolve("empty"), List.of(empty("idle")));
    Plots.write(dir.resolve("no-loans"), List.of(fifo()));

    assertValidPngs(dir.resolve("none"));
    assertValidPngs(dir.resolve("empty"));
    assertValidPngs(dir.resolve("no-loans"));
  }

  @Test
  void draws_a_month_of_minute_samples_into_small_files() throws Exception {
    List<PolicyResult> month = Fixtures.plausibleMonth();

    Plots.write(dir, month);

    assertValidPngs(dir);
    for (String name : FILES) {
      assertThat(Files.size(dir.resolve(name))).as(name).isLessThan(600_000);
    }
  }

  @Test
  void refuses_two_results_for_one_policy() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Plots.write(dir, List.of(fifo(), fifo())))
        .withMessageContaining("fifo");
  }

  @Test
  void averages_long_series_over_equal_time_buckets() {
    int n = 43_200;
    double[] t = IntStream.range(0, n).mapToDouble(i -> i * 60.0).toArray();
    double[] v = IntStream.range(0, n).mapToDouble(i -> i % 2 == 0 ? 10 : 20).toArray();

    PlotData.Series s = PlotData.bucketMeans(t, v, 2000);

    assertThat(s.x()).hasSizeLessThanOrEqualTo(2000).hasSizeGreaterThan(1900);
    assertThat(Arrays.stream(s.y()).boxed())
        .allSatisfy(y -> assertThat(y).isCloseTo(15, within(0.5)));
    assertThat(s.x()[0]).isGreaterThanOrEqualTo(0);
    assertThat(s.x()[s.x().length - 1]).isLessThanOrEqualTo(t[n - 1]);
    assertThat(s.bucketS()).isCloseTo(t[n - 1] / 2000, within(1e-9));
  }

  @Test
  void leaves_short_series_alone() {
    double[] t = {0, 60, 120};
    double[] v = {1, 2, 3};

    PlotData.Series s = PlotData.bucketMeans(t, v, 2000);

    assertThat(s.x()).containsExactly(t);
    assertThat(s.y()).containsExactly(v);
    assertThat(s.bucketS()).isZero();
  }

  @Test
  void draws_the_cdf_as_steps_with_one_point_per_distinct_value() {
    double[][] xy = PlotData.ecdf(new double[] {0, 0, 0, 5}, 2000);

    assertThat(xy[0]).containsExactly(0, 0, 5);
    assertThat(xy[1]).containsExactly(0, 0.75, 1);
  }

  @Test
  void thins_a_long_cdf_keeping_both_ends() {
    double[] sorted = IntStream.range(0, 100_000).mapToDouble(i -> i).toArray();

    double[][] xy = PlotData.ecdf(sorted, 2000);

    assertThat(xy[0]).hasSize(2000);
    assertThat(xy[0][0]).isZero();
    assertThat(xy[1][0]).isZero();
    assertThat(xy[0][1999]).isEqualTo(99_999);
    assertThat(xy[1][1999]).isEqualTo(1);
  }

  @Test
  void names_durations_in_round_units() {
    assertThat(Plots.DurationLogAxis.label(1)).isEqualTo("1 s");
    assertThat(Plots.DurationLogAxis.label(600)).isEqualTo("10 min");
    assertThat(Plots.DurationLogAxis.label(6 * 3600)).isEqualTo("6 h");
    assertThat(Plots.DurationLogAxis.label(86_400)).isEqualTo("1 d");
    assertThat(Plots.DurationLogAxis.label(7 * 86_400)).isEqualTo("1 wk");
    assertThat(Plots.DurationLogAxis.label(30 * 86_400)).isEqualTo("30 d");
    assertThat(Plots.duration(1296)).isEqualTo("22 min");
    assertThat(Plots.duration(90)).isEqualTo("1.5 min");
    assertThat(Plots.duration(45)).isEqualTo("45 s");
  }

  @Test
  void chooses_hours_for_runs_shorter_than_two_days() {
    assertThat(Plots.timeUnitS(List.of(fifo()))).isEqualTo(3600);
    assertThat(Plots.timeUnitS(Fixtures.plausibleMonth())).isEqualTo(86_400);
  }
}
