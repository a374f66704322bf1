package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RoundTimer: a round's wall and CPU time, step by step")
class RoundTimerTest {
  private static final long MS = 1_000_000;

  @Test
  @DisplayName(
      "each step is the time since the one before; the totals are the time since the start")
  void steps() {
    AtomicLong wall = new AtomicLong(100 * MS);
    AtomicLong cpu = new AtomicLong(7 * MS);
    RoundTimer timer = new RoundTimer(wall::get, cpu::get);

    wall.addAndGet(30 * MS);
    cpu.addAndGet(10 * MS);
    timer.lap("read");
    wall.addAndGet(50 * MS);
    cpu.addAndGet(5 * MS);
    timer.lap("plan");

    assertThat(timer.steps())
        .containsExactly(
            new RoundTimer.Step("read", 30 * MS, 10 * MS),
            new RoundTimer.Step("plan", 50 * MS, 5 * MS));
    assertThat(timer.wallNanos()).isEqualTo(80 * MS);
    assertThat(timer.cpuNanos()).isEqualTo(15 * MS);
  }

  @Test
  @DisplayName("it prints the totals, then each step's wall/CPU milliseconds")
  void printsEachStep() {
    AtomicLong wall = new AtomicLong();
    AtomicLong cpu = new AtomicLong();
    RoundTimer timer = new RoundTimer(wall::get, cpu::get);
    wall.addAndGet(12 * MS);
    cpu.addAndGet(9 * MS);
    timer.lap("read");
    wall.addAndGet(72 * MS);
    cpu.addAndGet(12 * MS);
    timer.lap("translate");

    assertThat(timer).hasToString("84 ms wall, 21 ms CPU: read 12/9, translate 72/12");
  }

  @Test
  @DisplayName("a timer with no step yet has taken no time")
  void noSteps() {
    RoundTimer timer = RoundTimer.start();

    assertThat(timer.wallNanos()).isZero();
    assertThat(timer.cpuNanos()).isZero();
    assertThat(timer).hasToString("0 ms wall, 0 ms CPU:");
  }

  @Test
  @DisplayName(
      "on this JVM the CPU clock is the calling thread's: busy work adds CPU time, sleeping does not")
  void measuresThisThreadsCpu() throws InterruptedException {
    RoundTimer timer = RoundTimer.start();
    Thread.sleep(50);
    timer.lap("sleep");

    assertThat(timer.wallNanos()).isGreaterThanOrEqualTo(50 * MS);
    assertThat(timer.cpuNanos()).isLessThan(40 * MS);
  }
}
