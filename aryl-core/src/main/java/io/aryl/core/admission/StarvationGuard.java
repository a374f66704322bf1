package io.aryl.core.admission;

import io.aryl.core.model.Checks;
import io.aryl.core.model.Job;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Which queued jobs jump shortest-first because they have waited too long: the rule of {@link
 * Admission}'s starvation guard, a pure function of the queue, the running jobs and the clock.
 *
 * <p>A job queued longer than {@code waitS} is <em>starving</em>. With a {@code share} above 0,
 * <b>the senior lane</b>: take every job of the pool, running or queued, oldest submission first,
 * until their base GPUs reach the lane, which is {@code share} of the pool's GPUs, or {@code
 * lightShare} of them (half, {@link #LIGHT_SHARE}, by default) if that is more while the starving
 * jobs' base GPUs add up to no more than the pool's. The starving queued jobs among them are
 * offered first, oldest first; every other job keeps its shortest-first place. So the oldest jobs,
 * up to the lane, are always running or next in line, and however long the queue, at most the lane
 * (plus one gang) goes out of shortest-first order: a backlog the pool could clear is cleared fast,
 * and under overload too deep for that the lane narrows to {@code share} and serves the
 * longest-waiting jobs first-come-first-served while the rest of the pool stays shortest-first,
 * instead of every freed GPU going to whoever has waited longest. The walk needs no history: a
 * job's place in it is its submission time. With no job starving (no overload) the order is exactly
 * shortest-first.
 *
 * <p>With {@code share} 0 (the rule before the lane), only the single oldest starving job jumps,
 * whatever runs; one such job per round, round after round, is what turned shortest-first into
 * first-come-first-served under overload.
 *
 * <p>{@code lightShare} at or below {@code share} makes the lane a fixed {@code share} of the pool,
 * whatever the backlog (the fixed lanes the evaluation compares the default with).
 */
public record StarvationGuard(double waitS, double share, double lightShare) {
  /**
   * The lane's default share of the pool's GPUs once the starving jobs need more GPUs than the pool
   * has.
   */
  public static final double DEFAULT_SHARE = 0.1;

  /**
   * The lane's least share of the pool's GPUs while the starving jobs need no more GPUs than the
   * pool has.
   */
  public static final double LIGHT_SHARE = 0.5;

  public StarvationGuard {
    Checks.positive("starvationGuard.waitS", waitS);
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException("starvationGuard.share must be in [0, 1], was " + share);
    }
    if (!(lightShare >= 0 && lightShare <= 1)) {
      throw new IllegalArgumentException(
          "starvationGuard.lightShare must be in [0, 1], was " + lightShare);
    }
  }

  /**
   * The lane of {@code share}, at least half the pool ({@link #LIGHT_SHARE}) while the backlog fits
   * in it.
   */
  public StarvationGuard(double waitS, double share) {
    this(waitS, share, LIGHT_SHARE);
  }

  /** The rule before the senior lane: only the oldest starving job jumps. */
  public static StarvationGuard oldestOnly(double waitS) {
    return new StarvationGuard(waitS, 0);
  }

  public boolean isStarving(Job job, double nowS) {
    return nowS - job.submitTimeS() > waitS;
  }

  /**
   * The queued jobs that jump shortest-first, oldest first: the starving jobs within the senior
   * lane.
   *
   * @param running the jobs holding base GPUs now: they take their place in the lane by age
   *     (ignored with share 0)
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
    Comparator<Job> oldestFirst = JobOrder.FIFO.comparator();
    starving.sort(oldestFirst);
    if (share == 0) {
      return List.of(starving.get(0));
    }
    Job youngestStarving = starving.get(starving.size() - 1);
    List<Job> older = new ArrayList<>();
    for (Job r : running) {
      if (oldestFirst.compare(r, youngestStarving) < 0) {
        older.add(r);
      }
    }
    older.sort(oldestFirst);
    double starvingGpus = 0;
    for (Job s : starving) {
      starvingGpus += baseGpus(s);
    }
    double lane = (starvingGpus <= poolGpus ? Math.max(share, lightShare) : share) * poolGpus;
    double used = 0;
    int i = 0;
    List<Job> out = new ArrayList<>();
    for (Job s : starving) {
      for (; i < older.size() && oldestFirst.compare(older.get(i), s) < 0; i++) {
        used += baseGpus(older.get(i));
      }
      if (used >= lane) {
        break;
      }
      out.add(s);
      used += baseGpus(s);
    }
    return out;
  }

  private static double baseGpus(Job j) {
    return (double) j.gpusPerWorker() * j.minWorkers();
  }
}
