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
import java.util.function.Supplier;

/**
 * Phase 1 of a round: admit queued jobs' base demand as gangs.
 *
 * <p>Jobs are offered in {@link JobOrder}; each gets all of its {@code minWorkers} workers or none, so no GPU is
 * ever held for a partial gang. The admitted set is then placed largest worker first (best-fit decreasing), which
 * packs tighter than placing in priority order.
 *
 * <p><b>Starvation guard (aging with a server reservation).</b> Shortest-first alone can keep a large job waiting
 * forever behind a stream of small ones. A job queued longer than {@code starvationWaitS} is <em>starving</em>. The
 * oldest starving job is offered first; if it does not fit, it reserves the servers that will hold its gang soonest
 * (by the running jobs' predicted ends). No other job's base workers are placed on those servers unless it is
 * predicted to end before they have drained (EASY backfilling against that shadow time), so the starving job starts
 * when they are empty enough; then the next oldest takes its turn. Only one job at a time is served out of order and
 * holds servers: serving every starving job first, or blocking the whole cluster, idles GPUs, lengthens the queue,
 * starves more jobs and collapses into first-come-first-served under overload. Reserved GPUs that are free meanwhile
 * still serve elastic jobs' flexible workers, which can be shed at once. A job that could not fit even on an empty
 * cluster reserves nothing.
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

  /**
   * Queued jobs in the order they are offered: the oldest starving job first, then all others by the job order.
   * Only one job jumps the queue: were every starving job served first, an overloaded cluster (where most of the
   * queue has waited long) would degrade into first-come-first-served.
   */
  public List<Job> offerOrder(List<Job> queued, double nowS) {
    List<Job> out = new ArrayList<>(queued);
    out.sort(order.comparator());
    Job oldest = null;
    for (Job j : queued) {
      if (isStarving(j, nowS) && (oldest == null || JobOrder.FIFO.comparator().compare(j, oldest) < 0)) {
        oldest = j;
      }
    }
    if (oldest != null) {
      out.remove(oldest);
      out.add(0, oldest);
    }
    return out;
  }

  public boolean isStarving(Job job, double nowS) {
    return nowS - job.submitTimeS() > starvationWaitS;
  }

  /**
   * GPUs a running job's base workers hold on a server, and in how many seconds the job is predicted to end and
   * free them.
   */
  public record Release(double inS, int server, int gpus) {}

  /**
   * Servers held in one budget for a starving job, and when they are predicted to be free enough (the shadow time).
   * Holding takes every spare GPU of those servers, so that no other gang lands there.
   */
  private static final class Reservation {
    final boolean[] types;
    final List<Integer> servers;
    final double shadowS;
    final GpuBudget budget;
    final Map<Integer, Integer> held = new LinkedHashMap<>();

    Reservation(boolean[] types, List<Integer> servers, double shadowS, GpuBudget budget) {
      this.types = types;
      this.servers = servers;
      this.shadowS = shadowS;
      this.budget = budget;
      hold();
    }

    /** The same reservation, held in another budget. */
    Reservation on(GpuBudget other) {
      return new Reservation(types, servers, shadowS, other);
    }

    /** A job may use the reserved servers meanwhile if it is predicted to end before they drain. */
    boolean letsThrough(Job job, boolean[] jobTypes) {
      return overlaps(jobTypes, types) && job.predictedRuntimeAt(job.minWorkers()) <= shadowS;
    }

    void hold() {
      for (int s : servers) {
        int h = budget.spare(s);
        budget.take(s, h);
        held.merge(s, h, Integer::sum);
      }
    }

    void unhold() {
      held.forEach(budget::release);
      held.clear();
    }
  }

  /** Admits base gangs from {@code queued} into {@code budget} (which it takes from). */
  public Result admit(List<Job> queued, double nowS, GpuBudget budget) {
    return admit(queued, nowS, budget, List::of);
  }

  /** As {@link #admit(List, double, GpuBudget, Supplier)}, with the releases at hand. */
  public Result admit(List<Job> queued, double nowS, GpuBudget budget, List<Release> releases) {
    return admit(queued, nowS, budget, () -> releases);
  }

  /**
   * Admits base gangs from {@code queued} into {@code budget} (which it takes from); {@code releases} say when
   * running jobs free their base GPUs, which decides the servers a starving job reserves (asked for only then).
   */
  public Result admit(List<Job> queued, double nowS, GpuBudget budget, Supplier<List<Release>> releases) {
    ServerTable table = budget.table();
    GpuBudget trial = budget.copy();
    List<Job> admitted = new ArrayList<>();
    Map<Job, int[]> trialPlacement = new LinkedHashMap<>();
    List<String> reservedFor = new ArrayList<>();
    Reservation reservation = null;
    List<Job> offered = offerOrder(queued, nowS);
    for (Job job : offered) {
      boolean[] types = table.allowedTypes(job);
      int[] placed = placeAround(reservation, trial, job, types);
      if (placed != null) {
        admitted.add(job);
        trialPlacement.put(job, placed);
      } else if (job == offered.get(0) && isStarving(job, nowS) && fitsEmptyCluster(job, types, table)) {
        reservation = reserveServers(job, types, trial, releases.get());
        reservedFor.add(job.id());
      }
    }
    return new Result(placeDecreasing(admitted, trialPlacement, budget, reservation),
        Collections.unmodifiableList(reservedFor));
  }

  /** Places a gang, off the reserved servers unless the reservation lets the job backfill onto them. */
  private int[] placeAround(Reservation reservation, GpuBudget budget, Job job, boolean[] types) {
    int[] placed = placeBase(budget, job, types);
    if (placed == null && reservation != null && reservation.letsThrough(job, types)) {
      reservation.unhold();
      placed = placeBase(budget, job, types);
      reservation.hold();
    }
    return placed;
  }

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

  /**
   * Places the admitted gangs on the real budget largest worker first, keeping off reserved servers as admission
   * did; if that packing fails where priority order succeeded (possible, rare), the priority-order placement is used.
   */
  private Map<Job, int[]> placeDecreasing(
      List<Job> admitted, Map<Job, int[]> fallback, GpuBudget budget, Reservation reservation) {
    List<Job> bySize = new ArrayList<>(admitted);
    bySize.sort(Comparator.comparingInt(Job::gpusPerWorker).reversed()
        .thenComparing(Comparator.comparingInt(Job::minWorkers).reversed())
        .thenComparing(Job::id));
    GpuBudget scratch = budget.copy();
    Reservation held = reservation == null ? null : reservation.on(scratch);
    Map<Job, int[]> decreasing = new LinkedHashMap<>();
    for (Job job : bySize) {
      int[] placed = placeAround(held, scratch, job, budget.table().allowedTypes(job));
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

  /**
   * Holds, in the trial budget only, every spare GPU of the servers that will fit the job's gang soonest: servers
   * ordered by when their running base workers are predicted to end (empty ones first), taken until their whole
   * capacity holds the gang. Later jobs then cannot place base workers there; the real budget is untouched, so
   * flexible workers may still use those GPUs.
   */
  private static Reservation reserveServers(Job job, boolean[] types, GpuBudget trial, List<Release> releases) {
    ServerTable table = trial.table();
    double[] freeAt = new double[table.size()];
    for (Release r : releases) {
      freeAt[r.server()] = Math.max(freeAt[r.server()], r.inS());
    }
    List<Integer> candidates = new ArrayList<>();
    for (int s = 0; s < table.size(); s++) {
      if (table.open(s) && types[table.typeIndex(s)] && table.gpus(s) >= job.gpusPerWorker()) {
        candidates.add(s);
      }
    }
    candidates.sort(Comparator.comparingDouble((Integer s) -> freeAt[s]).thenComparingInt(s -> s));
    List<Integer> servers = new ArrayList<>();
    double shadowS = 0;
    int workers = 0;
    for (int s : candidates) {
      if (workers >= job.minWorkers()) {
        break;
      }
      workers += table.gpus(s) / job.gpusPerWorker();
      servers.add(s);
      shadowS = Math.max(shadowS, freeAt[s]);
    }
    return new Reservation(types, List.copyOf(servers), shadowS, trial);
  }

  private static boolean overlaps(boolean[] a, boolean[] b) {
    for (int t = 0; t < a.length; t++) {
      if (a[t] && b[t]) {
        return true;
      }
    }
    return false;
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
