package io.aryl.core.admission;

import io.aryl.core.model.Checks;
import io.aryl.core.model.Job;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Which queued jobs jump shortest-first because they have waited too long: the rule of {@link Admission}'s
 * starvation guard, a pure function of the queue, the running jobs and the clock.
 *
 * <p>A job queued longer than {@code waitS} is <em>starving</em>. With a {@code share} above 0 (<b>the senior
 * lane</b>), jobs that started starving may hold at most {@code share} of the pool's GPUs: while the running ones hold
 * less, the oldest starving jobs are offered first, oldest first, each taking its base GPUs out of what is left (the
 * last one may overrun it by one gang), and every other job keeps its shortest-first place. So however long the
 * queue, at most that share of the GPUs goes out of shortest-first order: under sustained overload the lane serves
 * the longest-waiting jobs first-come-first-served while the rest of the pool stays shortest-first, instead of every
 * freed GPU going to whoever has waited longest. With no job starving (no overload) the order is exactly
 * shortest-first.
 *
 * <p>With {@code share} 0 (the rule before the lane), only the single oldest starving job jumps, whatever runs; one
 * such job per round, round after round, is what turned shortest-first into first-come-first-served under overload.
 */
public record StarvationGuard(double waitS, double share) {
  /** The lane's default share of the pool's GPUs. */
  public static final double DEFAULT_SHARE = 0.25;

  public StarvationGuard {
    Checks.positive("starvationGuard.waitS", waitS);
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException("starvationGuard.share must be in [0, 1], was " + share);
    }
  }

  /** The rule before the senior lane: only the oldest starving job jumps. */
  public static StarvationGuard oldestOnly(double waitS) {
    return new StarvationGuard(waitS, 0);
  }

  public boolean isStarving(Job job, double nowS) {
    return nowS - job.submitTimeS() > waitS;
  }

  /**
   * The queued jobs that jump shortest-first, oldest first: the oldest starving jobs, while the lane has room.
   *
   * @param running the jobs holding base GPUs now: those that had waited past the wait when they started hold the
   *     lane (ignored with share 0)
   * @param poolGpus the GPUs of the pool the jobs share, of which the lane takes {@code share}
   */
  public List<Job> jumpers(List<Job> queued, Collection<Job> running, double nowS, int poolGpus) {
    List<Job> starving = new ArrayList<>();
    for (Job j : queued) {
      if (isStarving(j, nowS)) {
        starving.add(j);
      }
    }
    if (starving.isEmpty()) {
      return List.of();
    }
    starving.sort(JobOrder.FIFO.comparator());
    if (share == 0) {
      return List.of(starving.get(0));
    }
    double lane = share * poolGpus;
    double used = 0;
    for (Job r : running) {
      if (startedStarving(r, nowS)) {
        used += baseGpus(r);
      }
    }
    List<Job> out = new ArrayList<>();
    for (Job s : starving) {
      if (used >= lane) {
        break;
      }
      out.add(s);
      used += baseGpus(s);
    }
    return out;
  }

  /**
   * Whether a running job had waited past the wait when it started, judged without history by its age less the work
   * it has done ({@link Job#attainedS()}, in base-seconds): exact for a job at base width on reference GPUs, an
   * under-estimate for one running wider.
   */
  public boolean startedStarving(Job running, double nowS) {
    return nowS - running.submitTimeS() - running.attainedS() > waitS;
  }

  private static double baseGpus(Job j) {
    return (double) j.gpusPerWorker() * j.minWorkers();
  }
}
