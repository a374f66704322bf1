package io.aryl.sim.baselines;

import io.aryl.core.model.Job;
import java.util.List;

/**
 * AFS, Apathetic Future Share (Hwang et al., "Elastic Resource Sharing for Distributed Deep
 * Learning", NSDI 2021), reimplemented as a round so the simulator can run it on the same input as
 * Aryl and Optimus.
 *
 * <h2>The rule</h2>
 *
 * <p>The rule below is reconstructed from the paper's description and its two-job analysis (AFS
 * code was not compared against); the tests pin what this planner does.
 *
 * <p>AFS hands out GPUs one at a time and decides each one by comparing jobs in pairs. For two jobs
 * i and j with remaining work {@code l_i}, {@code l_j} and throughput gains {@code Δ_i}, {@code
 * Δ_j} from one more GPU, its two-job analysis values the GPU by the share of the job's remaining
 * work it finishes per second, under the <em>apathetic</em> view that no job gets more GPUs later
 * than it holds now (the paper's point is that the optimistic view, in which a waiting job later
 * inherits the GPUs of the jobs that finish, overrates giving everything to the shortest job). So i
 * gets the GPU before j when
 *
 * <pre>  Δ_i / l_i  &gt;  Δ_j / l_j     (equivalently  Δ_i · l_j  &gt;  Δ_j · l_i)</pre>
 *
 * <p>With linear scaling every Δ is equal and the rule is shortest remaining work first; with
 * sub-linear scaling a job that gains little from more GPUs yields them to one that gains much,
 * even if it is the shorter: resource efficiency weighed against short-job priority, the paper's
 * point. Since the comparison is a total order (each job has its own value), the pairwise
 * tournament for each next GPU is the head of a priority queue, so a round costs {@code O(workers
 * handed out * log jobs)}.
 *
 * <p>Here, with jobs in workers of {@code gpusPerWorker} GPUs and throughput relative to the
 * minimum gang:
 *
 * <ul>
 *   <li><b>Every job runs.</b> A job without GPUs never finishes, so in AFS its first GPU comes
 *       before anyone's next: every job gets at least one. In this cluster a job runs with its
 *       minimum gang or not at all, so every queued job that fits gets its minimum first, all or
 *       nothing; when not all fit, the highest start value first, {@code 1 / (predictedRemaining *
 *       baseGpus)} ({@link #startValue}: the least remaining GPU-time), which is the order Optimus
 *       admits in too. Running jobs keep their minimum gang where they are ({@link KeptBaseRound}).
 *   <li><b>Then each next worker</b> goes to the job with the highest {@code (T(n+1) - T(n)) /
 *       T(min) / (predictedRemaining * gpusPerWorker)} ({@link #extraValue}): the rule above, per
 *       GPU. Extra workers are re-decided every round, and a start may take GPUs held by other
 *       jobs' extra workers (which shrinks them; the simulator charges the re-scaling pause).
 * </ul>
 *
 * <p>What separates it from Optimus is that second step: Optimus gives the next worker to the job
 * whose completion time drops the most, {@code remaining * (1/T(n) - 1/T(n+1))}, which grows with
 * the remaining work and so favours long jobs; AFS divides by the remaining work and favours short
 * ones, unless they scale much worse.
 *
 * <h2>What is not modelled</h2>
 *
 * <ul>
 *   <li><b>Throughput measurement.</b> AFS (in its CoDDL system) measures each job's throughput at
 *       each GPU count online. Here the throughput is the job's {@link
 *       io.aryl.core.speedup.SpeedupModel} and the remaining work its {@link
 *       Job#predictedRemainingS()} (the prediction Aryl reads too, never the truth).
 *   <li><b>AFS-P's handling of non-concave throughput.</b> AFS-P looks ahead over several GPUs when
 *       one more GPU gains nothing but a few more would (throughput curves with plateaus). The
 *       simulator's throughput is {@code n^e}, concave and increasing, so the one-GPU comparison is
 *       the whole rule; the look-ahead is not implemented.
 *   <li><b>More jobs than GPUs.</b> When not every job can have a GPU, AFS picks which jobs run by
 *       the same comparison and may take a job's last GPU. Here a running job keeps its minimum
 *       gang (jobs are gang-scheduled at their minimum, as for Optimus), so AFS never preempts, and
 *       queued jobs take free GPUs or GPUs held by extra workers, least remaining GPU-time first.
 *   <li><b>CoDDL's system.</b> Its fast re-adjustment (re-scaling without a restart) is not
 *       modelled: every change of width costs the simulator's re-scaling pause, as for every
 *       policy. Its placement (a job's GPUs on as few machines as possible) is the shared
 *       few-server placement.
 *   <li><b>Heterogeneity and pools.</b> AFS knows neither GPU types of different speed nor loaned
 *       servers; placement respects the hard constraints only, as Optimus's does.
 *   <li><b>Starvation.</b> AFS has no aging; neither has this planner.
 * </ul>
 *
 * <p>Pure and deterministic: ties go by job id and server order.
 */
public final class AfsPlanner extends KeptBaseRound {

  public AfsPlanner() {}

  /**
   * True, for the reason Optimus's is ({@link OptimusPlanner#changesNothingWhenSaturated()}):
   * nothing is queued, so nothing competes with the running jobs' extra workers; every extra
   * worker's value is above zero below a job's widest (its throughput rises with every worker and
   * its predicted remaining work is above zero), so each job takes workers up to its widest, its
   * present width, each first where its extra workers run now.
   */
  @Override
  public boolean changesNothingWhenSaturated() {
    return true;
  }

  /**
   * Every queued job that fits gets its minimum first, smallest remaining GPU-time first (the
   * highest {@link #startValue}; {@link OptimusPlanner#ADMISSION_ORDER}), then every next worker
   * goes by {@link #extraValue}.
   */
  @Override
  void share(List<Entry> entries, List<Entry> queued, Budget budget) {
    OptimusPlanner.admit(queued, budget, entries);
    grow(entries, budget, AfsPlanner::extraValue);
  }

  /**
   * Value per GPU of starting a queued job: its minimum gang finishes {@code 1 / remaining} of its
   * work per second, over the GPUs of the gang. A job with nothing left to do is worth the most.
   */
  static double startValue(Job job) {
    return perRemaining(1.0 / job.baseGpus(), job.predictedRemainingS());
  }

  /**
   * Value per GPU of one more worker for a job at {@code workers}: the share of its remaining work
   * the extra throughput finishes per second, over the worker's GPUs.
   */
  static double extraValue(Job job, int workers) {
    double gain =
        (job.speedup().throughput(workers + 1) - job.speedup().throughput(workers))
            / job.speedup().throughput(job.minWorkers());
    return perRemaining(gain / job.gpusPerWorker(), job.predictedRemainingS());
  }

  private static double perRemaining(double gainPerGpu, double remainingS) {
    if (remainingS > 0) {
      return gainPerGpu / remainingS;
    }
    return gainPerGpu > 0 ? Double.MAX_VALUE : 0;
  }
}
