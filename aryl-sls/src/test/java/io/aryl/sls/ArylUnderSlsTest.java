package io.aryl.sls;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.sls.SlsConf.Scheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hadoop-sls runs Aryl: its own ResourceManager with {@link SLSArylScheduler}, its simulated
 * NodeManagers, and {@link ArylAmSimulator}s for the bundled sample (aryl-sls/samples: 6 jobs on 4
 * nodes of 8 GPUs, ~40 s). One SLS run per JVM (SLS keeps its state in statics): this is the
 * build's only test that starts SLS.
 */
@DisplayName("Aryl under Hadoop's Scheduler Load Simulator")
class ArylUnderSlsTest {
  /**
   * Where SLS writes its outputs: under target/, not a temporary directory, since SLS's metrics
   * reporter goes on writing its CSV files into {@code metrics/} after the run stopped, and a
   * temporary directory's deletion that met one of those writes failed the test.
   */
  private static final Path OUT = Path.of("target", "sls-sample-run");

  @org.junit.jupiter.api.BeforeAll
  static void keepNodeNamesAwayFromDns(@TempDir Path hosts) throws Exception {
    SimulatedHosts.install(
        hosts); // too late if something in this JVM resolved a name already: then DNS answers
  }

  @Test
  @DisplayName(
      "runs the sample trace to the end: every job finishes, every elastic job grows, SLS writes its outputs")
  void runsTheSample() throws Exception {
    Path samples = Path.of("samples");
    Path out = fresh(OUT);
    SlsSummary s =
        new SlsRun(
                Scheduler.ARYL,
                samples.resolve("jobs.json"),
                samples.resolve("nodes.json"),
                out,
                180_000,
                null,
                null)
            .run();

    List<SlsJobRecord> jobs = SlsJobLog.records();
    assertThat(s.allFinished()).as("SLS saw every AM finish before the time limit").isTrue();
    assertThat(jobs)
        .hasSize(6)
        .allSatisfy(
            j -> {
              assertThat(j.finished()).as("%s finished", j.traceJobId()).isTrue();
              assertThat(j.baseStartedMs())
                  .as("%s started its base gang", j.traceJobId())
                  .isGreaterThanOrEqualTo(0);
            });
    assertThat(jobs.stream().filter(j -> j.maxWorkers() > j.minWorkers()))
        .as("elastic jobs held more than their base at some time")
        .hasSize(4)
        .allMatch(SlsJobRecord::grew);
    assertThat(jobs.stream().filter(j -> j.maxWorkers() == j.minWorkers()))
        .as("a gang never holds more than its size")
        .allMatch(j -> j.mostWorkersHeld() == j.minWorkers());
    assertThat(s.nodes()).isEqualTo(4);
    assertThat(s.gpus()).isEqualTo(32);
    assertThat(s.rounds()).as("Aryl planned rounds").isPositive();
    assertThat(s.containersAllocated())
        .as("workers and AMs")
        .isGreaterThanOrEqualTo(6 + 1 + 2 + 1 + 2 + 1 + 1);
    assertThat(out.resolve("jobruntime.csv")).as("SLS's own outputs").exists();
    assertThat(Files.readAllLines(out.resolve("jobruntime.csv"))).hasSize(1 + 6);
    assertThat(out.resolve("summary.json")).exists();
  }

  /** The directory, emptied of an earlier run's files. */
  private static Path fresh(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(f);
        }
      }
    }
    return Files.createDirectories(dir);
  }
}
