package io.aryl.core.tenant;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.Checks;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One tenant's quota at one moment, Kueue style: what it is guaranteed, what it uses, and what
 * follows from the two. Computed by pure functions of a snapshot ({@link #of(ClusterState)}) or of
 * a snapshot and other allocations, such as a plan's targets ({@link #of(ClusterState, Map)}).
 *
 * <ul>
 *   <li>{@code guarantee}: GPUs of the training pool's own servers guaranteed to it ({@link
 *       io.aryl.core.model.Tenants}).
 *   <li>{@code ownUsage}: GPUs its jobs hold on the pool's own servers; {@code loanedUsage} those
 *       on loaned inference servers, which are outside every guarantee and shared by all tenants.
 *   <li>{@link #borrowed()} = {@code max(0, ownUsage - guarantee)}: own GPUs on loan from other
 *       tenants' idle quota.
 *   <li>{@link #lendable()} = {@code max(0, guarantee - ownUsage)}: its idle quota, which others
 *       may borrow.
 *   <li>{@code baseDemand}: GPUs of the base gangs (minimum widths) of all its jobs, queued and
 *       running: what the guarantee protects. Workers above a job's minimum are shared by value
 *       across tenants (phase 2).
 * </ul>
 *
 * @param tenant the tenant's name ({@code ""}: the implicit tenant)
 * @param guarantee guaranteed GPUs of the pool's own servers
 * @param ownUsage GPUs held on the pool's own servers
 * @param loanedUsage GPUs held on loaned inference servers
 * @param baseDemand GPUs of the base gangs of all its jobs, queued and running
 * @param queuedJobs how many of its jobs are queued
 */
public record TenantQuota(
    String tenant, int guarantee, int ownUsage, int loanedUsage, int baseDemand, int queuedJobs) {

  public TenantQuota {
    Checks.notNull("quota.tenant", tenant);
    Checks.nonNegative("quota(" + tenant + ").guarantee", guarantee);
    Checks.nonNegative("quota(" + tenant + ").ownUsage", ownUsage);
    Checks.nonNegative("quota(" + tenant + ").loanedUsage", loanedUsage);
    Checks.nonNegative("quota(" + tenant + ").baseDemand", baseDemand);
    Checks.nonNegative("quota(" + tenant + ").queuedJobs", queuedJobs);
  }

  /** GPUs held anywhere: own and loaned servers. */
  public int usage() {
    return ownUsage + loanedUsage;
  }

  /**
   * {@code max(0, ownUsage - guarantee)}: GPUs of the own servers used beyond the guarantee, on
   * loan from others.
   */
  public int borrowed() {
    return borrowed(ownUsage, guarantee);
  }

  /**
   * {@code max(0, guarantee - ownUsage)}: the idle part of the guarantee, which other tenants may
   * borrow.
   */
  public int lendable() {
    return lendable(ownUsage, guarantee);
  }

  /** {@code min(guarantee, baseDemand)}: what no other tenant may take the tenant below. */
  public int protectedGpus() {
    return Math.min(guarantee, baseDemand);
  }

  /** {@code max(0, ownUsage - guarantee)}. */
  public static int borrowed(int ownUsage, int guarantee) {
    return Math.max(0, ownUsage - guarantee);
  }

  /** {@code max(0, guarantee - ownUsage)}. */
  public static int lendable(int ownUsage, int guarantee) {
    return Math.max(0, guarantee - ownUsage);
  }

  /** Every tenant's quota under the snapshot's own allocations, by tenant name. */
  public static Map<String, TenantQuota> of(ClusterState state) {
    return of(state, state.allocations());
  }

  /**
   * Every tenant's quota if the jobs of {@code state} ran as {@code allocations} say (e.g. a plan's
   * targets; a job absent from it counts as queued), by tenant name: the declared tenants and those
   * the jobs name.
   */
  public static Map<String, TenantQuota> of(
      ClusterState state, Map<String, Allocation> allocations) {
    Map<String, int[]> acc = new TreeMap<>(); // own, loaned, base demand, queued
    for (String t : state.tenants().guarantees().keySet()) {
      acc.put(t, new int[4]);
    }
    for (Job job : state.jobs()) {
      int[] a = acc.computeIfAbsent(job.tenant(), k -> new int[4]);
      a[2] += job.baseGpus();
      Allocation alloc = allocations.getOrDefault(job.id(), Allocation.EMPTY);
      if (alloc.isEmpty()) {
        a[3]++;
        continue;
      }
      for (Map.Entry<String, Integer> w : alloc.workersByServer().entrySet()) {
        Server s = state.server(w.getKey());
        a[s.pool() == Pool.TRAINING ? 0 : 1] += w.getValue() * job.gpusPerWorker();
      }
    }
    Map<String, TenantQuota> out = new TreeMap<>();
    acc.forEach(
        (t, a) ->
            out.put(t, new TenantQuota(t, state.tenants().guarantee(t), a[0], a[1], a[2], a[3])));
    return Collections.unmodifiableMap(out);
  }

  /** The tenants of a snapshot: those declared and those its jobs name. */
  public static Set<String> tenantsOf(ClusterState state) {
    Set<String> names = new TreeSet<>(state.tenants().guarantees().keySet());
    for (Job job : state.jobs()) {
      names.add(job.tenant());
    }
    return names;
  }

  /**
   * Whether tenants change the round: only with at least two of them. With one (or none declared
   * and every job of the implicit tenant) there is nobody to lend to or borrow from, and the round
   * is exactly the single-team round.
   */
  public static boolean active(ClusterState state) {
    if (state.tenants().isEmpty()) {
      String first = null;
      for (Job job : state.jobs()) {
        if (first == null) {
          first = job.tenant();
        } else if (!first.equals(job.tenant())) {
          return true;
        }
      }
      return false;
    }
    return tenantsOf(state).size() >= 2;
  }
}
