package io.aryl.core.victim;

import io.aryl.core.model.Checks;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Who loses workers first when something must give way (a gang that needs room, inference taking
 * its servers back, a job above its target or its maximum): one chain of criteria, applied in this
 * order, each only when the ones before it leave candidates equal.
 *
 * <ol>
 *   <li><b>Only borrowed quota comes back</b> (who may be a victim at all). With teams, a gang
 *       within its team's guarantee may preempt another team's job only while that team keeps its
 *       guarantee afterwards ({@link #takesOnlyBorrowed}): a guarantee means the owned GPUs are
 *       never taken for someone else.
 *   <li><b>A flexible worker goes before any base worker.</b> Shedding a worker above a job's
 *       minimum costs a re-scale pause; taking a base worker stops the whole gang and loses its
 *       work since the last checkpoint. Applied as a stage rather than a comparison: a gang takes
 *       idle GPUs, then the GPUs of flexible workers, and only then preempts anyone (phase 1,
 *       {@code Admission}); within one job the flexible workers are its newest, so criterion 6
 *       takes them first.
 *   <li><b>Least cost first</b>: the GPU-seconds of work the victim's loss throws away, as {@code
 *       ReclaimCostModel} prices it (a shrink's re-scale pause, or a preemption's progress since
 *       the checkpoint plus the restart). The cost to the preempted is what Aryl minimises.
 *   <li><b>The team borrowing most first</b>: among equally costly victims, the one whose team
 *       holds the most GPUs beyond its guarantee gives back first, so reclaims even out borrowing.
 *   <li><b>Fewest busy GPUs first</b>: among equally costly servers, the one with fewer GPUs in use
 *       drains sooner and disturbs fewer workers.
 *   <li><b>The newest first</b>: the worker or job that started last has the least invested in
 *       where it runs; a job's newest workers are its flexible ones, its base workers its oldest.
 *       Stock YARN's preemption knows nothing else.
 *   <li><b>Lowest id</b>: a total order, so that the scheduler and the simulator take the same
 *       victim.
 * </ol>
 *
 * <p>A victim is a job, a server or a worker, as the caller needs; each describes its candidates as
 * a {@link Candidate}, and a criterion a caller cannot or should not tell apart holds its
 * candidates equal, so the next one decides:
 *
 * <ul>
 *   <li>jobs preempted for another team's gang ({@link Candidate#job}): 3, 4, 7. The round's
 *       snapshot carries no start times (6), and fewer GPUs is no virtue in a victim that must make
 *       room for a gang (5);
 *   <li>loaned servers Aryl returns to inference ({@link Candidate#server}): 3, 5, 7. Loaned
 *       servers are outside every guarantee (4), and the cost of a server already charges a
 *       preemption far above a shrink (2);
 *   <li>loaned servers stock YARN returns ({@link Candidate#stockYarnServer}): 6, 7. It prices
 *       nothing and knows no teams; a server running nothing counts as the newest, so idle servers
 *       go first;
 *   <li>worker containers of one job ({@link #newestFirst}): 6 alone, by container sequence number.
 *       Workers of one job cost, belong and hold the same.
 * </ul>
 *
 * <p>Two rules say which set of victims to take when several would do: {@link #cheaper} (the
 * cheaper of two plans, the first on a tie) and {@link VictimChoice} (the first victim that
 * suffices alone, or victims in order until they suffice); {@link Fate#of} says whether a victim
 * shrinks or is preempted.
 */
public final class VictimOrder {
  private VictimOrder() {}

  /**
   * One candidate victim as the chain compares it. Fields a caller does not rank by hold the same
   * value for all of its candidates (the factories set them so).
   *
   * @param id the job's or server's id (criterion 7)
   * @param costGpuS GPU-seconds of work lost if it is taken (criterion 3)
   * @param teamBorrowedGpus GPUs its team holds beyond its guarantee (criterion 4)
   * @param busyGpus GPUs in use on it (criterion 5)
   * @param startedS when it, or the newest job on it, started (criterion 6); +infinity for a server
   *     running nothing
   */
  public record Candidate(
      String id, double costGpuS, int teamBorrowedGpus, int busyGpus, double startedS) {
    public Candidate {
      // Checked without building a message unless one is wrong: a reclaim plan makes a candidate
      // per server per step.
      if (id == null) {
        throw new IllegalArgumentException("victim.id must be set");
      }
      if (Double.isNaN(costGpuS) || Double.isNaN(startedS)) {
        throw new IllegalArgumentException(
            "victim("
                + id
                + ") must have a cost and a start time, was "
                + costGpuS
                + " GPU-s and "
                + startedS
                + " s");
      }
      if (teamBorrowedGpus < 0 || busyGpus < 0) {
        throw new IllegalArgumentException(
            "victim("
                + id
                + ").teamBorrowedGpus and .busyGpus must be >= 0, were "
                + teamBorrowedGpus
                + " and "
                + busyGpus);
      }
    }

    /**
     * A running job preempted for another team's gang: by cost, then its team's borrowing, then id.
     */
    public static Candidate job(String id, double preemptCostGpuS, int teamBorrowedGpus) {
      return new Candidate(id, preemptCostGpuS, teamBorrowedGpus, 0, 0);
    }

    /**
     * A loaned server Aryl may return: by the cost of returning it (given those already chosen),
     * busy GPUs, id.
     */
    public static Candidate server(String id, double costGpuS, int busyGpus) {
      return new Candidate(id, costGpuS, 0, busyGpus, 0);
    }

    /**
     * A loaned server as stock YARN's preemption ranks it: by when the newest job on it started
     * (+infinity when it runs none), then id.
     */
    public static Candidate stockYarnServer(String id, double newestStartS) {
      return new Candidate(id, 0, 0, 0, newestStartS);
    }
  }

  /** The chain: the first candidate in this order is the first victim. */
  public static final Comparator<Candidate> ORDER =
      Comparator
          // 3. Least cost first: the work thrown away.
          .comparingDouble(Candidate::costGpuS)
          // 4. The team borrowing most first.
          .thenComparing(Comparator.comparingInt(Candidate::teamBorrowedGpus).reversed())
          // 5. Fewest busy GPUs first.
          .thenComparingInt(Candidate::busyGpus)
          // 6. The newest first.
          .thenComparing(Comparator.comparingDouble(Candidate::startedS).reversed())
          // 7. Lowest id.
          .thenComparing(Candidate::id);

  /**
   * Criterion 1: whether preempting a job whose base workers hold {@code victimGpus} of its team's
   * {@code teamGpus} GPUs on the training pool's own servers leaves the team at or above its {@code
   * guarantee}, so that it gives back only GPUs it borrowed.
   */
  public static boolean takesOnlyBorrowed(int teamGpus, int victimGpus, int guarantee) {
    return teamGpus - victimGpus >= guarantee;
  }

  /**
   * Criterion 6 for the workers of one job: the {@code count} newest of {@code workers}, newest
   * first, by {@code seq} (larger is newer; YARN's container sequence numbers). A job's newest
   * workers are its flexible ones, so a shrink takes them and keeps its base. Workers with equal
   * {@code seq} keep their given order.
   */
  public static <W> List<W> newestFirst(Collection<W> workers, ToLongFunction<W> seq, int count) {
    Checks.nonNegative("victims.count", count);
    List<W> sorted = new ArrayList<>(workers);
    sorted.sort(Comparator.comparingLong(seq).reversed());
    return List.copyOf(sorted.subList(0, Math.min(count, sorted.size())));
  }

  /**
   * Of two plans that each make the room asked for, the cheaper; the first on a tie (the simpler
   * plan, as the caller passes it), and whichever exists when the other is null (none could be
   * made). Null when both are.
   */
  public static <P> P cheaper(P first, P second, ToDoubleFunction<P> cost) {
    if (first == null || second == null) {
      return first == null ? second : first;
    }
    return cost.applyAsDouble(second) < cost.applyAsDouble(first) ? second : first;
  }
}
