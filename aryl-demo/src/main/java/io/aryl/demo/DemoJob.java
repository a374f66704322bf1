package io.aryl.demo;

/**
 * One job of the demo's stream: a job of the bundled ITP trace with its run time scaled to the
 * demo, shaped as the simulator shapes it ({@link io.aryl.sim.engine.JobShape}).
 *
 * @param name application name, unique in the stream ({@code j03-8g-elastic})
 * @param traceId the ITP job id it comes from
 * @param submitAtMs when it is submitted, milliseconds from the start of a run
 * @param elastic whether it may run between {@code minWorkers} and {@code maxWorkers}
 * @param gpus the trace's GPU count, capped to half the training pool
 * @param gpusPerWorker GPUs of each worker container
 * @param minWorkers base gang
 * @param maxWorkers most workers
 * @param traceDurationS the job's run time in the trace, seconds
 * @param runtimeS scaled run time at the trace's width ({@code gpus}), seconds
 * @param workUnits work to do, in worker-seconds: one second of {@code W} workers does {@code W}
 *     units
 * @param predictedRuntimeS run time at {@code minWorkers}, seconds: {@code ceil(workUnits /
 *     minWorkers)}
 */
public record DemoJob(
    String name,
    String traceId,
    long submitAtMs,
    boolean elastic,
    int gpus,
    int gpusPerWorker,
    int minWorkers,
    int maxWorkers,
    double traceDurationS,
    long runtimeS,
    long workUnits,
    long predictedRuntimeS) {

  public DemoJob {
    if (minWorkers < 1 || maxWorkers < minWorkers) {
      throw new IllegalArgumentException(
          "job("
              + name
              + ") workers must be 1 <= min <= max, was "
              + minWorkers
              + ".."
              + maxWorkers);
    }
    if (workUnits < 1 || runtimeS < 1 || submitAtMs < 0) {
      throw new IllegalArgumentException(
          "job("
              + name
              + ") work, runtime and submission time must be positive, was "
              + workUnits
              + ", "
              + runtimeS
              + ", "
              + submitAtMs);
    }
  }

  /** GPU-seconds the job offers at its trace width: {@code gpus * runtimeS}. */
  public double offeredGpuSeconds() {
    return (double) gpus * runtimeS;
  }
}
