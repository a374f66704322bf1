package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RunTally: what a run measures adds up into its result")
class RunTallyTest {
  private static final SimConfig WORLD = SimConfig.defaults(2, 1); // 16 training + 8 inference GPUs

  @Test
  @DisplayName(
      "time in the window counts each pool's busy GPUs, the loans, inference and its shortfall")
  void elapsedTime() {
    RunTally tally = new RunTally();
    tally.elapsed(10, 8, 4, 8, 2.5, 4, 3); // short 3 of the 10 s: 4 server-s in all
    tally.elapsed(5, 16, 0, 0, 8, 0, 0);

    PolicyResult r = tally.result("aryl", WORLD, 100, 0, 1.5);

    assertThat(r.trainingBusyGpuS()).isEqualTo(8 * 10 + 16 * 5);
    assertThat(r.loanedBusyGpuS()).isEqualTo(4 * 10);
    assertThat(r.loanedGpuS()).isEqualTo(8 * 10);
    assertThat(r.inferenceBusyGpuS()).isEqualTo(2.5 * 10 + 8 * 5);
    assertThat(r.inferenceShortfallServerS()).isEqualTo(4);
    assertThat(r.inferenceShortS()).isEqualTo(3);
    assertThat(r)
        .extracting(
            PolicyResult::policy,
            PolicyResult::windowS,
            PolicyResult::trainingGpus,
            PolicyResult::inferenceGpus,
            PolicyResult::simWallS)
        .containsExactly("aryl", 100.0, 16, 8, 1.5);
  }

  @Test
  @DisplayName("preemptions count with their lost work, scale-ins on their own")
  void preemptionsAndScaleIns() {
    RunTally tally = new RunTally();
    tally.preempted(120);
    tally.preempted(30);
    tally.scaledIn();

    PolicyResult r = tally.result("aryl", WORLD, 100, 2, 0);

    assertThat(r.preemptions()).isEqualTo(2);
    assertThat(r.lostGpuS()).isEqualTo(150);
    assertThat(r.scaleIns()).isEqualTo(1);
    assertThat(r.unfinishedJobs()).isEqualTo(2);
  }

  @Test
  @DisplayName(
      "a finished job adds its record, its trace work, the GPU-seconds it held and its least work")
  void finishedJobs() {
    RunTally tally = new RunTally();
    tally.finished(
        new JobRecord("j1", 0, 0, 100, 8, false, 100), 800, 900, new CapacityBound.Work(0, 800));

    PolicyResult r = tally.result("aryl", WORLD, 100, 0, 0);

    assertThat(r.jobs()).extracting(JobRecord::id).containsExactly("j1");
    assertThat(r.workGpuS()).isEqualTo(800);
    assertThat(r.spentGpuS()).isEqualTo(900);
    // Alone on 24 GPUs at reference speed, 800 GPU-seconds take 800 / 24 s.
    assertThat(r.capacityBoundS()).isCloseTo(800.0 / 24, within(1e-9));
  }
}
