package io.aryl.sls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "SlsSummary: what one SLS run measured, from its job records, its samples and SLS's own outputs")
class SlsSummaryTest {
  private static final SlsOutputs NO_SLS_OUTPUTS = new SlsOutputs(List.of(), List.of(), 0);

  private static SlsJobRecord job(
      String id,
      int min,
      int max,
      long submittedMs,
      long startedMs,
      long finishedMs,
      int mostHeld,
      int givenBack) {
    // The AM starts at submission: these cases are about the base gang.
    return new SlsJobRecord(
        "application_1_" + id,
        "job_" + id,
        min,
        max,
        1,
        submittedMs,
        submittedMs,
        startedMs,
        finishedMs,
        mostHeld,
        givenBack);
  }

  private static ClusterSampler.Sample sample(
      double atS, long allocatedGpus, long totalGpus, long containers) {
    return new ClusterSampler.Sample(atS, 2, allocatedGpus, totalGpus, containers, 100);
  }

  private static SlsSummary of(List<SlsJobRecord> jobs, List<ClusterSampler.Sample> samples) {
    return SlsSummary.of("aryl", true, 60, jobs, samples, List.of(), List.of(), NO_SLS_OUTPUTS);
  }

  // Four jobs, times in ms:           min max submitted started finished most  given back
  private static final List<SlsJobRecord> JOBS =
      List.of(
          job("a", 1, 1, 0, 1_000, 11_000, 1, 0), // inelastic: queued 1 s, JCT 11 s
          job("b", 2, 4, 2_000, 5_000, 20_000, 4, 2), // elastic, grew: queued 3 s, JCT 18 s
          job(
              "c", 1, 3, 3_000, 13_000, -1, 1,
              0), // elastic, never grew, still running: queued 10 s
          job("d", 2, 2, 4_000, -1, -1, 0, 0)); // never started: no queue time

  @Nested
  @DisplayName("from the job records")
  class Jobs {
    private final SlsSummary s = of(JOBS, List.of());

    @Test
    @DisplayName(
        "queue p50 and p99 are over the jobs that started only (1, 3 and 10 s; not the one still queued)")
    void queuePercentilesOverStartedJobs() {
      assertThat(s.queueP50S()).isEqualTo(3.0);
      assertThat(s.queueP99S()).isEqualTo(10.0);
    }

    @Test
    @DisplayName("every job is counted as submitted, those with a finish time as finished")
    void counts() {
      assertThat(s.jobs()).isEqualTo(4);
      assertThat(s.finished()).isEqualTo(2);
    }

    @Test
    @DisplayName(
        "elastic jobs are those with max > min; they grew if they held more than min at some time")
    void elasticAndGrew() {
      assertThat(s.elastic()).isEqualTo(2);
      assertThat(s.elasticGrew()).isEqualTo(1);
      assertThat(s.workersGivenBack()).isEqualTo(2);
    }

    @Test
    @DisplayName(
        "the mean JCT is over finished jobs; the makespan runs from the first submission to the last finish")
    void jctAndMakespan() {
      assertThat(s.jctMeanS()).isEqualTo((11.0 + 18.0) / 2);
      assertThat(s.makespanS()).isEqualTo(20.0);
    }

    @Test
    @DisplayName("the makespan starts at the first submission, not at time zero")
    void makespanFromFirstSubmission() {
      SlsSummary late =
          of(
              List.of(
                  job("x", 1, 1, 5_000, 6_000, 9_000, 1, 0),
                  job("y", 1, 1, 7_000, 7_500, 12_500, 1, 0)),
              List.of());

      assertThat(late.makespanS()).isEqualTo(7.5);
    }

    @Test
    @DisplayName("with no job finished the makespan and mean JCT are 0, not negative")
    void nothingFinished() {
      SlsSummary none = of(List.of(job("x", 1, 1, 5_000, -1, -1, 0, 0)), List.of());

      assertThat(none.finished()).isZero();
      assertThat(none.makespanS()).isZero();
      assertThat(none.jctMeanS()).isZero();
      assertThat(none.queueP50S()).isZero();
    }
  }

  @Nested
  @DisplayName("from the cluster samples")
  class Samples {
    //                                            at s, GPUs allocated, of, containers so far
    private final List<ClusterSampler.Sample> samples =
        List.of(
            new ClusterSampler.Sample(0, 0, 0, 0, 0, 120), // SLS starting: no node registered yet
            new ClusterSampler.Sample(1, 2, 0, 16, 1, 150), // nodes up, an AM allocated, no GPU yet
            new ClusterSampler.Sample(2, 2, 8, 16, 3, 300), // first GPUs: the busy span starts here
            new ClusterSampler.Sample(3, 2, 16, 16, 5, 200),
            new ClusterSampler.Sample(4, 2, 0, 16, 5, 180)); // idle after the start: counts as idle
    private final SlsSummary s = of(JOBS, samples);

    @Test
    @DisplayName(
        "GPU utilisation ignores the leading samples with no GPU allocated, not the idle ones after them")
    void utilisationFromTheFirstGpu() {
      assertThat(s.gpuUtilisation()).isCloseTo((0.5 + 1.0 + 0.0) / 3, within(1e-12));
    }

    @Test
    @DisplayName(
        "nodes, GPUs and containers allocated are the last sample's; the heap peak is the largest sample")
    void lastSampleAndHeapPeak() {
      assertThat(s.nodes()).isEqualTo(2);
      assertThat(s.gpus()).isEqualTo(16);
      assertThat(s.containersAllocated()).isEqualTo(5);
      assertThat(s.heapPeakMb()).isEqualTo(300);
    }

    @Test
    @DisplayName(
        "the allocation rate is the containers allocated over the busy span (from the first GPU on)")
    void allocationRate() {
      assertThat(s.allocationRatePerS()).isEqualTo(5 / 2.0);
    }

    @Test
    @DisplayName("a run in which no GPU was ever allocated has utilisation and allocation rate 0")
    void noGpuEverAllocated() {
      SlsSummary idle =
          of(List.of(), List.of(sample(0, 0, 16, 0), sample(1, 0, 16, 2), sample(2, 0, 16, 4)));

      assertThat(idle.gpuUtilisation()).isZero();
      assertThat(idle.allocationRatePerS()).isZero();
      assertThat(idle.containersAllocated()).isEqualTo(4);
    }
  }

  @Test
  @DisplayName(
      "planning rounds (wall and CPU time) and SLS's allocate and NODE_UPDATE timers give nearest-rank"
          + " percentiles and the max")
  void timers() {
    SlsOutputs sls = new SlsOutputs(List.of(4.0, 1.0, 3.0, 2.0), List.of(0.5, 0.25), 2);

    SlsSummary s =
        SlsSummary.of(
            "aryl", true, 60, JOBS, List.of(), List.of(5.0, 1.0, 3.0), List.of(2.0, 0.5, 1.0), sls);

    assertThat(s.rounds()).isEqualTo(3);
    assertThat(s.roundP50Ms()).isEqualTo(3.0);
    assertThat(s.roundP99Ms()).isEqualTo(5.0);
    assertThat(s.roundMaxMs()).isEqualTo(5.0);
    assertThat(s.roundCpuP50Ms()).isEqualTo(1.0);
    assertThat(s.roundCpuP99Ms()).isEqualTo(2.0);
    assertThat(s.roundCpuMaxMs()).isEqualTo(2.0);
    assertThat(s.allocateP50Ms()).isEqualTo(2.0);
    assertThat(s.allocateP99Ms()).isEqualTo(4.0);
    assertThat(s.nodeUpdateP50Ms()).isEqualTo(0.25);
    assertThat(s.nodeUpdateP99Ms()).isEqualTo(0.5);
  }

  @Test
  @DisplayName("no samples and no jobs give a summary of zeros, not an exception")
  void zeroSamplesAndZeroJobs() {
    SlsSummary s =
        SlsSummary.of(
            "capacity", false, 12.5, List.of(), List.of(), List.of(), List.of(), NO_SLS_OUTPUTS);

    assertThat(s)
        .isEqualTo(
            new SlsSummary(
                "capacity",
                false,
                12.5,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0));
    assertThat(SlsSummary.peakRate(List.of())).isZero();
  }

  @Test
  @DisplayName("the one line a run prints names the scheduler and its counts")
  void oneLine() {
    String line = of(JOBS, List.of(sample(0, 8, 16, 3))).oneLine();

    assertThat(line)
        .startsWith("aryl: 2/4 jobs finished in 60 s on 16 GPUs; 2 elastic, 1 grew;")
        .contains("queue p50 3.0 s p99 10.0 s")
        .contains("GPU utilisation 50%");
  }

  @Nested
  @DisplayName("the peak allocation rate (SlsSummary.peakRate)")
  class PeakRate {
    /** Samples at the given seconds with the given containers allocated so far. */
    private List<ClusterSampler.Sample> series(String atS, String containers) {
      double[] at = Arrays.stream(atS.split(" ")).mapToDouble(Double::parseDouble).toArray();
      long[] c = Arrays.stream(containers.split(" ")).mapToLong(Long::parseLong).toArray();
      List<ClusterSampler.Sample> out = new ArrayList<>();
      for (int i = 0; i < at.length; i++) {
        out.add(sample(at[i], 1, 16, c[i]));
      }
      return out;
    }

    @ParameterizedTest(name = "at {0} s with {1} containers: peak {2}/s")
    @CsvSource(
        delimiter = '|',
        value = {
          // at (s)                   | containers so far           | peak per s
          "0 10                       | 0 50                        | 5.0",
          "0 5 10                     | 10 20 110                   | 10.0",
          // a window of at least 9 s counts (9 = 90% of 10) ...
          "0 9                        | 0 90                        | 10.0",
          "0 9.5                      | 0 95                        | 10.0",
          // ... a shorter one does not, however steep
          "0 1 2 3 4 5 6 7 8          | 0 100 200 300 400 500 600 700 800 | 0.0",
          // a gap longer than the window leaves no window to measure
          "0 11                       | 0 110                       | 0.0",
          // the window slides: the best 10 s, not the whole run (10 s from 2 to 12: 100 containers)
          "0 2 12 22                  | 0 0 100 110                 | 10.0",
          // nothing allocated
          "0 5 10 15 20               | 7 7 7 7 7                   | 0.0",
        })
    @DisplayName(
        "is the most containers allocated in a window of 9 to 10 s, per second of the window")
    void table(String atS, String containers, double peak) {
      assertThat(SlsSummary.peakRate(series(atS.strip(), containers.strip()))).isEqualTo(peak);
    }

    @Test
    @DisplayName(
        "on one sample a second through a burst, it is the burst's best 10 s, computed by hand")
    void handComputedBurst() {
      // 0 containers to 5 s, then 10 a second to 10 s (50), then 2 a second to 20 s (70).
      List<ClusterSampler.Sample> samples = new ArrayList<>();
      long containers = 0;
      for (int t = 0; t <= 20; t++) {
        containers += t <= 5 ? 0 : t <= 10 ? 10 : 2;
        samples.add(sample(t, 1, 16, containers));
      }
      // Windows ending at 10..20 s: 50, 52, 54, 56, 58, 60 (5..15 s: 60 - 0), 52, 44, 36, 28, 20
      // containers.
      assertThat(samples.get(15).containersAllocated() - samples.get(5).containersAllocated())
          .isEqualTo(60);

      assertThat(SlsSummary.peakRate(samples)).isEqualTo(6.0);
      assertThat(of(List.of(), samples).peakAllocationRatePerS()).isEqualTo(6.0);
    }
  }
}
