package io.aryl.yarn.round;

import io.aryl.core.model.Tenants;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The teams of the training pool and the fraction of the training partition each is guaranteed: the
 * Capacity Scheduler capacity, in the training label, of each child queue of the training queue. A
 * round turns them into GPUs of the pool's own servers ({@link #guarantees}).
 */
public final class TenantShares {
  public static final TenantShares NONE = new TenantShares(new TreeMap<>());

  /**
   * How far above 1 the shares may sum and still be read as a whole partition: float capacities,
   * rounded.
   */
  private static final double ROUNDING = 1e-4;

  private final Map<String, Double> shares;

  private TenantShares(Map<String, Double> shares) {
    this.shares = Collections.unmodifiableMap(shares);
  }

  /**
   * The shares of the training partition each team queue is guaranteed.
   *
   * @param shares tenant (child queue name) to its fraction of the training partition, 0..1
   * @throws IllegalArgumentException naming the tenant and value when a fraction is outside 0..1 or
   *     they sum above 1
   */
  public static TenantShares of(Map<String, Double> shares) {
    TreeMap<String, Double> copy = new TreeMap<>();
    double sum = 0;
    for (Map.Entry<String, Double> e : shares.entrySet()) {
      double f = e.getValue();
      if (!(f >= 0 && f <= 1 + ROUNDING)) {
        throw new IllegalArgumentException(
            "tenant "
                + e.getKey()
                + ": share of the training partition must be in"
                + " 0..1, was "
                + f);
      }
      copy.put(e.getKey(), f);
      sum += f;
    }
    if (sum > 1 + ROUNDING) {
      throw new IllegalArgumentException(
          "tenants' shares of the training partition must sum to at most 1, was "
              + sum
              + " "
              + copy);
    }
    if (sum > 1) {
      // The Capacity Scheduler keeps capacities as floats: 60 + 40 can come back as 1.00000003.
      double scale = 1 / sum;
      copy.replaceAll((t, f) -> f * scale);
    }
    return copy.isEmpty() ? NONE : new TenantShares(copy);
  }

  /**
   * Each tenant's guarantee in GPUs of {@code ownGpus}, rounded down: a guarantee is never more
   * than the pool has. Fewer than two tenants is no tenant at all: the round is the single-team
   * round.
   */
  public Tenants guarantees(int ownGpus) {
    if (shares.size() < 2) {
      return Tenants.NONE;
    }
    Map<String, Integer> gpus = new TreeMap<>();
    shares.forEach((t, f) -> gpus.put(t, (int) Math.floor(f * Math.max(0, ownGpus) + 1e-6)));
    return Tenants.of(gpus);
  }

  @Override
  public String toString() {
    return "TenantShares" + shares;
  }
}
