package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.model.Job;
import io.aryl.core.speedup.MeasuredSpeedup;
import io.aryl.core.speedup.SpeedupModel;
import io.aryl.sim.trace.TraceJob;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("SimJob: one simulated job's work and how aryl-core sees it")
class SimJobTest {
  private final SimConfig cfg = SimConfig.defaults(2, 0);
  private final double e = cfg.speedupExponent();
  // 8 GPUs for 1 h, elastic: 2..8 workers of 2 GPUs, asked for 4.
  private final TraceJob trace = new TraceJob("j1", 100, 3600, 8, "resnet", "team-a");
  private final SimJob job = new SimJob(trace, true, JobShape.elastic(8, 8), 1.5, cfg);

  @Test
  @DisplayName(
      "its work is the trace's duration at the width it asked for, counted at its minimum width")
  void work() {
    assertThat(job.shape).isEqualTo(new JobShape(2, 2, 8, 4));
    assertThat(job.totalWork).isCloseTo(3600 * Math.pow(4, e) / Math.pow(2, e), within(1e-9));
    assertThat(job.remaining).isEqualTo(job.totalWork);
    assertThat(job.elastic()).isTrue();
  }

  @Test
  @DisplayName("its bound is its duration alone at its widest")
  void bound() {
    assertThat(job.boundS()).isCloseTo(3600 * Math.pow(4, e) / Math.pow(8, e), within(1e-9));
    SimJob rigid = new SimJob(trace, true, JobShape.inelastic(8, 8), 1, cfg);
    assertThat(rigid.boundS()).isEqualTo(3600);
  }

  @Test
  @DisplayName(
      "a preemption loses the progress since the last checkpoint, none before the run starts")
  void sinceCheckpoint() {
    double interval = cfg.checkpointIntervalS();
    job.runStart = 1000;
    assertThat(job.sinceCheckpoint(900)).isZero();
    assertThat(job.sinceCheckpoint(1000 + interval + 60)).isCloseTo(60, within(1e-9));
  }

  @Test
  @DisplayName(
      "aryl-core sees its shape, its remaining work as predicted, and its tenant only when asked")
  void toCoreJob() {
    job.remaining = 1000;
    job.runStart = 0;
    Job core = job.toCoreJob(50, true);
    assertThat(core.id()).isEqualTo("j1");
    assertThat(core.tenant()).isEqualTo("team-a");
    assertThat(core.gpusPerWorker()).isEqualTo(2);
    assertThat(core.minWorkers()).isEqualTo(2);
    assertThat(core.maxWorkers()).isEqualTo(8);
    assertThat(core.remainingS()).isEqualTo(1000);
    assertThat(core.predictedRemainingS()).isEqualTo(1500);
    assertThat(core.attainedS()).isCloseTo(job.totalWork - 1000, within(1e-9));
    assertThat(core.sinceCheckpointS()).isEqualTo(50);
    assertThat(job.toCoreJob(50, false).tenant()).isEmpty();
  }

  @Test
  @DisplayName("a later round sees the job's progress since, with the same shape and tenant")
  void toCoreJobAgain() {
    job.remaining = 1000;
    Job first = job.toCoreJob(50, true);
    job.remaining = 400;
    Job later = job.toCoreJob(650, true);

    assertThat(later)
        .isEqualTo(
            first.toBuilder()
                .remainingS(400)
                .predictedRemainingS(600)
                .attainedS(job.totalWork - 400)
                .sinceCheckpointS(650)
                .build());
    assertThat(job.toCoreJob(700, false).tenant()).isEmpty();
    assertThat(job.toCoreJob(700, true).tenant()).isEqualTo("team-a");
  }

  @Test
  @DisplayName("aryl-core reads the very curve the simulator advances the job by: n^0.8 by default")
  void uniformCurve() {
    SpeedupModel curve = job.toCoreJob(0, false).speedup();
    assertThat(curve).isSameAs(job.speedup).isEqualTo(SpeedupModel.powerLaw(e));
    assertThat(job.rateAt(4, 1)).isEqualTo(Math.pow(4, e) / Math.pow(2, e));
    assertThat(job.rateAt(4, 0.5)).isEqualTo(Math.pow(4, e) / Math.pow(2, e) * 0.5);
    assertThat(job.leastGpuS()).isEqualTo(job.totalWork * 2 * 2);
  }

  /** A measured model in one-GPU replicas: 1, 2, 3, 3.2 at 1, 2, 4, 8 replicas. */
  private static final MeasuredSpeedup KNEE =
      new MeasuredSpeedup("knee", Map.of(1, 1.0, 2, 2.0, 4, 3.0, 8, 3.2));

  @Test
  @DisplayName(
      "with profiles, a job's work, speed, bound and least GPU-time follow its own measured model,"
          + " a worker of g GPUs being g replicas")
  void measuredCurve() {
    SimConfig measured = cfg.withJobSpeedups(JobSpeedups.profiles("test", Map.of("knee", KNEE), 7));
    SimJob j = new SimJob(trace, true, JobShape.elastic(8, 8), 1, measured); // 2..8 workers of 2
    // M(2w): 2 at 1 worker, 3 at 2, 3.2 at 4, flat beyond 8 replicas; relative to 1 worker.
    assertThat(j.speedup.throughput(1)).isEqualTo(1);
    assertThat(j.speedup.throughput(2)).isEqualTo(1.5);
    assertThat(j.speedup.throughput(4)).isEqualTo(1.6);
    assertThat(j.speedup.throughput(8)).isEqualTo(1.6);
    assertThat(j.toCoreJob(0, false).speedup()).isSameAs(j.speedup);
    // Asked for 4 workers (1.6), counted at its minimum of 2 (1.5).
    assertThat(j.totalWork).isCloseTo(3600 * 1.6 / 1.5, within(1e-9));
    assertThat(j.rateAt(4, 1)).isCloseTo(1.6 / 1.5, within(1e-12));
    // Fastest at 4 workers or wider: the trace's hour, no faster.
    assertThat(j.boundS()).isCloseTo(3600, within(1e-9));
    assertThat(j.leastGpuS()).isCloseTo(j.totalWork * 2 * 2, within(1e-9));
  }

  @Test
  @DisplayName("with profiles, the model is picked by job id and seed, the same for every run")
  void modelPick() {
    JobSpeedups a =
        JobSpeedups.profiles(
            "test",
            Map.of("knee", KNEE, "linear", new MeasuredSpeedup("linear", Map.of(1, 1.0, 64, 64.0))),
            7);
    java.util.List<String> ids =
        java.util.stream.IntStream.range(0, 400).mapToObj(i -> "j" + i).toList();
    Map<String, Integer> counts = a.countByModel(ids);
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(150, 250));
    JobSpeedups sameSeed =
        JobSpeedups.profiles(
            "test",
            new java.util.TreeMap<>(
                Map.of(
                    "knee",
                    KNEE,
                    "linear",
                    new MeasuredSpeedup("linear", Map.of(1, 1.0, 64, 64.0)))),
            7);
    for (String id : ids) {
      assertThat(sameSeed.modelOf(id)).isEqualTo(a.modelOf(id));
    }
    assertThat(JobSpeedups.UNIFORM.modelOf("j1")).isEmpty();
  }

  @Test
  @DisplayName("whether a curve ever falls as it widens is read off the measured tables")
  void neverFalls() {
    assertThat(JobSpeedups.UNIFORM.neverFalls()).isTrue();
    assertThat(JobSpeedups.profiles("test", Map.of("knee", KNEE), 1).neverFalls()).isTrue();
    MeasuredSpeedup dip = new MeasuredSpeedup("dip", Map.of(1, 1.0, 4, 3.0, 8, 2.5));
    assertThat(JobSpeedups.profiles("test", Map.of("knee", KNEE, "dip", dip), 1).neverFalls())
        .isFalse();
  }
}
