package io.aryl.core.model;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The teams (tenants) sharing the training pool, each with the GPUs of the pool's <em>own</em>
 * servers it is guaranteed: the Capacity Scheduler capacity of a sub-queue of the training queue
 * (e.g. {@code root.training.vision}) within the training partition. Loaned inference servers are
 * outside every guarantee and shared by all tenants.
 *
 * <p>A tenant may use more than its guarantee while others leave theirs idle (it borrows); what it
 * uses beyond its guarantee on the own servers is on loan and comes back first when an owner has
 * queued work (see {@link io.aryl.core.tenant.TenantQuota} and {@code RoundPlanner}). A job names
 * its tenant ({@link Job#tenant()}); a tenant no entry names is guaranteed nothing. {@link #NONE},
 * the default, declares no tenant: with fewer than two tenants in a snapshot the round is exactly
 * the single-team round.
 *
 * <p>Immutable; names are sorted.
 */
public final class Tenants {
  /** No tenants declared: every job belongs to the implicit tenant. */
  public static final Tenants NONE = new Tenants(new TreeMap<>());

  private final Map<String, Integer> guaranteedGpus;
  private final int total;

  private Tenants(SortedMap<String, Integer> guaranteedGpus) {
    this.guaranteedGpus = Collections.unmodifiableMap(guaranteedGpus);
    long sum = 0;
    for (int g : guaranteedGpus.values()) {
      sum += g;
    }
    if (sum > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "tenants' guaranteedGpus must sum to at most " + Integer.MAX_VALUE + ", was " + sum);
    }
    this.total = (int) sum;
  }

  /**
   * Tenants from a map of tenant name to guaranteed GPUs.
   *
   * @throws IllegalArgumentException naming the tenant and value: a blank name, a negative
   *     guarantee
   */
  public static Tenants of(Map<String, Integer> guaranteedGpus) {
    Checks.notNull("tenants", guaranteedGpus);
    TreeMap<String, Integer> copy = new TreeMap<>();
    for (Map.Entry<String, Integer> e : guaranteedGpus.entrySet()) {
      String name = Checks.notBlank("tenant.name", e.getKey());
      Integer g = Checks.notNull("tenant(" + name + ").guaranteedGpus", e.getValue());
      copy.put(name, Checks.nonNegative("tenant(" + name + ").guaranteedGpus", g));
    }
    return copy.isEmpty() ? NONE : new Tenants(copy);
  }

  /**
   * GPUs of the training pool's own servers guaranteed to {@code tenant}; 0 for a tenant not
   * declared.
   */
  public int guarantee(String tenant) {
    return guaranteedGpus.getOrDefault(tenant, 0);
  }

  /** Guaranteed GPUs by tenant name, sorted by name. */
  public Map<String, Integer> guarantees() {
    return guaranteedGpus;
  }

  public boolean isEmpty() {
    return guaranteedGpus.isEmpty();
  }

  /** Sum of the guarantees. */
  public int totalGuaranteedGpus() {
    return total;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Tenants t && guaranteedGpus.equals(t.guaranteedGpus);
  }

  @Override
  public int hashCode() {
    return guaranteedGpus.hashCode();
  }

  @Override
  public String toString() {
    return "Tenants" + guaranteedGpus;
  }
}
