package io.aryl.yarn.rm;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The wall time and the CPU time of one planning round, step by step. Both, because the round
 * shares the cores with the Capacity Scheduler's threads: a round long in wall time and short in
 * CPU time waited for a core, a lock or the disk, not for its own work.
 *
 * <p>Not thread-safe: one round, on the thread that runs it.
 */
final class RoundTimer {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** One step: its name, wall and CPU nanoseconds. */
  record Step(String name, long wallNanos, long cpuNanos) {}

  private final LongSupplier wallClock;
  private final LongSupplier cpuClock;
  private final long startWall;
  private final long startCpu;
  private long lastWall;
  private long lastCpu;
  private final List<Step> steps = new ArrayList<>();

  /** Starts timing now, on the calling thread. */
  static RoundTimer start() {
    LongSupplier cpu =
        THREADS.isCurrentThreadCpuTimeSupported() ? THREADS::getCurrentThreadCpuTime : () -> 0L;
    return new RoundTimer(System::nanoTime, cpu);
  }

  /**
   * Starts timing now, on these clocks.
   *
   * @param wallClock nanoseconds of wall time
   * @param cpuClock nanoseconds of the calling thread's CPU time
   */
  RoundTimer(LongSupplier wallClock, LongSupplier cpuClock) {
    this.wallClock = wallClock;
    this.cpuClock = cpuClock;
    this.startWall = lastWall = wallClock.getAsLong();
    this.startCpu = lastCpu = cpuClock.getAsLong();
  }

  /** Ends the step in progress under this name; the next one starts now. */
  void lap(String name) {
    long wall = wallClock.getAsLong();
    long cpu = cpuClock.getAsLong();
    steps.add(new Step(name, wall - lastWall, cpu - lastCpu));
    lastWall = wall;
    lastCpu = cpu;
  }

  /** Wall nanoseconds since the start. */
  long wallNanos() {
    return lastWall - startWall;
  }

  /** CPU nanoseconds of this thread since the start. */
  long cpuNanos() {
    return lastCpu - startCpu;
  }

  List<Step> steps() {
    return List.copyOf(steps);
  }

  /**
   * E.g. {@code 84 ms wall, 21 ms CPU: read 10/9, translate 60/8, plan 14/4}: each step's wall/CPU
   * milliseconds.
   */
  @Override
  public String toString() {
    StringBuilder s =
        new StringBuilder()
            .append(ms(wallNanos()))
            .append(" ms wall, ")
            .append(ms(cpuNanos()))
            .append(" ms CPU:");
    String sep = " ";
    for (Step step : steps) {
      s.append(sep)
          .append(step.name())
          .append(' ')
          .append(ms(step.wallNanos()))
          .append('/')
          .append(ms(step.cpuNanos()));
      sep = ", ";
    }
    return s.toString();
  }

  private static long ms(long nanos) {
    return Math.round(nanos / 1e6);
  }
}
