package io.aryl.sim.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A lower bound on the average JCT of jobs that share a finite number of GPUs: the average flow
 * time of shortest-remaining-work-first (SRPT) on one machine as fast as all the GPUs training
 * could have.
 *
 * <p>Why no schedule of the simulator beats it. Count capacity in effective GPU-seconds: a GPU of
 * speed s gives {@code min(1, s)} per second (a job runs at its slowest GPU's pace, never above the
 * reference speed).
 *
 * <ol>
 *   <li>Each job j needs at least {@code e_j} of them, its work at its minimum width m on reference
 *       GPUs: {@code e_j = m * g * base_j}, {@code base_j} its seconds of work at m workers of g
 *       GPUs. At w >= m workers its progress is {@code (w/m)^a} base-seconds per second times its
 *       slowest speed, with the speedup exponent {@code a <= 1}, while it holds at least {@code w *
 *       g} times that speed in capacity; progress per unit of capacity, {@code (w/m)^a / (w * g)},
 *       is largest at w = m. With a measured curve ({@link JobSpeedups}) it may be largest wider,
 *       and {@code e_j} is then its work at the width where it is ({@code SimJob#leastGpuS}).
 *       Pauses, restarts and lost work only add to it.
 *   <li>At any moment the jobs together hold at most {@code C} effective GPU-seconds per second, C
 *       summing {@code min(1, s)} over every GPU of both pools (all of inference could be on loan).
 *   <li>So any schedule's completion times are those of a schedule on one machine of speed C, where
 *       job j arrives at its submission and needs e_j, the machine's speed split among the jobs as
 *       the GPUs were. On one machine with release dates and preemption, SRPT minimises the sum of
 *       completion times (Schrage, 1968), and splitting the machine among jobs finishes none sooner
 *       in sum than giving it whole to the one with least work left (swap the work done in any
 *       interval toward the job finishing first: no completion moves later).
 * </ol>
 *
 * Hence the mean of the SRPT flow times is at most the mean JCT of every schedule of the same jobs,
 * whichever jobs of the trace are left out. It is a bound on the mean only: SRPT finishes some jobs
 * later than a schedule that puts them first. The per-job bound (no queue, full width) is another
 * lower bound of the mean; {@link Metrics} reports the larger.
 */
public final class CapacityBound {
  /**
   * One job's part.
   *
   * @param releaseS when it was submitted
   * @param workGpuS effective GPU-seconds it needs at least ({@code e_j} above)
   */
  public record Work(double releaseS, double workGpuS) {
    public Work {
      if (!(workGpuS >= 0) || Double.isNaN(releaseS)) {
        throw new IllegalArgumentException(
            "a job's work must be >= 0 and its release a number, was "
                + workGpuS
                + " at "
                + releaseS);
      }
    }
  }

  private CapacityBound() {}

  /**
   * Mean flow time (completion less release) of SRPT on one machine of {@code capacity} GPU-seconds
   * per second.
   */
  public static double meanSrptFlowS(List<Work> jobs, double capacity) {
    if (!(capacity > 0)) {
      throw new IllegalArgumentException(
          "capacity must be > 0 GPU-seconds per second, was " + capacity);
    }
    if (jobs.isEmpty()) {
      return 0;
    }
    List<Work> byRelease = new ArrayList<>(jobs);
    byRelease.sort(Comparator.comparingDouble(Work::releaseS));
    // Remaining work of the jobs released and not done, least first; a job's release rides along
    // for its flow time.
    PriorityQueue<double[]> open =
        new PriorityQueue<>(Comparator.comparingDouble((double[] r) -> r[0]));
    double t = byRelease.get(0).releaseS();
    double flow = 0;
    int next = 0;
    while (next < byRelease.size() || !open.isEmpty()) {
      if (open.isEmpty()) {
        t = Math.max(t, byRelease.get(next).releaseS());
      }
      while (next < byRelease.size() && byRelease.get(next).releaseS() <= t) {
        Work w = byRelease.get(next++);
        open.add(new double[] {w.workGpuS(), w.releaseS()});
      }
      double[] first = open.poll();
      double done = t + first[0] / capacity;
      double arrival =
          next < byRelease.size() ? byRelease.get(next).releaseS() : Double.POSITIVE_INFINITY;
      if (done <= arrival) {
        t = done;
        flow += done - first[1];
      } else {
        first[0] -= (arrival - t) * capacity;
        t = arrival;
        open.add(first);
      }
    }
    return flow / jobs.size();
  }
}
