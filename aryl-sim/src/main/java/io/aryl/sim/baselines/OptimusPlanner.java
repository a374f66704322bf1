package io.aryl.sim.baselines;

import io.aryl.core.model.Job;
import io.aryl.core.placement.ServerTable;
import io.aryl.sim.engine.Planner;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Optimus (Peng et al., "Optimus: An Efficient Dynamic Resource Scheduler for Deep Learning
 * Clusters", EuroSys 2018), reimplemented as a round {@link Planner} so the simulator can run it on
 * the same input as Aryl.
 *
 * <h2>What is reimplemented faithfully</h2>
 *
 * <ul>
 *   <li><b>The marginal-gain allocation rule.</b> Optimus minimises the sum of completion times
 *       {@code Q_j / f_j(w_j)} with a greedy: repeatedly give one more task to the job whose
 *       estimated completion time drops the most per unit of resource the task takes, until
 *       resources run out or no job gains. Here a task is one worker, the resource is GPUs, and the
 *       gain of job {@code j} at {@code n} workers is {@code (predictedRuntimeAt(n) -
 *       predictedRuntimeAt(n + 1)) / gpusPerWorker}. The job with the largest gain gets one worker,
 *       its gain is recomputed, and so on while the largest gain is positive and a worker still
 *       fits. A priority queue holds the gains, so a round costs {@code O(workers added * log
 *       jobs)}, not rescans.
 *   <li><b>The minimal-first start.</b> Before any job gets more than its minimum, every job that
 *       runs gets its minimum: the paper starts each job at the smallest configuration that runs it
 *       and only then hands out the rest by marginal gain. Running jobs keep their minimum; queued
 *       jobs are given theirs as described below.
 *   <li><b>The placement principle.</b> Optimus puts a job's tasks on as few servers as possible
 *       (its placement theorem: fewer servers, less cross-server traffic). A starting job's minimum
 *       is placed on the fewest servers that can hold it: the roomiest servers first, the last part
 *       on the tightest server that holds all of it. An extra worker goes to a server already
 *       hosting the job when one has room, else to the server with the fewest free GPUs that fits
 *       it (best fit, which keeps large holes for later jobs).
 * </ul>
 *
 * <h2>What is not</h2>
 *
 * <ul>
 *   <li><b>The online-fitted models.</b> Optimus fits each job's loss curve online to estimate the
 *       remaining steps and fits a resource-to-speed model {@code f(p, w)} from measured step
 *       times. Here the remaining work is the job's {@link Job#predictedRemainingS()} (the same
 *       prediction Aryl reads; never the true remaining work) and the speed model is the job's
 *       {@link io.aryl.core.speedup.SpeedupModel}, through {@link Job#predictedRuntimeAt(int)}.
 *   <li><b>The parameter-server / worker split.</b> Optimus chooses, per step of its greedy,
 *       between adding a parameter server or a worker, each with its own CPU/memory/GPU demand, and
 *       normalises the gain by the task's dominant resource. Here workers are homogeneous (each
 *       takes {@code gpusPerWorker} GPUs), there are no parameter servers, and GPUs are the only
 *       resource, so the dominant-resource normalisation becomes "per GPU". Its parameter-block
 *       assignment to servers and its straggler handling are not modelled either.
 *   <li><b>Heterogeneity and pools.</b> Optimus knows neither GPU types of different speed nor
 *       loaned inference servers. Placement here respects the hard constraints (a job's allowed GPU
 *       types, servers that serve training, no new workers on fenced servers) but otherwise ignores
 *       GPU speed and pool: unlike Aryl, it does not keep base workers off loaned servers.
 *   <li><b>Starvation.</b> Optimus's protection against starvation is its minimal-first step, which
 *       assumes every job's minimum fits; no separate aging or reservation is described. This
 *       planner adds none either (Aryl's starvation guard is absent): when minima do not all fit, a
 *       large job can wait behind a stream of small ones.
 *   <li><b>Gang semantics.</b> The original has none: any job may run with one worker. The cluster
 *       model here demands that a job runs with at least {@code minWorkers} or not at all, so the
 *       minimal-first step is all or nothing on {@code minWorkers}.
 *   <li><b>Re-scaling cost.</b> Optimus re-decides every allocation each interval without weighing
 *       the pause a change costs; so does this planner (Aryl's allocator charges it). It does avoid
 *       needless moves: a running job's extra workers are re-placed where they already run when
 *       there is room, and new workers take GPUs no one uses before GPUs held by other jobs' extra
 *       workers.
 *   <li><b>No preemption.</b> A running job keeps {@code minWorkers} of its workers where they are
 *       (those on open servers first, then by server order), as Aryl does, so a round never
 *       preempts; only its extra workers are re-decided. Optimus itself may re-place any task at a
 *       re-scheduling.
 * </ul>
 *
 * <h2>Which queued jobs get their minimum first</h2>
 *
 * <p>The marginal gain of starting a queued job is ill-defined (its completion time while waiting
 * is unbounded), and the paper's minimal-first step assumes every job's minimum fits. When they do
 * not, this planner offers queued jobs their minimum in ascending order of <b>remaining GPU-time at
 * minimum width</b>, {@code baseGpus * predictedRuntimeAt(minWorkers)}, then by submission time and
 * id, skipping (not blocking on) a job whose gang does not fit. This is the admission counterpart
 * of Optimus's rule: among jobs that each occupy their demand for their runtime, serving the
 * smallest demand-weighted remaining time first (Smith's ratio rule with weight 1 / demand) is the
 * order that most reduces the total completion time per GPU-second spent, which is the quantity the
 * greedy ranks by. It also matches the practice of Optimus reimplementations that hand out minima
 * smallest demand first.
 *
 * <p>Pure and deterministic: ties go by job id and server order.
 */
public final class OptimusPlanner extends KeptBaseRound {

  public OptimusPlanner() {}

  /**
   * The order queued jobs are offered their minimum: smallest remaining GPU-time at minimum width
   * first.
   */
  static final Comparator<Job> ADMISSION_ORDER =
      Comparator.comparingDouble((Job j) -> j.baseGpus() * j.predictedRuntimeAt(j.minWorkers()))
          .thenComparingDouble(Job::submitTimeS)
          .thenComparing(Job::id);

  /**
   * True: a round on a saturated snapshot (nothing queued, nothing fenced, every running job at its
   * widest) hands every job back the very workers it runs, provided every running job's predicted
   * remaining time is above zero (as the simulator's are: a job whose work is done has finished).
   *
   * <ul>
   *   <li>No one is queued, so the minimal-first step admits no one.
   *   <li>Each job starts the greedy at its base and takes one worker at a time while its gain is
   *       above zero, which it is at every width below its widest with a positive predicted time,
   *       up to its widest: its present width.
   *   <li>Each worker it takes goes first to a server where it runs an extra worker now that still
   *       has room. Every job's extra workers go back to its own such servers, as many as it holds
   *       there, so the GPUs of the extras not yet placed on a server are spare there: each has
   *       room, and no job reaches the later choices.
   *   <li>The spare GPUs in all hold every extra worker not yet placed, so the greedy does not stop
   *       early; the workers end where they began, and the target is the allocation the job started
   *       the round with.
   * </ul>
   */
  @Override
  public boolean changesNothingWhenSaturated() {
    return true;
  }

  /** Optimus's decision: minimal-first admission, then marginal gain. */
  @Override
  void share(List<Entry> entries, List<Entry> queued, Budget budget) {
    admit(queued, budget, entries);
    grow(entries, budget, OptimusPlanner::gainPerGpu);
  }

  /**
   * Minimal-first: every queued job that fits gets its minimum, all or nothing, before anyone
   * grows.
   */
  static void admit(List<Entry> queued, Budget budget, List<Entry> entries) {
    queued.sort(Comparator.comparing((Entry e) -> e.job, ADMISSION_ORDER));
    Map<Long, Integer> failedAt =
        new HashMap<>(); // (gpusPerWorker, types) -> fewest workers that did not fit
    for (Entry e : queued) {
      Job job = e.job;
      if (budget.spare.total() == 0) {
        break;
      }
      if (job.baseGpus() > budget.spare.total()) {
        continue;
      }
      long key = job.gpusPerWorker() * 1_000_003L + ServerTable.mask(e.types);
      Integer failed = failedAt.get(key);
      if (failed != null && job.minWorkers() >= failed) {
        continue; // capacity only shrinks during admission: a gang this large cannot fit now either
      }
      if (!budget.placeGang(e, job.minWorkers())) {
        failedAt.merge(key, job.minWorkers(), Math::min);
        continue;
      }
      entries.add(e);
    }
  }

  /** Reduction of the predicted completion time from one more worker, per GPU that worker takes. */
  static double gainPerGpu(Job job, int workers) {
    return (job.predictedRuntimeAt(workers) - job.predictedRuntimeAt(workers + 1))
        / job.gpusPerWorker();
  }
}
