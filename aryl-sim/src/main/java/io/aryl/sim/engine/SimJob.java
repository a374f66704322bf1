package io.aryl.sim.engine;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.Job;
import io.aryl.core.speedup.SpeedupModel;
import io.aryl.sim.trace.TraceJob;

/**
 * A simulated job: its fixed shape and its changing state. Work is counted in base-seconds, seconds
 * at its minimum workers on reference GPUs; the simulator advances it and sets its allocation.
 */
final class SimJob {
  final TraceJob trace;
  final JobShape shape;
  final boolean measured;
  final double totalWork; // base-seconds at min workers, reference speed
  final double
      predictionFactor; // fixed per job: the predictor's error does not change between rounds
  private final double checkpointIntervalS;
  private final double speedupExponent;

  double remaining;
  double firstStart = Double.NaN;
  double lastStart;
  double pausedUntil;
  double runStart; // when the current run last checkpointed or started: preemption loses progress
  // since
  boolean preemptedBefore;
  int preemptions; // times stopped and sent back to the queue: the policy's budget counts them
  Allocation allocation = Allocation.EMPTY;
  int workers;
  int gpusOnTraining;
  int gpusOnLoaned;
  double rate; // base-seconds per second
  double spentGpuS; // GPU-seconds held while running
  private Job lastCore; // the last value toCoreJob made, null before the first
  private boolean lastWithTenant;

  /**
   * @param measured submitted inside the measured window
   * @param predictionFactor predicted remaining time over the true one
   */
  SimJob(TraceJob t, boolean measured, JobShape shape, double predictionFactor, SimConfig cfg) {
    this.trace = t;
    this.measured = measured;
    this.shape = shape;
    this.predictionFactor = predictionFactor;
    this.checkpointIntervalS = cfg.checkpointIntervalS();
    this.speedupExponent = cfg.speedupExponent();
    // The trace's duration is at the width it asked for; at its minimum it runs longer.
    this.totalWork =
        t.durationS()
            * throughput(shape.requestedWorkers(), speedupExponent)
            / throughput(shape.minWorkers(), speedupExponent);
    this.remaining = totalWork;
  }

  /** Relative throughput of synchronous data-parallel training at {@code workers} workers. */
  static double throughput(double workers, double speedupExponent) {
    return Math.pow(workers, speedupExponent);
  }

  boolean elastic() {
    return shape.maxWorkers() > shape.minWorkers();
  }

  /** Progress since the last checkpoint at time {@code t}: what a preemption then loses. */
  double sinceCheckpoint(double t) {
    return t <= runStart ? 0 : (t - runStart) % checkpointIntervalS;
  }

  double finishTime(double t) {
    return Math.max(t, pausedUntil) + remaining / rate;
  }

  /**
   * The job as aryl-core sees it at time {@code t}; of its trace's tenant when {@code withTenant}.
   * Made from the last one made with the same tenant and speed-up, as a simulator asks for every
   * job in every round.
   */
  Job toCoreJob(double t, boolean withTenant, SpeedupModel speedup) {
    double predicted = remaining * predictionFactor;
    Job last = lastCore;
    if (last != null
        && lastWithTenant == withTenant
        && last.speedup() == speedup
        && last.preemptions() == preemptions) {
      double attained = totalWork - remaining;
      double since = sinceCheckpoint(t);
      // A job that made no progress since (a queued one) is the very same value: no new one.
      if (Double.compare(last.remainingS(), remaining) == 0
          && Double.compare(last.predictedRemainingS(), predicted) == 0
          && Double.compare(last.attainedS(), attained) == 0
          && Double.compare(last.sinceCheckpointS(), since) == 0) {
        return last;
      }
      lastCore = last.withProgress(remaining, predicted, attained, since);
      return lastCore;
    }
    lastWithTenant = withTenant;
    lastCore =
        Job.builder(trace.id())
            .kind(trace.model())
            .tenant(withTenant ? trace.tenant() : "")
            .submitTimeS(trace.submitS())
            .gpusPerWorker(shape.gpusPerWorker())
            .workers(shape.minWorkers(), shape.maxWorkers())
            .remainingS(remaining)
            .predictedRemainingS(predicted)
            .attainedS(totalWork - remaining)
            .sinceCheckpointS(sinceCheckpoint(t))
            .preemptions(preemptions)
            .speedup(speedup)
            .build();
    return lastCore;
  }

  /** Its run time alone on an empty cluster at its widest: no policy can finish it sooner. */
  double boundS() {
    double widest = elastic() ? shape.maxWorkers() : shape.requestedWorkers();
    return trace.durationS()
        * throughput(shape.requestedWorkers(), speedupExponent)
        / throughput(widest, speedupExponent);
  }
}
