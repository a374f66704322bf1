package io.aryl.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.sim.engine.JobShape;
import io.aryl.sim.trace.BundledTraces;
import io.aryl.sim.trace.TraceJob;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class JobSamplerTest {
  private static final List<TraceJob> ITP = BundledTraces.itpSlice();

  private static JobSampler.Settings settings(long seed, double load, int maxJobs) {
    // 3 minutes per run: a day compressed 480x, arrivals over 90 s, run times 10..45 s, 4 training
    // nodes of 8 GPUs.
    return new JobSampler.Settings(
        seed, BundledTraces.ITP_SLICE_START_S, 0, 90_000, 480, 10, 45, 0.5, 8, 32, load, maxJobs);
  }

  @Test
  @DisplayName("the same seed gives the same stream; another seed another one")
  void seeded() {
    assertThat(JobSampler.sample(ITP, settings(1, 1.5, 30)))
        .isEqualTo(JobSampler.sample(ITP, settings(1, 1.5, 30)));
    assertThat(JobSampler.sample(ITP, settings(2, 1.5, 30)))
        .isNotEqualTo(JobSampler.sample(ITP, settings(1, 1.5, 30)));
  }

  @Test
  @DisplayName(
      "jobs come from the chosen day, in trace order, stretched over the arrival window from 0")
  void fromTheDayInOrder() {
    List<DemoJob> jobs = JobSampler.sample(ITP, settings(7, 1.5, 30));
    assertThat(jobs).isNotEmpty();
    assertThat(jobs.get(0).submitAtMs()).isZero();
    assertThat(jobs.get(jobs.size() - 1).submitAtMs()).isEqualTo(90_000);
    assertThat(jobs).extracting(DemoJob::submitAtMs).isSorted();
    double dayStart = BundledTraces.ITP_SLICE_START_S;
    List<String> dayIds = new ArrayList<>();
    ITP.stream()
        .filter(j -> j.submitS() >= dayStart && j.submitS() < dayStart + 86_400)
        .forEach(j -> dayIds.add(j.id()));
    assertThat(jobs).extracting(DemoJob::traceId).allMatch(dayIds::contains);
    assertThat(jobs).extracting(DemoJob::name).doesNotHaveDuplicates();
  }

  @Test
  @DisplayName(
      "run times are the trace's divided by the compression, clamped; work and prediction follow the shape")
  void scaling() {
    JobSampler.Settings s = settings(1, 1.5, 1000);
    assertThat(JobSampler.scaledRuntimeS(4_800, s)).isEqualTo(10);
    assertThat(JobSampler.scaledRuntimeS(9_600, s)).isEqualTo(20);
    assertThat(JobSampler.scaledRuntimeS(60, s)).as("clamped up").isEqualTo(10);
    assertThat(JobSampler.scaledRuntimeS(500_000, s)).as("clamped down").isEqualTo(45);
    for (DemoJob j : JobSampler.sample(ITP, s)) {
      TraceJob t = ITP.stream().filter(x -> x.id().equals(j.traceId())).findFirst().orElseThrow();
      assertThat(j.runtimeS()).isEqualTo(JobSampler.scaledRuntimeS(t.durationS(), s));
      assertThat(j.gpus()).isEqualTo(Math.min(t.gpus(), 16));
      JobShape shape =
          j.elastic() ? JobShape.elastic(j.gpus(), 8) : JobShape.inelastic(j.gpus(), 8);
      assertThat(List.of(j.gpusPerWorker(), j.minWorkers(), j.maxWorkers()))
          .containsExactly(shape.gpusPerWorker(), shape.minWorkers(), shape.maxWorkers());
      assertThat(j.workUnits()).isEqualTo(Math.round(j.runtimeS() * shape.requestedWorkers()));
      assertThat(j.predictedRuntimeS() * j.minWorkers())
          .isGreaterThanOrEqualTo(j.workUnits())
          .isLessThan(j.workUnits() + j.minWorkers());
      assertThat(j.elastic()).isEqualTo(JobShape.isElastic(j.traceId(), 0.5, 1));
      if (!j.elastic()) {
        assertThat(j.minWorkers()).isEqualTo(j.maxWorkers());
      }
    }
  }

  @Test
  @DisplayName("jobs are drawn until their GPU-seconds reach the load, or the cap on jobs")
  void load() {
    JobSampler.Settings s = settings(3, 0.2, 1000);
    List<DemoJob> jobs = JobSampler.sample(ITP, s);
    double target = 0.2 * 32 * 90;
    double offered = jobs.stream().mapToDouble(DemoJob::offeredGpuSeconds).sum();
    double withoutLast =
        offered - jobs.stream().mapToDouble(DemoJob::offeredGpuSeconds).max().orElseThrow();
    assertThat(offered).isGreaterThanOrEqualTo(target);
    assertThat(withoutLast).as("one job fewer would not reach it").isLessThan(target);
    assertThat(JobSampler.sample(ITP, settings(3, 100, 12))).hasSize(12);
  }

  @Test
  @DisplayName(
      "when the cap on jobs binds, run times are stretched (less compression) until the load is reached")
  void stretchedToTheLoad() {
    for (double load : new double[] {0.8, 3.0}) {
      JobSampler.Settings s = settings(4, load, 4);
      List<DemoJob> jobs = JobSampler.sample(ITP, s);
      assertThat(jobs).hasSize(4);
      double target = load * 32 * 90;
      double offered = jobs.stream().mapToDouble(DemoJob::offeredGpuSeconds).sum();
      double atDayCompression = 0;
      for (DemoJob j : jobs) {
        atDayCompression += j.gpus() * (double) JobSampler.scaledRuntimeS(j.traceDurationS(), s);
        assertThat(j.runtimeS())
            .isBetween(10L, 45L)
            .isGreaterThanOrEqualTo(JobSampler.scaledRuntimeS(j.traceDurationS(), s));
      }
      assertThat(atDayCompression)
          .as("4 jobs at the day's compression are too few")
          .isLessThan(target);
      boolean longestAtMax = jobs.stream().anyMatch(j -> j.runtimeS() == 45);
      assertThat(longestAtMax || offered >= target)
          .as("offered %s, target %s", offered, target)
          .isTrue();
      if (load == 3.0) {
        assertThat(longestAtMax).as("out of reach: the longest job runs its longest").isTrue();
      }
    }
  }

  @Test
  @DisplayName("about the elastic fraction is elastic; 0 and 1 are exact")
  void elasticFraction() {
    JobSampler.Settings half = settings(5, 100, 200);
    List<DemoJob> jobs = JobSampler.sample(ITP, half);
    long elastic = jobs.stream().filter(DemoJob::elastic).count();
    assertThat((double) elastic / jobs.size()).isBetween(0.35, 0.65);
    JobSampler.Settings none =
        new JobSampler.Settings(
            5, BundledTraces.ITP_SLICE_START_S, 0, 90_000, 480, 10, 45, 0, 8, 32, 1.5, 30);
    assertThat(JobSampler.sample(ITP, none)).noneMatch(DemoJob::elastic);
  }

  @Test
  @DisplayName("no job asks for more than half the training pool")
  void capped() {
    assertThat(JobSampler.maxGpus(32)).isEqualTo(16);
    assertThat(JobSampler.maxGpus(16)).isEqualTo(8);
    assertThat(JobSampler.maxGpus(24)).isEqualTo(8);
    assertThat(JobSampler.maxGpus(1)).isEqualTo(1);
    JobSampler.Settings small =
        new JobSampler.Settings(
            1, BundledTraces.ITP_SLICE_START_S, 2, 20_000, 2160, 10, 10, 0.5, 8, 16, 100, 300);
    assertThat(JobSampler.sample(ITP, small))
        .allMatch(j -> j.gpus() <= 8 && j.minWorkers() * j.gpusPerWorker() <= 8);
  }

  @Test
  @DisplayName("bad settings and an empty day are refused")
  void refused() {
    assertThatThrownBy(() -> new JobSampler.Settings(1, 0, 0, 1000, 480, 10, 5, 0.5, 8, 32, 1, 10))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                JobSampler.sample(
                    ITP,
                    new JobSampler.Settings(
                        1,
                        BundledTraces.ITP_SLICE_START_S,
                        9,
                        1000,
                        480,
                        10,
                        45,
                        0.5,
                        8,
                        32,
                        1,
                        10)))
        .hasMessageContaining("day 9");
  }
}
