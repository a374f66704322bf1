package io.aryl.core.admission;

import io.aryl.core.model.Checks;
import io.aryl.core.model.Job;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.placement.ServerTable;
import io.aryl.core.placement.WorkerRole;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Phase 1 of a round: admit queued jobs' base demand as gangs.
 *
 * <p>Jobs are offered in {@link JobOrder}; each gets all of its {@code minWorkers} workers or none, so no GPU is
 * ever held for a partial gang. The admitted set is then placed largest worker first (best-fit decreasing), which
 * packs tighter than placing in priority order.
 *
 * <p><b>Starvation guard (aging with reservation).</b> Shortest-first alone can keep a large job waiting forever
 * behind a stream of small ones. A job queued longer than {@code starvationWaitS} is <em>starving</em>: starving
 * jobs are offered first, oldest first, and if the oldest one does not fit, no job that could use the same GPU types
 * is admitted behind it unless it is predicted to finish before the starving job could start anyway (EASY
 * backfilling: the reservation's start, its <em>shadow time</em>, is when the running jobs' predicted ends free enough
 * GPUs of its types). Base GPUs then only free up for it, so the starving job starts as soon as running base workers
 * finish, while short jobs still use the GPUs that would otherwise sit idle until then. Flexible workers never block
 * it: they count as free for admission. A job that could not fit even on an empty cluster reserves nothing.
 */
public final class Admission {
  private final JobOrder order;
  private final double starvationWaitS;
  private final boolean speedAware;

  /**
   * @param speedAware place each gang on GPUs of one speed when it fits there, fastest first: a synchronous job
   *     runs at the pace of its slowest GPU, so a gang split over fast and slow GPUs wastes the fast ones
   */
  public Admission(JobOrder order, double starvationWaitS, boolean speedAware) {
    this.order = Checks.notNull("admission.order", order);
    this.starvationWaitS = Checks.positive("admission.starvationWaitS", starvationWaitS);
    this.speedAware = speedAware;
  }

  public Admission(JobOrder order, double starvationWaitS) {
    this(order, starvationWaitS, false);
  }

  /**
   * What phase 1 decided.
   *
   * @param admitted admitted jobs, in admission order, with the server index of each base worker
   * @param reservedFor starving jobs that did not fit and hold capacity back for themselves
   */
  public record Result(Map<Job, int[]> admitted, List<String> reservedFor) {}

  /** Queued jobs in the order they are offered: starving ones first (oldest first), then by the job order. */
  public List<Job> offerOrder(List<Job> queued, double nowS) {
    List<Job> starving = new ArrayList<>();
    List<Job> rest = new ArrayList<>();
    for (Job j : queued) {
      (isStarving(j, nowS) ? starving : rest).add(j);
    }
    starving.sort(JobOrder.FIFO.comparator());
    rest.sort(order.comparator());
    starving.addAll(rest);
    return starving;
  }

  public boolean isStarving(Job job, double nowS) {
    return nowS - job.submitTimeS() > starvationWaitS;
  }

  /**
   * GPUs a running job's base workers hold on a server, and in how many seconds the job is predicted to end and
   * free them.
   */
  public record Release(double inS, int server, int gpus) {}

  private record Reservation(boolean[] types, double shadowS) {}

  /** Admits base gangs from {@code queued} into {@code budget} (which it takes from), without backfilling. */
  public Result admit(List<Job> queued, double nowS, GpuBudget budget) {
    return admit(queued, nowS, budget, List.of());
  }

  /**
   * Admits base gangs from {@code queued} into {@code budget} (which it takes from); {@code releases} say when
   * running jobs free their base GPUs, for backfilling behind a reservation.
   */
  public Result admit(List<Job> queued, double nowS, GpuBudget budget, List<Release> releases) {
    ServerTable table = budget.table();
    GpuBudget trial = budget.copy();
    List<Job> admitted = new ArrayList<>();
    Map<Job, int[]> trialPlacement = new LinkedHashMap<>();
    List<Reservation> reserved = new ArrayList<>();
    List<String> reservedFor = new ArrayList<>();
    for (Job job : offerOrder(queued, nowS)) {
      boolean[] types = table.allowedTypes(job);
      if (!mayBackfill(job, types, reserved)) {
        continue;
      }
      int[] placed = placeBase(trial, job, types);
      if (placed != null) {
        admitted.add(job);
        trialPlacement.put(job, placed);
      } else if (isStarving(job, nowS) && fitsEmptyCluster(job, types, table)) {
        reserved.add(new Reservation(types, shadowS(job, types, trial, releases)));
        reservedFor.add(job.id());
      }
    }
    return new Result(placeDecreasing(admitted, trialPlacement, budget), Collections.unmodifiableList(reservedFor));
  }

  /**
   * Places the admitted gangs on the real budget largest worker first; if that packing fails where priority order
   * succeeded (possible, rare), the priority-order placement is used instead.
   */
  private int[] placeBase(GpuBudget budget, Job job, boolean[] types) {
    if (speedAware) {
      for (boolean[] tier : budget.table().speedTiers(types)) {
        int[] placed = budget.placeGang(job.gpusPerWorker(), job.minWorkers(), tier, WorkerRole.BASE);
        if (placed != null) {
          return placed;
        }
      }
    }
    return budget.placeGang(job.gpusPerWorker(), job.minWorkers(), types, WorkerRole.BASE);
  }

  private Map<Job, int[]> placeDecreasing(List<Job> admitted, Map<Job, int[]> fallback, GpuBudget budget) {
    List<Job> bySize = new ArrayList<>(admitted);
    bySize.sort(Comparator.comparingInt(Job::gpusPerWorker).reversed()
        .thenComparing(Comparator.comparingInt(Job::minWorkers).reversed())
        .thenComparing(Job::id));
    GpuBudget scratch = budget.copy();
    Map<Job, int[]> decreasing = new LinkedHashMap<>();
    for (Job job : bySize) {
      int[] placed = placeBase(scratch, job, budget.table().allowedTypes(job));
      if (placed == null) {
        decreasing = null;
        break;
      }
      decreasing.put(job, placed);
    }
    Map<Job, int[]> chosen = decreasing != null ? decreasing : fallback;
    Map<Job, int[]> inOrder = new LinkedHashMap<>();
    for (Job job : admitted) {
      int[] servers = chosen.get(job);
      for (int s : servers) {
        budget.take(s, job.gpusPerWorker());
      }
      inOrder.put(job, servers);
    }
    return Collections.unmodifiableMap(inOrder);
  }

  /** A job may go ahead of every reservation it competes with only if it is predicted to end before it starts. */
  private static boolean mayBackfill(Job job, boolean[] types, List<Reservation> reserved) {
    for (Reservation r : reserved) {
      if (overlaps(types, r.types()) && job.predictedRuntimeAt(job.minWorkers()) > r.shadowS()) {
        return false;
      }
    }
    return true;
  }

  private static boolean overlaps(boolean[] a, boolean[] b) {
    for (int t = 0; t < a.length; t++) {
      if (a[t] && b[t]) {
        return true;
      }
    }
    return false;
  }

  /**
   * Seconds until enough GPUs of the job's types are free for its base gang, counting GPUs spare now and those
   * running jobs are predicted to free (GPU counts, not packing: an estimate). Infinite if they never add up.
   */
  private static double shadowS(Job job, boolean[] types, GpuBudget budget, List<Release> releases) {
    ServerTable table = budget.table();
    long free = 0;
    for (int s = 0; s < table.size(); s++) {
      if (table.open(s) && types[table.typeIndex(s)]) {
        free += budget.spare(s);
      }
    }
    long need = job.baseGpus();
    if (free >= need) {
      return 0;
    }
    List<Release> sorted = new ArrayList<>(releases);
    sorted.sort(Comparator.comparingDouble(Release::inS));
    for (Release r : sorted) {
      if (table.open(r.server()) && types[table.typeIndex(r.server())]) {
        free += r.gpus();
        if (free >= need) {
          return r.inS();
        }
      }
    }
    return Double.POSITIVE_INFINITY;
  }

  private static boolean fitsEmptyCluster(Job job, boolean[] types, ServerTable table) {
    long workers = 0;
    for (int s = 0; s < table.size() && workers < job.minWorkers(); s++) {
      if (table.open(s) && types[table.typeIndex(s)]) {
        workers += table.gpus(s) / job.gpusPerWorker();
      }
    }
    return workers >= job.minWorkers();
  }
}
