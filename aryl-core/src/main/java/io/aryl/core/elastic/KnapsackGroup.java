package io.aryl.core.elastic;

import io.aryl.core.model.Checks;
import java.util.Arrays;

/**
 * One job's choices in the multiple-choice knapsack: item k = k extra workers, weight {@code k *
 * unitWeight} GPUs, value {@code values[k]}. Exactly one item per group is chosen; item 0 (no
 * extras) always fits. Immutable.
 */
public final class KnapsackGroup {
  private final int unitWeight;
  private final double[] values;

  /**
   * @param values the item values by extra workers (copied)
   */
  public KnapsackGroup(int unitWeight, double[] values) {
    this(unitWeight, values == null ? null : values.clone(), true);
  }

  /**
   * Keeps {@code values}; its last parameter only tells it apart from the public constructor, which
   * copies them.
   */
  private KnapsackGroup(int unitWeight, double[] values, boolean unusedOwned) {
    this.unitWeight = Checks.positive("knapsack.unitWeight", unitWeight);
    if (values == null || values.length == 0) {
      throw new IllegalArgumentException("knapsack.values must hold at least item 0");
    }
    for (int k = 0; k < values.length; k++) {
      if (!Double.isFinite(values[k])) {
        throw new IllegalArgumentException(
            "knapsack.values[" + k + "] must be finite, was " + values[k]);
      }
    }
    this.values = values;
  }

  /**
   * A group that keeps {@code values}, which its maker hands over and never changes: a round makes
   * one per job.
   */
  static KnapsackGroup owning(int unitWeight, double[] values) {
    return new KnapsackGroup(unitWeight, values, true);
  }

  public int unitWeight() {
    return unitWeight;
  }

  /** A copy of the item values, by extra workers. */
  public double[] values() {
    return values.clone();
  }

  /** Largest item index. */
  public int maxItem() {
    return values.length - 1;
  }

  public double value(int k) {
    return values[k];
  }

  public int weight(int k) {
    return k * unitWeight;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KnapsackGroup g
        && unitWeight == g.unitWeight
        && Arrays.equals(values, g.values);
  }

  @Override
  public int hashCode() {
    return 31 * unitWeight + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "KnapsackGroup[w=" + unitWeight + ", values=" + Arrays.toString(values) + "]";
  }
}
