package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.sim.trace.TraceJob;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The peers run by the simulator, which charges them what it charges every policy: a preemption
 * loses the progress since the last checkpoint and pays the restart pause.
 */
@DisplayName("the peers in the simulator: Tiresias preempts and pays for it, AFS never preempts")
class PeersInTheSimulatorTest {
  // One training server of 8 GPUs, no inference, rounds every 60 s, checkpoints every 30 min, a
  // 120 s restart.
  private static final SimConfig ONE_SERVER = SimConfig.defaults(1, 0);

  private static Scenario scenario(TraceJob... jobs) {
    return new Scenario("hand-built", List.of(jobs), null, ONE_SERVER, 0, 3600, 0, 0, 0, 0, 1);
  }

  private static JobRecord record(PolicyResult r, String id) {
    return r.jobs().stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
  }

  // "long" (8 GPUs, 20,000 s) runs from 0. "short" (8 GPUs, 600 s) arrives at 1000 s; the round at
  // 1020 s finds long at 8160 GPU-s, past both thresholds (3250, 7200): short, in the first queue,
  // takes its GPUs and runs to 1620 s. long loses its 1020 s since the last checkpoint (it began at
  // 0, checkpoints every 1800 s), restarts at the round at 1620 s, pauses 120 s, and needs its full
  // 20,000 s again: it ends at 21,740 s.
  private static final TraceJob LONG = new TraceJob("long", 0, 20_000, 8, "");
  private static final TraceJob SHORT = new TraceJob("short", 1_000, 600, 8, "");

  @Test
  @DisplayName("Tiresias preempts a long job for a new short one; the long job loses its work")
  void tiresiasPreemptsAndPays() {
    PolicyResult r = scenario(LONG, SHORT).run(PolicySpec.named("tiresias"), null);

    assertThat(record(r, "short").firstStartS()).isEqualTo(1_020);
    assertThat(record(r, "short").endS()).isEqualTo(1_620);
    assertThat(record(r, "long").endS()).isEqualTo(21_740);
    assertThat(r.preemptions()).isEqualTo(1);
    assertThat(r.lostGpuS()).isEqualTo(1_020.0 * 8);
  }

  @Test
  @DisplayName("without preemption (the baseline) the short job waits for the long one")
  void theBaselineMakesTheShortJobWait() {
    PolicyResult r = scenario(LONG, SHORT).run(PolicySpec.named("baseline"), null);

    assertThat(record(r, "short").firstStartS()).isEqualTo(20_040);
    assertThat(r.preemptions()).isZero();
  }

  @Test
  @DisplayName("AFS keeps the long job's minimum: the short job waits, nothing is lost")
  void afsNeverPreempts() {
    PolicyResult r = scenario(LONG, SHORT).run(PolicySpec.named("afs"), null);

    assertThat(r.preemptions()).isZero();
    assertThat(r.lostGpuS()).isZero();
    assertThat(record(r, "short").firstStartS()).isEqualTo(20_040);
  }

  @Test
  @DisplayName("the peers are registered with Aryl's loaning; Tiresias runs jobs at their size")
  void thePeersLendLikeAryl() {
    for (String name : List.of("optimus", "tiresias", "afs", "goodput")) {
      PolicySpec p = PolicySpec.named(name);
      assertThat(p.loan()).as(name).isTrue();
      assertThat(p.reclaim()).as(name).isEqualTo(PolicySpec.ReclaimChoice.LEAST_COST);
    }
    assertThat(PolicySpec.named("tiresias").elastic()).isFalse();
    assertThat(PolicySpec.named("afs").elastic()).isTrue();
    assertThat(PolicySpec.named("goodput").elastic()).isTrue();
  }

  @Test
  @DisplayName("goodput keeps the long job's minimum too: the short job waits, nothing is lost")
  void goodputNeverPreempts() {
    PolicyResult r = scenario(LONG, SHORT).run(PolicySpec.named("goodput"), null);

    assertThat(r.preemptions()).isZero();
    assertThat(r.lostGpuS()).isZero();
    assertThat(record(r, "short").firstStartS()).isEqualTo(20_040);
    assertThat(record(r, "long").endS()).isEqualTo(20_000);
  }
}
