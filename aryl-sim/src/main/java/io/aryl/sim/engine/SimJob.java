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
  final SpeedupModel speedup; // the job's own curve: its progress and what every policy reads

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
    this.speedup = cfg.jobSpeedups().curveOf(t.id(), shape.gpusPerWorker(), cfg.speedupExponent());
    // The trace's duration is at the width it asked for; at its minimum it runs longer (or, on a
    // measured curve that falls, shorter).
    this.totalWork =
        t.durationS()
            * JobSpeedups.throughputAt(speedup, shape.requestedWorkers())
            / speedup.throughput(shape.minWorkers());
    this.remaining = totalWork;
  }

  /**
   * Its speed at {@code workers} workers on GPUs of {@code slowest} relative speed, in base-seconds
   * per second: synchronous data-parallel training runs at the pace of its slowest GPU.
   */
  double rateAt(int workers, double slowest) {
    return workers == 0
        ? 0
        : speedup.throughput(workers) / speedup.throughput(shape.minWorkers()) * slowest;
  }

  /**
   * The least effective GPU-seconds its work takes at any width it may run at: at its minimum on a
   * concave curve, where work per GPU is highest; a measured curve may do better wider.
   */
  double leastGpuS() {
    int g = shape.gpusPerWorker();
    int best = shape.minWorkers();
    double bestPerWork = 1; // GPU-seconds per base-second at `best`, over minWorkers * g
    for (int w = shape.minWorkers() + 1; w <= shape.maxWorkers(); w++) {
      double perWork =
          (double) w / shape.minWorkers() / speedup.throughput(w) * speedup.throughput(best);
      if (perWork < bestPerWork) {
        best = w;
        bestPerWork = perWork;
      }
    }
    if (best == shape.minWorkers()) {
      return totalWork * shape.minWorkers() * g;
    }
    return totalWork * best * g * speedup.throughput(shape.minWorkers()) / speedup.throughput(best);
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
  Job toCoreJob(double t, boolean withTenant) {
    double predicted = remaining * predictionFactor;
    Job last = lastCore;
    if (last != null && lastWithTenant == withTenant && last.preemptions() == preemptions) {
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

  /**
   * Its run time alone on an empty cluster at its fastest width (its widest, unless a measured
   * curve falls): no policy can finish it sooner.
   */
  double boundS() {
    double asked = JobSpeedups.throughputAt(speedup, shape.requestedWorkers());
    if (!elastic()) {
      return trace.durationS() * asked / asked;
    }
    double fastest = 0;
    for (int w = shape.minWorkers(); w <= shape.maxWorkers(); w++) {
      fastest = Math.max(fastest, speedup.throughput(w));
    }
    return trace.durationS() * asked / fastest;
  }
}
