package io.aryl.sls;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The {@link ArylAmSimulator}s of this JVM's SLS run, for the run to read what became of each job:
 * SLS creates its AM simulators by reflection and keeps them to itself.
 */
public final class SlsJobLog {
  private static final ConcurrentLinkedQueue<ArylAmSimulator> JOBS = new ConcurrentLinkedQueue<>();

  private SlsJobLog() {}

  static void add(ArylAmSimulator job) {
    JOBS.add(job);
  }

  /** Each submitted job as it is now: finished or not. */
  public static List<SlsJobRecord> records() {
    return JOBS.stream().map(ArylAmSimulator::record).toList();
  }
}
