package io.aryl.core.admission;

import io.aryl.core.model.Checks;
import io.aryl.core.model.Job;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.placement.ServerTable;
import io.aryl.core.placement.WorkerRole;
import io.aryl.core.tenant.TenantLedger;
import io.aryl.core.victim.VictimChoice;
import io.aryl.core.victim.VictimOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Phase 1 of a round: admit queued jobs' base demand as gangs.
 *
 * <p>Jobs are offered in {@link JobOrder}; each gets all of its {@code minWorkers} workers or none,
 * so no GPU is ever held for a partial gang. The admitted set is then placed largest worker first
 * (best-fit decreasing), which packs tighter than placing in priority order.
 *
 * <p><b>Starvation guard (a senior lane with a server reservation, {@link StarvationGuard}).</b>
 * Shortest-first alone can keep a large job waiting forever behind a stream of small ones. A job
 * queued longer than the guard's wait is <em>starving</em>. Walk every job in the pool, running or
 * queued, oldest submission first, until their base GPUs reach the lane (the guard's share of the
 * pool, at least half of it while the starving jobs need no more GPUs than the pool has): the
 * starving queued jobs met on the way are offered first, oldest first, and all other jobs by the
 * job order. So at most the lane (plus one gang) is ever given out of shortest-first order, however
 * long the queue; the old rule, one oldest starving job first in every round, sent every freed GPU
 * to the oldest waiting job under sustained overload and collapsed into first-come-first-served
 * (share 0 keeps it). If the first job offered is starving and does not fit, it reserves the
 * servers that will hold its gang soonest (by the running jobs' predicted ends). No other job's
 * base workers are placed on those servers unless it is predicted to end before they have drained
 * (EASY backfilling against that shadow time), so the starving job starts when they are empty
 * enough. Only one job at a time holds servers. Reserved GPUs that are free meanwhile still serve
 * elastic jobs' flexible workers, which can be shed at once. A job that could not fit even on an
 * empty cluster reserves nothing. With no job starving the order is exactly the job order.
 *
 * <p><b>Tenants</b> ({@link #admit(List, double, GpuBudget, Supplier, TenantLedger)}, only with two
 * or more). Jobs are offered in two passes, each in the order above: first every job whose tenant
 * stays within its guarantee when its gang is admitted (counting its base GPUs on the own servers,
 * gangs admitted before it included), then the others. A first-pass gang that does not fit even
 * with every flexible worker shed may, once it has been queued {@code tenantReclaimDelayS}, preempt
 * other tenants' running jobs whose GPUs are borrowed ({@link TenantLedger}): victims in {@link
 * VictimOrder}, each only if its tenant keeps its guarantee, the cheaper of the first victim that
 * suffices alone and victims taken in order until the gang fits (those it turns out not to need
 * spared, {@link VictimChoice}); none if the gang would not fit after all. First-pass jobs that
 * failed are offered again after a preemption. Second-pass gangs may not take the GPUs of flexible
 * workers their tenants hold within their guarantees ({@link TenantLedger#protectedFlexible()}). A
 * starving job's reservation never holds back another tenant's job within its guarantee.
 */
public final class Admission {
  private final JobOrder order;
  private final StarvationGuard guard;
  private final boolean speedAware;

  /**
   * @param guard which starving jobs jump the job order ({@link StarvationGuard})
   * @param speedAware place each gang on GPUs of one speed when it fits there, fastest first: a
   *     synchronous job runs at the pace of its slowest GPU, so a gang split over fast and slow
   *     GPUs wastes the fast ones
   */
  public Admission(JobOrder order, StarvationGuard guard, boolean speedAware) {
    this.order = Checks.notNull("admission.order", order);
    this.guard = Checks.notNull("admission.guard", guard);
    this.speedAware = speedAware;
  }

  /** Only the oldest starving job jumps ({@link StarvationGuard#oldestOnly}). */
  public Admission(JobOrder order, double starvationWaitS, boolean speedAware) {
    this(order, oldestOnly(starvationWaitS), speedAware);
  }

  public Admission(JobOrder order, double starvationWaitS) {
    this(order, starvationWaitS, false);
  }

  private static StarvationGuard oldestOnly(double starvationWaitS) {
    Checks.positive("admission.starvationWaitS", starvationWaitS);
    return StarvationGuard.oldestOnly(starvationWaitS);
  }

  /**
   * What phase 1 decided.
   *
   * @param admitted admitted jobs, in admission order, with the server index of each base worker
   * @param reservedFor starving jobs that did not fit and hold capacity back for themselves
   * @param preemptedFor running jobs preempted to give a tenant back its borrowed GPUs, by id, each
   *     with the id of the job it was preempted for (empty without tenants)
   * @param offered every queued job, in the order it was first offered its gang: the offer order,
   *     or with tenants the jobs within their tenant's guarantee first
   * @param lane the starving jobs the senior lane put first ({@link StarvationGuard#jumpers}),
   *     oldest first
   */
  public record Result(
      Map<Job, int[]> admitted,
      List<String> reservedFor,
      Map<String, String> preemptedFor,
      List<Job> offered,
      List<Job> lane) {
    /** A result that preempted nothing, with no record of the order. */
    public Result(Map<Job, int[]> admitted, List<String> reservedFor) {
      this(admitted, reservedFor, Map.of(), List.of(), List.of());
    }
  }

  /** {@link #offerOrder(List, List, double, int)} with nothing running. */
  public List<Job> offerOrder(List<Job> queued, double nowS) {
    return offerOrder(queued, List.of(), nowS, 0);
  }

  /**
   * Queued jobs in the order they are offered: the guard's jumpers ({@link
   * StarvationGuard#jumpers}) first, oldest first, then all others by the job order.
   *
   * @param running the jobs holding base GPUs now
   * @param poolGpus the GPUs of the pool the queued jobs are admitted to
   */
  public List<Job> offerOrder(List<Job> queued, List<Job> running, double nowS, int poolGpus) {
    return offerOrder(queued, guard.jumpers(queued, running, nowS, poolGpus));
  }

  private List<Job> offerOrder(List<Job> queued, List<Job> jumpers) {
    List<Job> out = new ArrayList<>(queued.size());
    out.addAll(jumpers);
    Set<Job> jumped = new HashSet<>(jumpers);
    List<Job> rest = new ArrayList<>(queued.size());
    for (Job j : queued) {
      if (!jumped.contains(j)) {
        rest.add(j);
      }
    }
    rest.sort(order.comparator());
    out.addAll(rest);
    return out;
  }

  public boolean isStarving(Job job, double nowS) {
    return guard.isStarving(job, nowS);
  }

  /**
   * GPUs a running job's base workers hold on a server, and in how many seconds the job is
   * predicted to end and free them.
   */
  public record Release(double inS, int server, int gpus) {}

  /**
   * Servers held in one budget for a starving job, and when they are predicted to be free enough
   * (the shadow time). Holding takes every spare GPU of those servers, so that no other gang lands
   * there.
   */
  private static final class Reservation {
    final String tenant;
    final boolean[] types;
    final List<Integer> servers;
    final double shadowS;
    final GpuBudget budget;
    final Map<Integer, Integer> held = new LinkedHashMap<>();

    Reservation(
        String tenant, boolean[] types, List<Integer> servers, double shadowS, GpuBudget budget) {
      this.tenant = tenant;
      this.types = types;
      this.servers = servers;
      this.shadowS = shadowS;
      this.budget = budget;
      hold();
    }

    /** The same reservation, held in another budget. */
    Reservation on(GpuBudget other) {
      return new Reservation(tenant, types, servers, shadowS, other);
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

  /**
   * Flexible GPUs held out of a budget (see {@link TenantLedger#protectedFlexible()}) while gangs
   * beyond their tenant's guarantee are placed, given back while others are.
   */
  private static final class Protection {
    final int[] gpus;
    final GpuBudget budget;
    final Map<Integer, int[]> held = new LinkedHashMap<>(); // server -> {gpus, flexible}

    Protection(int[] gpus, GpuBudget budget) {
      this.gpus = gpus;
      this.budget = budget;
      hold();
    }

    void hold() {
      for (int s = 0; s < gpus.length; s++) {
        int h = Math.min(gpus[s], budget.spare(s));
        if (h > 0) {
          held.put(s, new int[] {h, budget.holdFlexible(s, h)});
        }
      }
    }

    void unhold() {
      held.forEach((s, h) -> budget.unholdFlexible(s, h[0], h[1]));
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
   * Admits base gangs from {@code queued} into {@code budget} (which it takes from); {@code
   * releases} say when running jobs free their base GPUs, which decides the servers a starving job
   * reserves (asked for only then).
   */
  public Result admit(
      List<Job> queued, double nowS, GpuBudget budget, Supplier<List<Release>> releases) {
    return admit(queued, nowS, budget, releases, null);
  }

  /**
   * As {@link #admit(List, double, GpuBudget, Supplier)}, for a training pool shared by tenants:
   * {@code tenants} (null: no tenants) holds their guarantees and usage, and the running jobs that
   * may be preempted for an owner; base GPUs of jobs preempted here are given back to {@code
   * budget}, and the caller must stop those jobs ({@link Result#preemptedFor()}).
   */
  public Result admit(
      List<Job> queued,
      double nowS,
      GpuBudget budget,
      Supplier<List<Release>> releases,
      TenantLedger tenants) {
    return admit(queued, List.of(), nowS, budget, releases, tenants);
  }

  /**
   * As {@link #admit(List, double, GpuBudget, Supplier, TenantLedger)}, with the jobs that hold
   * base GPUs now ({@code running}), which the starvation guard's senior lane counts.
   */
  public Result admit(
      List<Job> queued,
      List<Job> running,
      double nowS,
      GpuBudget budget,
      Supplier<List<Release>> releases,
      TenantLedger tenants) {
    Pass pass = new Pass(queued, running, nowS, budget, releases);
    if (tenants == null) {
      for (Job job : pass.offered) {
        pass.offer(job, null);
      }
    } else {
      pass.withTenants(tenants);
    }
    return pass.result(budget, tenants);
  }

  /** One call of admit: the trial budget, what was admitted and what is reserved. */
  private final class Pass {
    final double nowS;
    final Supplier<List<Release>> releases;
    final ServerTable table;
    final GpuBudget trial;
    final List<Job> offered;
    final List<Job> lane;

    /** With tenants only: the jobs in the order they were first offered, and the set of those. */
    List<Job> firstOffers;

    Set<Job> offeredOnce;
    final List<Job> admitted = new ArrayList<>();
    final Map<Job, int[]> trialPlacement = new LinkedHashMap<>();
    final List<String> reservedFor = new ArrayList<>();
    final Set<Job> withinGuarantee = new HashSet<>();
    Reservation reservation;
    int[] protectedFlexible;

    Pass(
        List<Job> queued,
        List<Job> running,
        double nowS,
        GpuBudget budget,
        Supplier<List<Release>> releases) {
      this.nowS = nowS;
      this.releases = releases;
      this.table = budget.table();
      this.trial = budget.copy();
      this.lane = guard.jumpers(queued, running, nowS, poolGpus(table));
      this.offered = offerOrder(queued, lane);
    }

    /**
     * Offers one job its gang; true if admitted. {@code tenants} is null without tenants or beyond
     * guarantee.
     */
    boolean offer(Job job, TenantLedger tenants) {
      if (offeredOnce != null && offeredOnce.add(job)) {
        firstOffers.add(job);
      }
      boolean[] types = table.allowedTypes(job);
      boolean guaranteed = tenants != null;
      int[] placed = placeAround(reservation, trial, job, types, guaranteed);
      if (placed == null
          && guaranteed
          && tenants.mayReclaimFor(job, nowS)
          && (reservation == null || !reservation.tenant.equals(job.tenant()))) {
        placed = reclaimFor(job, types, tenants);
      }
      if (placed != null) {
        admitted.add(job);
        trialPlacement.put(job, placed);
        if (guaranteed) {
          withinGuarantee.add(job);
        }
        return true;
      }
      if (reservation == null
          && job.equals(offered.get(0))
          && isStarving(job, nowS)
          && fitsEmptyCluster(job, types, table)) {
        reservation = reserveServers(job, types, trial, releases.get());
        reservedFor.add(job.id());
      }
      return false;
    }

    /**
     * The two passes: jobs within their tenant's guarantee first (offered again after a preemption
     * freed GPUs), then the others, each pass in offer order.
     */
    void withTenants(TenantLedger tenants) {
      firstOffers = new ArrayList<>(offered.size());
      offeredOnce = new HashSet<>();
      Map<Job, Integer> rank = new HashMap<>();
      for (int i = 0; i < offered.size(); i++) {
        rank.put(offered.get(i), i);
      }
      List<Job> beyond = new ArrayList<>();
      List<Job> pending = offered;
      int preempted = 0;
      boolean freed = true;
      while (freed && !pending.isEmpty()) {
        List<Job> failed = new ArrayList<>();
        for (Job job : pending) {
          if (!tenants.withinGuarantee(job)) {
            beyond.add(job);
          } else if (!offer(job, tenants)) {
            failed.add(job);
          }
        }
        freed = tenants.preemptedFor().size() > preempted;
        preempted = tenants.preemptedFor().size();
        pending = failed;
      }
      beyond.sort(Comparator.comparingInt(rank::get));
      protectedFlexible = tenants.protectedFlexible();
      Protection protection = new Protection(protectedFlexible, trial);
      for (Job job : beyond) {
        if (!trialPlacement.containsKey(job) && offer(job, null)) {
          tenants.charge(job, trialPlacement.get(job));
        }
      }
      protection.unhold();
    }

    Result result(GpuBudget budget, TenantLedger tenants) {
      Map<String, String> preempted = Map.of();
      if (tenants != null) {
        for (TenantLedger.Victim v : tenants.preempted()) {
          tenants.vacate(v, budget);
        }
        preempted = tenants.preemptedFor();
      }
      return new Result(
          placeDecreasing(
              admitted, trialPlacement, budget, reservation, withinGuarantee, protectedFlexible),
          Collections.unmodifiableList(reservedFor),
          preempted,
          Collections.unmodifiableList(firstOffers == null ? offered : firstOffers),
          Collections.unmodifiableList(lane));
    }

    /**
     * Preempts borrowers for a gang within its tenant's guarantee that does not fit even with every
     * flexible worker shed (criterion 2 of {@link VictimOrder}: flexible workers go first), as
     * {@link VictimChoice} chooses among the tenant ledger's victims in {@link VictimOrder}: the
     * first that makes room for the gang alone, or victims taken in order, each only if it frees
     * GPUs the gang could use, until the gang fits, then those it does not need spared, whichever
     * costs less. A victim is taken only while its tenant keeps its guarantee. If the gang fits
     * neither way nobody is preempted. Returns its placement, or null.
     */
    private int[] reclaimFor(Job job, boolean[] types, TenantLedger tenants) {
      boolean unheld = reservation != null; // another tenant's: it never holds this job back
      if (unheld) {
        reservation.unhold();
      }
      try {
        List<TenantLedger.Victim> chosen =
            VictimChoice.choose(
                tenants.victimsFor(job),
                new VictimChoice.Trial<>() {
                  @Override
                  public boolean mayTake(TenantLedger.Victim v) {
                    return tenants.takesOnlyBorrowed(v) && freesRoom(v, job, types);
                  }

                  @Override
                  public boolean fitsWithout(List<TenantLedger.Victim> victims) {
                    return Pass.this.fitsWithout(job, types, tenants, victims);
                  }

                  @Override
                  public void take(TenantLedger.Victim v) {
                    tenants.preempt(
                        v, job); // so that the tenant's next job is judged against what is left
                  }

                  @Override
                  public void untake(TenantLedger.Victim v) {
                    tenants.restore(v);
                  }

                  @Override
                  public double cost(TenantLedger.Victim v) {
                    return v.preemptCostGpuS();
                  }
                });
        if (chosen == null) {
          return null;
        }
        for (TenantLedger.Victim v : chosen) {
          tenants.vacate(v, trial);
          tenants.preempt(v, job);
        }
        int[] placed = placeBase(trial, job, types);
        if (placed == null) {
          throw new IllegalStateException(
              "job(" + job.id() + ") does not fit after preempting " + chosen);
        }
        return placed;
      } finally {
        if (unheld) {
          reservation.hold();
        }
      }
    }

    /** Whether the gang fits in the trial budget once {@code victims} are gone. */
    private boolean fitsWithout(
        Job job, boolean[] types, TenantLedger tenants, List<TenantLedger.Victim> victims) {
      GpuBudget without = trial.copy();
      for (TenantLedger.Victim v : victims) {
        tenants.vacate(v, without);
      }
      return placeBase(without, job, types) != null;
    }

    /**
     * Whether preempting the victim frees GPUs the job's gang could use: base GPUs on an open
     * server of a type it may use that can hold one of its workers.
     */
    private boolean freesRoom(TenantLedger.Victim v, Job job, boolean[] types) {
      for (int s : v.baseWorkers().keySet()) {
        if (table.open(s) && types[table.typeIndex(s)] && table.gpus(s) >= job.gpusPerWorker()) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * Places a gang, off the reserved servers unless the reservation lets the job backfill onto them,
   * or the job is {@code withinGuarantee} of a tenant other than the reserving job's.
   */
  private int[] placeAround(
      Reservation reservation,
      GpuBudget budget,
      Job job,
      boolean[] types,
      boolean withinGuarantee) {
    int[] placed = placeBase(budget, job, types);
    if (placed == null
        && reservation != null
        && (reservation.letsThrough(job, types)
            || (withinGuarantee && !reservation.tenant.equals(job.tenant())))) {
      reservation.unhold();
      placed = placeBase(budget, job, types);
      reservation.hold();
    }
    return placed;
  }

  /**
   * Places the job's base gang in {@code budget} (which it takes from) as admission places gangs:
   * with speed awareness on the fastest GPUs of one speed it fits on. Returns the server index of
   * each worker, or null (budget unchanged).
   */
  public int[] placeGang(GpuBudget budget, Job job) {
    return placeBase(budget, job, budget.table().allowedTypes(job));
  }

  private int[] placeBase(GpuBudget budget, Job job, boolean[] types) {
    if (speedAware) {
      for (boolean[] tier : budget.table().speedTiers(types)) {
        int[] placed =
            budget.placeGang(job.gpusPerWorker(), job.minWorkers(), tier, WorkerRole.BASE);
        if (placed != null) {
          return placed;
        }
      }
    }
    return budget.placeGang(job.gpusPerWorker(), job.minWorkers(), types, WorkerRole.BASE);
  }

  /**
   * Places the admitted gangs on the real budget largest worker first, keeping off reserved servers
   * as admission did; if that packing fails where priority order succeeded (possible, rare), the
   * priority-order placement is used.
   */
  private Map<Job, int[]> placeDecreasing(
      List<Job> admitted,
      Map<Job, int[]> fallback,
      GpuBudget budget,
      Reservation reservation,
      Set<Job> withinGuarantee,
      int[] protectedFlexible) {
    List<Job> bySize = new ArrayList<>(admitted);
    bySize.sort(
        Comparator.comparingInt(Job::gpusPerWorker)
            .reversed()
            .thenComparing(Comparator.comparingInt(Job::minWorkers).reversed())
            .thenComparing(Job::id));
    GpuBudget scratch = budget.copy();
    Reservation held = reservation == null ? null : reservation.on(scratch);
    Protection protection =
        protectedFlexible == null ? null : new Protection(protectedFlexible, scratch);
    Map<Job, int[]> decreasing = new LinkedHashMap<>();
    for (Job job : bySize) {
      boolean within = withinGuarantee.contains(job);
      if (protection != null && within) {
        protection.unhold();
      }
      int[] placed = placeAround(held, scratch, job, budget.table().allowedTypes(job), within);
      if (protection != null && within) {
        protection.hold();
      }
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
   * Holds, in the trial budget only, every spare GPU of the servers that will fit the job's gang
   * soonest: servers ordered by when their running base workers are predicted to end (empty ones
   * first), taken until their whole capacity holds the gang. Later jobs then cannot place base
   * workers there; the real budget is untouched, so flexible workers may still use those GPUs.
   */
  private static Reservation reserveServers(
      Job job, boolean[] types, GpuBudget trial, List<Release> releases) {
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
    return new Reservation(job.tenant(), types, List.copyOf(servers), shadowS, trial);
  }

  private static boolean overlaps(boolean[] a, boolean[] b) {
    for (int t = 0; t < a.length; t++) {
      if (a[t] && b[t]) {
        return true;
      }
    }
    return false;
  }

  /** GPUs of the open servers: the pool the senior lane takes its share of. */
  private static int poolGpus(ServerTable table) {
    int gpus = 0;
    for (int s = 0; s < table.size(); s++) {
      if (table.open(s)) {
        gpus += table.gpus(s);
      }
    }
    return gpus;
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
