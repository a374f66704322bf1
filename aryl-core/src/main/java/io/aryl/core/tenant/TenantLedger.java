package io.aryl.core.tenant;

import io.aryl.core.model.Checks;
import io.aryl.core.model.Job;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Tenants;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.placement.ServerTable;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.victim.VictimOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Phase 1's tenant accounting for one round: each tenant's guarantee and the GPUs its base workers
 * hold on the training pool's own servers (running jobs' bases, then every gang admitted this
 * round), and the running jobs that may be preempted to give an owner tenant back the GPUs others
 * borrowed from its quota. Mutable; lives for one round.
 *
 * <p>In phase 1 a tenant's usage is its base workers' GPUs on the own servers: flexible workers are
 * re-decided every round and already give way to any base gang, and loaned servers are outside
 * every guarantee.
 *
 * <p><b>Victims</b> are running jobs of other tenants holding base GPUs on the own servers. One may
 * be preempted for a job only while its tenant keeps at least its guarantee afterwards: only
 * borrowed GPUs are taken back, never owned ones ({@link VictimOrder#takesOnlyBorrowed}). They are
 * offered in {@link VictimOrder} ({@link VictimOrder.Candidate#job}: the least preemption cost
 * first, then the tenant borrowing most, then by job id).
 */
public final class TenantLedger {
  /**
   * A running job that could be preempted, with what it holds (by server index) and what preempting
   * it costs.
   */
  public static final class Victim {
    private final Job job;
    private final Map<Integer, Integer> baseWorkers;
    private final Map<Integer, Integer> flexibleWorkers;
    private final int ownBaseGpus;
    private final double preemptCostGpuS;
    private int borrowedAtStart;
    private VictimOrder.Candidate candidate;

    Victim(
        Job job,
        Map<Integer, Integer> base,
        Map<Integer, Integer> flexible,
        int ownBaseGpus,
        double cost) {
      this.job = job;
      this.baseWorkers = base;
      this.flexibleWorkers = flexible;
      this.ownBaseGpus = ownBaseGpus;
      this.preemptCostGpuS = cost;
    }

    public Job job() {
      return job;
    }

    /** Base workers by server index. */
    public Map<Integer, Integer> baseWorkers() {
      return baseWorkers;
    }

    /** GPUs its base workers hold on the training pool's own servers. */
    public int ownBaseGpus() {
      return ownBaseGpus;
    }

    /** {@link ReclaimCostModel#preemptCost}: GPUs x (progress since its checkpoint + restart). */
    public double preemptCostGpuS() {
      return preemptCostGpuS;
    }

    /** GPUs its tenant borrowed when victims were first ranked this round. */
    public int tenantBorrowedGpus() {
      return borrowedAtStart;
    }

    /**
     * As {@link VictimOrder} ranks it, by what it held when victims were first ranked this round.
     */
    public VictimOrder.Candidate candidate() {
      return candidate;
    }

    @Override
    public String toString() {
      return "Victim[" + job.id() + ", " + Math.round(preemptCostGpuS) + " GPU-s]";
    }
  }

  private final Tenants tenants;
  private final ServerTable table;
  private final double reclaimDelayS;
  private final ReclaimCostModel costs;
  private final Map<String, Integer> baseOwn = new HashMap<>();
  private final List<Victim> victims = new ArrayList<>();
  private final Map<String, Victim> victimsById = new HashMap<>();
  private boolean sorted = true;
  private final Map<String, String> preemptedFor = new LinkedHashMap<>();
  private final List<Job> runningJobs = new ArrayList<>();
  private final List<Map<Integer, Integer>> runningFlexible = new ArrayList<>();

  /**
   * @param reclaimDelayS how long an owner's job must have been queued (since submission) before
   *     borrowers' base workers may be preempted for it
   * @param costs prices a preemption
   */
  public TenantLedger(
      Tenants tenants, ServerTable table, double reclaimDelayS, ReclaimCostModel costs) {
    this.tenants = Checks.notNull("ledger.tenants", tenants);
    this.table = Checks.notNull("ledger.table", table);
    this.reclaimDelayS = Checks.nonNegative("ledger.reclaimDelayS", reclaimDelayS);
    this.costs = Checks.notNull("ledger.costs", costs);
  }

  /** Records a running job: its base workers count against its tenant, and it may be a victim. */
  public void addRunning(Job job, Map<Integer, Integer> base, Map<Integer, Integer> flexible) {
    int own = ownGpus(job, base);
    baseOwn.merge(job.tenant(), own, Integer::sum);
    runningJobs.add(job);
    runningFlexible.add(new TreeMap<>(flexible));
    if (own > 0) {
      int workers = 0;
      for (int w : base.values()) {
        workers += w;
      }
      for (int w : flexible.values()) {
        workers += w;
      }
      Victim v =
          new Victim(
              job, Map.copyOf(base), Map.copyOf(flexible), own, costs.preemptCost(job, workers));
      victims.add(v);
      victimsById.put(job.id(), v);
      sorted = false;
    }
  }

  public int guarantee(String tenant) {
    return tenants.guarantee(tenant);
  }

  /** GPUs the tenant's base workers hold on the own servers, as far as this round has decided. */
  public int baseOwnGpus(String tenant) {
    return baseOwn.getOrDefault(tenant, 0);
  }

  /**
   * True if admitting the job's base gang keeps its tenant within its guarantee (counting the whole
   * gang as own).
   */
  public boolean withinGuarantee(Job job) {
    return baseOwnGpus(job.tenant()) + job.baseGpus() <= guarantee(job.tenant());
  }

  /**
   * True if borrowers may be preempted for the job: it is within its tenant's guarantee and waited
   * the delay.
   */
  public boolean mayReclaimFor(Job job, double nowS) {
    return withinGuarantee(job) && nowS - job.submitTimeS() >= reclaimDelayS && anyBorrowing();
  }

  private boolean anyBorrowing() {
    for (Map.Entry<String, Integer> e : baseOwn.entrySet()) {
      if (e.getValue() > guarantee(e.getKey())) {
        return true;
      }
    }
    return false;
  }

  /** Counts an admitted gang (one server index per worker) against its tenant. */
  public void charge(Job job, int[] servers) {
    int own = 0;
    for (int s : servers) {
      if (table.server(s).pool() == Pool.TRAINING) {
        own += job.gpusPerWorker();
      }
    }
    baseOwn.merge(job.tenant(), own, Integer::sum);
  }

  /** Running jobs of tenants other than {@code owner}'s, in {@link VictimOrder}. */
  public List<Victim> victimsFor(Job owner) {
    if (!sorted) {
      for (Victim v : victims) {
        v.borrowedAtStart =
            TenantQuota.borrowed(baseOwnGpus(v.job.tenant()), guarantee(v.job.tenant()));
        v.candidate = VictimOrder.Candidate.job(v.job.id(), v.preemptCostGpuS, v.borrowedAtStart);
      }
      victims.sort(Comparator.comparing(Victim::candidate, VictimOrder.ORDER));
      sorted = true;
    }
    List<Victim> out = new ArrayList<>();
    for (Victim v : victims) {
      if (!v.job.tenant().equals(owner.tenant()) && !preemptedFor.containsKey(v.job.id())) {
        out.add(v);
      }
    }
    return out;
  }

  /**
   * True if preempting the victim leaves its tenant at or above its guarantee: it gives back only
   * borrowed GPUs.
   */
  public boolean takesOnlyBorrowed(Victim v) {
    return !preemptedFor.containsKey(v.job.id())
        && VictimOrder.takesOnlyBorrowed(
            baseOwnGpus(v.job.tenant()), v.ownBaseGpus, guarantee(v.job.tenant()));
  }

  /**
   * Records the victim as preempted for {@code owner}: its tenant's usage drops by its own base
   * GPUs.
   */
  public void preempt(Victim v, Job owner) {
    if (preemptedFor.putIfAbsent(v.job.id(), owner.id()) != null) {
      throw new IllegalStateException("job(" + v.job.id() + ") is already preempted");
    }
    baseOwn.merge(v.job.tenant(), -v.ownBaseGpus, Integer::sum);
  }

  /** Undoes {@link #preempt}. */
  public void restore(Victim v) {
    if (preemptedFor.remove(v.job.id()) == null) {
      throw new IllegalStateException("job(" + v.job.id() + ") is not preempted");
    }
    baseOwn.merge(v.job.tenant(), v.ownBaseGpus, Integer::sum);
  }

  /**
   * Frees in {@code budget} what the victim holds: base GPUs become idle, so do its flexible ones.
   */
  public void vacate(Victim v, GpuBudget budget) {
    int g = v.job.gpusPerWorker();
    for (Map.Entry<Integer, Integer> e : v.baseWorkers.entrySet()) {
      budget.vacate(
          e.getKey(), e.getValue() * g, v.flexibleWorkers.getOrDefault(e.getKey(), 0) * g);
    }
    for (Map.Entry<Integer, Integer> e : v.flexibleWorkers.entrySet()) {
      if (!v.baseWorkers.containsKey(e.getKey())) {
        budget.vacate(e.getKey(), 0, e.getValue() * g);
      }
    }
  }

  /**
   * GPUs per server (by index) of flexible workers on the own servers that their tenant holds
   * within its guarantee: for each tenant, its running jobs' flexible workers (in the order the
   * jobs were added, servers in index order) up to its guarantee less its base workers' GPUs on the
   * own servers. Gangs beyond their tenant's guarantee may not take them: a tenant within its
   * guarantee keeps its extra workers against borrowers.
   */
  public int[] protectedFlexible() {
    int[] out = new int[table.size()];
    Map<String, Integer> room = new HashMap<>();
    for (int i = 0; i < runningJobs.size(); i++) {
      Job job = runningJobs.get(i);
      if (preemptedFor.containsKey(job.id())) {
        continue;
      }
      int left =
          room.computeIfAbsent(job.tenant(), t -> Math.max(0, guarantee(t) - baseOwnGpus(t)));
      for (Map.Entry<Integer, Integer> e : runningFlexible.get(i).entrySet()) {
        if (left <= 0) {
          break;
        }
        if (table.server(e.getKey()).pool() == Pool.TRAINING) {
          int gpus = Math.min(left, e.getValue() * job.gpusPerWorker());
          out[e.getKey()] += gpus;
          left -= gpus;
        }
      }
      room.put(job.tenant(), left);
    }
    return out;
  }

  /**
   * Victims preempted this round, by job id, each with the id of the job it was preempted for, in
   * order.
   */
  public Map<String, String> preemptedFor() {
    return Collections.unmodifiableMap(preemptedFor);
  }

  /** Victims preempted this round, in order. */
  public List<Victim> preempted() {
    List<Victim> out = new ArrayList<>();
    for (String id : preemptedFor.keySet()) {
      out.add(victimsById.get(id));
    }
    return out;
  }

  private int ownGpus(Job job, Map<Integer, Integer> workers) {
    int own = 0;
    for (Map.Entry<Integer, Integer> e : workers.entrySet()) {
      if (table.server(e.getKey()).pool() == Pool.TRAINING) {
        own += e.getValue() * job.gpusPerWorker();
      }
    }
    return own;
  }
}
