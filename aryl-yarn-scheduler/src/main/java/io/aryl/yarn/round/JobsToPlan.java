package io.aryl.yarn.round;

import io.aryl.core.job.JobShape;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.Job;
import io.aryl.core.speedup.SpeedupModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleBiFunction;

/**
 * The applications a round plans, as aryl-core's jobs with their allocations: which ones enter the
 * snapshot (a job that holds workers, or whose ApplicationMaster asks for its whole gang and fits
 * on some node), how wide each may grow, and how long each has left.
 */
final class JobsToPlan {
  private final double nowS;
  private final Map<String, JobProgress> progress;
  private final ToDoubleBiFunction<String, JobProgress> sinceCheckpointS;
  private final SpeedupModel speedup;
  private final List<Job> jobs = new ArrayList<>();
  private final Map<String, Allocation> allocations = new TreeMap<>();

  /**
   * @param progress each job's progress, as the scheduler measures it
   * @param sinceCheckpointS for a job, the seconds of work preempting it now would throw away
   * @param speedup how every job's throughput grows with its workers
   */
  JobsToPlan(
      double nowS,
      Map<String, JobProgress> progress,
      ToDoubleBiFunction<String, JobProgress> sinceCheckpointS,
      SpeedupModel speedup) {
    this.nowS = nowS;
    this.progress = progress;
    this.sinceCheckpointS = sinceCheckpointS;
    this.speedup = speedup;
  }

  /**
   * Adds each application the plan sees, with the workers counted for it.
   *
   * @param largestFree the most GPUs the plan may use on one node
   */
  void addAll(Iterable<AppView> apps, HeldWorkers held, CountedWorkers counted, int largestFree) {
    for (AppView app : apps) {
      JobShape shape = app.shape();
      int total = counted.total(app.id());
      int liveTotal = held.count(app.id()); // 0 for a partial gang: its workers are orphans now
      int wanted = liveTotal + app.askedWorkers();
      if (total == 0 && wanted < shape.minWorkers()) {
        continue; // its ApplicationMaster has not asked for its whole gang yet
      }
      if (total == 0 && shape.gpusPerWorker() > largestFree) {
        continue; // no server has room for one worker now; the core would refuse the job outright
      }
      int max = Math.min(shape.maxWorkers(), Math.max(Math.max(wanted, total), shape.minWorkers()));
      JobProgress p = progress.getOrDefault(app.id(), JobProgress.NONE);
      jobs.add(
          Job.builder(app.id())
              .kind(shape.kind())
              .tenant(app.tenant())
              .submitTimeS(Math.min(app.submitS(), nowS))
              .gpusPerWorker(shape.gpusPerWorker())
              .allowedGpuTypes(shape.gpuTypes())
              .workers(shape.minWorkers(), max)
              .remainingS(remainingS(shape, p))
              .attainedS(p.attainedBaseS())
              .sinceCheckpointS(sinceCheckpointS.applyAsDouble(app.id(), p))
              .preemptions(p.preemptions())
              .speedup(speedup)
              .build());
      if (total > 0) {
        allocations.put(app.id(), Allocation.of(counted.of(app.id())));
      }
    }
  }

  /**
   * What the prediction leaves, to its last second: a job near its predicted end is planned as near
   * it (shortest first, the elastic value), as the simulator the policy is evaluated on plans it.
   * Only a job past its prediction, which was wrong, is assumed to need a tenth of it more; a floor
   * of a tenth for every job had planned each one in its last tenth as longer than it is.
   */
  private static double remainingS(JobShape shape, JobProgress p) {
    double left = shape.predictedRuntimeS() - p.attainedBaseS();
    return left > 0 ? left : 0.1 * shape.predictedRuntimeS();
  }

  /** The jobs added, in the order of the applications. */
  List<Job> jobs() {
    return jobs;
  }

  /** The allocations of the jobs that hold or are promised workers, by job id. */
  Map<String, Allocation> allocations() {
    return allocations;
  }
}
