package io.aryl.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SummaryTest {
  @Test
  @DisplayName("the pool meter integrates each sample until the next one")
  void meter() {
    PoolMeter m = new PoolMeter();
    m.sample(0, 8, 16, 0); // 0-2 s: 8 of 16 used
    m.sample(2_000, 24, 24, 8); // 2-3 s: 24 of 24, 8 loaned
    m.close(3_000);
    assertThat(m.usedGpuSeconds()).isCloseTo(8 * 2 + 24, within(1e-9));
    assertThat(m.capacityGpuSeconds()).isCloseTo(16 * 2 + 24, within(1e-9));
    assertThat(m.loanedGpuSeconds()).isCloseTo(8, within(1e-9));
    assertThat(m.utilization()).isCloseTo(40.0 / 56, within(1e-9));
    assertThat(m.peakLoanedGpus()).isEqualTo(8);
    m.close(3_000);
    assertThat(m.usedGpuSeconds()).as("closing twice adds nothing").isCloseTo(40, within(1e-9));
    assertThat(new PoolMeter().utilization()).isZero();
  }

  @Test
  @DisplayName(
      "queuing and JCT: submission to base gang and to end; unfinished jobs count until the cutoff")
  void outcomes() {
    JobOutcome done = new JobOutcome("a", "app_1", true, 1_000, 3_000, 11_000, "SUCCEEDED");
    JobOutcome running = new JobOutcome("b", "app_2", false, 2_000, 10_000, -1, "UNFINISHED");
    JobOutcome queued = new JobOutcome("c", "app_3", false, 5_000, -1, -1, "UNFINISHED");
    JobOutcome failed = new JobOutcome("d", "app_4", false, 0, 1_000, 4_000, "FAILED");
    JobOutcome never = new JobOutcome("e", "", false, -1, -1, -1, "UNFINISHED");
    assertThat(done.queuingMs(20_000)).isEqualTo(2_000);
    assertThat(done.jctMs(20_000)).isEqualTo(10_000);
    assertThat(running.queuingMs(20_000)).isEqualTo(8_000);
    assertThat(running.jctMs(20_000)).isEqualTo(18_000);
    assertThat(queued.queuingMs(20_000)).isEqualTo(15_000);

    PoolMeter m = new PoolMeter();
    m.sample(0, 4, 8, 8);
    m.close(3_600_000);
    RunSummary s =
        RunSummary.of(
            "Aryl on", 5, List.of(done, running, queued, failed, never), 20_000, m, 2, 3, 4);
    assertThat(s.jobs()).isEqualTo(5);
    assertThat(s.submitted()).isEqualTo(4);
    assertThat(s.finished()).isEqualTo(1);
    assertThat(s.failed()).isEqualTo(1);
    assertThat(s.censored()).isTrue();
    assertThat(s.avgQueuingS()).isCloseTo((2 + 8 + 15 + 1) / 4.0, within(1e-9));
    assertThat(s.avgJctS()).isCloseTo((10 + 18 + 15 + 4) / 4.0, within(1e-9));
    assertThat(s.trainingUtilization()).isCloseTo(0.5, within(1e-9));
    assertThat(s.trainingGpuHours()).isCloseTo(4, within(1e-9));
    assertThat(s.loanedGpuHours()).isCloseTo(8, within(1e-9));
    assertThat(s.runS()).isEqualTo(20.0);
    assertThat(List.of(s.reclaims(), s.preemptedContainers(), s.shrunkWorkers()))
        .containsExactly(2L, 3L, 4L);

    RunSummary all = RunSummary.of("Aryl off", 1, List.of(done), 20_000, new PoolMeter(), 0, 0, 0);
    assertThat(all.censored()).isFalse();
    assertThat(all.avgJctS()).isEqualTo(10.0);
  }

  @Test
  @DisplayName("the table has one column per run, every metric, and marks lower bounds")
  void table() {
    PoolMeter m = new PoolMeter();
    m.sample(0, 3, 4, 1);
    m.close(10_000);
    RunSummary on =
        RunSummary.of(
            "Aryl on",
            2,
            List.of(
                new JobOutcome("a", "x", true, 0, 1_000, 5_000, "SUCCEEDED"),
                new JobOutcome("b", "y", false, 0, -1, -1, "UNFINISHED")),
            10_000,
            m,
            1,
            0,
            2);
    RunSummary off =
        RunSummary.of(
            "Aryl off",
            2,
            List.of(
                new JobOutcome("a", "x", true, 0, 2_000, 6_000, "SUCCEEDED"),
                new JobOutcome("b", "y", false, 0, 6_000, 9_000, "SUCCEEDED")),
            9_000,
            new PoolMeter(),
            0,
            0,
            0);
    String t = SummaryTable.format(List.of(on, off));
    List<String> lines = t.lines().toList();
    assertThat(lines.get(0)).contains("Aryl on").contains("Aryl off");
    assertThat(t)
        .contains("jobs finished")
        .contains("1/2")
        .contains("2/2")
        .contains("avg queuing time")
        .contains(">=5.5 s")
        .contains("4.0 s")
        .contains("avg JCT")
        .contains(">=7.5 s")
        .contains("7.5 s")
        .contains("training work (GPUs busy, average)")
        .contains("3.00")
        .contains("GPUs lent by inference (average)")
        .contains("1.00")
        .contains("training GPUs in use (own + lent)")
        .contains("75.0%")
        .contains("0.0%")
        .contains("training work: GPU-hours allocated to training per hour of the run")
        .contains("loaned GPU-hours")
        .contains("reclaims")
        .contains("preemptions")
        .contains("workers shrunk")
        .contains("(>=: some jobs had not ended");
    int width = lines.get(0).length();
    assertThat(lines.get(2).length()).as("columns aligned on the right").isEqualTo(width);
  }

  @Test
  @DisplayName("durations and node counts parse; bad ones are refused naming the value")
  void args() {
    assertThat(DemoArgs.durationMs("3m")).isEqualTo(180_000);
    assertThat(DemoArgs.durationMs("40s")).isEqualTo(40_000);
    assertThat(DemoArgs.durationMs("90")).isEqualTo(90_000);
    assertThat(DemoArgs.durationMs("1h")).isEqualTo(3_600_000);
    assertThat(DemoArgs.durationMs("500ms")).isEqualTo(500);
    assertThat(DemoArgs.nodes("4+4")).isEqualTo(new DemoArgs.Nodes(4, 4));
    assertThat(DemoArgs.nodes("0+2")).isEqualTo(new DemoArgs.Nodes(0, 2));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DemoArgs.durationMs("3 minutes"))
        .hasMessageContaining("'3 minutes'");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DemoArgs.nodes("4x4"))
        .hasMessageContaining("'4x4'");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DemoArgs.nodes("4+0"))
        .hasMessageContaining("'4+0'");
  }

  @Test
  @DisplayName(
      "--runs takes a list of aryl+, aryl and off, or both, or all; --inference-gpu-speed is 0 < S <= 1")
  void runsAndSpeed() {
    assertThat(DemoArgs.runs("both")).containsExactly(RunMode.ARYL, RunMode.OFF);
    assertThat(DemoArgs.runs("all")).containsExactly(RunMode.ARYL_PLUS, RunMode.ARYL, RunMode.OFF);
    assertThat(DemoArgs.runs("aryl+,aryl,off"))
        .containsExactly(RunMode.ARYL_PLUS, RunMode.ARYL, RunMode.OFF);
    assertThat(DemoArgs.runs("off, aryl+")).containsExactly(RunMode.OFF, RunMode.ARYL_PLUS);
    assertThat(DemoArgs.runs("aryl")).containsExactly(RunMode.ARYL);
    for (String bad : List.of("", "on", "aryl,aryl", "aryl+,", "aryl++")) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> DemoArgs.runs(bad))
          .hasMessageContaining("--runs")
          .hasMessageContaining("'" + bad + "'");
    }
    assertThat(DemoArgs.inferenceGpuSpeed("0.5")).isEqualTo(0.5);
    assertThat(DemoArgs.inferenceGpuSpeed("1")).isEqualTo(1.0);
    for (String bad : List.of("0", "-0.5", "1.01", "NaN", "half")) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> DemoArgs.inferenceGpuSpeed(bad))
          .hasMessageContaining("--inference-gpu-speed")
          .hasMessageContaining("'" + bad + "'");
    }
  }

  @Test
  @DisplayName(
      "a bad --inference-gpu-speed or --runs ends the demo with status 2, naming the option and the value")
  void badOptionsExitTwo() {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream e =
        new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8);
    java.io.PrintStream o =
        new java.io.PrintStream(
            new java.io.ByteArrayOutputStream(), true, java.nio.charset.StandardCharsets.UTF_8);
    assertThat(ArylDemo.run(o, e, "--inference-gpu-speed", "1.5")).isEqualTo(2);
    assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("--inference-gpu-speed")
        .contains("'1.5'");
    err.reset();
    assertThat(ArylDemo.run(o, e, "--runs", "aryl,fast")).isEqualTo(2);
    assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("--runs")
        .contains("'aryl,fast'");
  }
}
