package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.model.Job;
import io.aryl.core.speedup.SpeedupModel;
import io.aryl.sim.trace.TraceJob;
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
    Job core = job.toCoreJob(50, true, SpeedupModel.linear());
    assertThat(core.id()).isEqualTo("j1");
    assertThat(core.tenant()).isEqualTo("team-a");
    assertThat(core.gpusPerWorker()).isEqualTo(2);
    assertThat(core.minWorkers()).isEqualTo(2);
    assertThat(core.maxWorkers()).isEqualTo(8);
    assertThat(core.remainingS()).isEqualTo(1000);
    assertThat(core.predictedRemainingS()).isEqualTo(1500);
    assertThat(core.attainedS()).isCloseTo(job.totalWork - 1000, within(1e-9));
    assertThat(core.sinceCheckpointS()).isEqualTo(50);
    assertThat(job.toCoreJob(50, false, SpeedupModel.linear()).tenant()).isEmpty();
  }

  @Test
  @DisplayName("a later round sees the job's progress since, with the same shape and tenant")
  void toCoreJobAgain() {
    SpeedupModel linear = SpeedupModel.linear();
    job.remaining = 1000;
    Job first = job.toCoreJob(50, true, linear);
    job.remaining = 400;
    Job later = job.toCoreJob(650, true, linear);

    assertThat(later)
        .isEqualTo(
            first.toBuilder()
                .remainingS(400)
                .predictedRemainingS(600)
                .attainedS(job.totalWork - 400)
                .sinceCheckpointS(650)
                .build());
    assertThat(job.toCoreJob(700, false, linear).tenant()).isEmpty();
    assertThat(job.toCoreJob(700, true, linear).tenant()).isEqualTo("team-a");
  }
}
