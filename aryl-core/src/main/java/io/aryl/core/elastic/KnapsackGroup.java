package io.aryl.core.elastic;

import io.aryl.core.model.Checks;
import java.util.Arrays;

/**
 * One job's choices in the multiple-choice knapsack: item k = k extra workers, weight {@code k * unitWeight} GPUs,
 * value {@code values[k]}. Exactly one item per group is chosen; item 0 (no extras) always fits.
 */
public record KnapsackGroup(int unitWeight, double[] values) {
  public KnapsackGroup {
    Checks.positive("knapsack.unitWeight", unitWeight);
    if (values == null || values.length == 0) {
      throw new IllegalArgumentException("knapsack.values must hold at least item 0");
    }
    for (int k = 0; k < values.length; k++) {
      if (!Double.isFinite(values[k])) {
        throw new IllegalArgumentException("knapsack.values[" + k + "] must be finite, was " + values[k]);
      }
    }
    values = values.clone();
  }

  /** A copy of the item values, by extra workers. */
  @Override
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
    return o instanceof KnapsackGroup g && unitWeight == g.unitWeight && Arrays.equals(values, g.values);
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
