package io.aryl.core.elastic;

import java.util.Arrays;
import java.util.List;

/**
 * Multiple-choice knapsack for large clusters, in time linear-logarithmic in the number of items.
 *
 * <p>It is the classic LP-relaxation greedy: each group's items are reduced to the upper convex hull of (weight,
 * value), whose steps have falling value per GPU; all groups' steps are taken in order of value per GPU while
 * they fit (a group whose next step does not fit takes no later step). A final pass then upgrades each group to
 * the best item the leftover capacity allows. With many groups the gap to the optimum is at most one item's
 * value and in practice a fraction of a percent (measured in its tests).
 */
public final class GreedyKnapsack {
  private GreedyKnapsack() {}

  /** The hull steps of every group, in group and then hull order, as parallel arrays. */
  private static final class Steps {
    int size;
    int[] group;
    int[] fromK;
    int[] toK;
    int[] weight;
    double[] efficiency;

    /** Room for {@code most} steps: a group of k items that fit has at most k hull steps. */
    Steps(int most) {
      int n = Math.max(1, most);
      group = new int[n];
      fromK = new int[n];
      toK = new int[n];
      weight = new int[n];
      efficiency = new double[n];
    }

    void add(int g, int from, int to, int w, double gain) {
      if (size == group.length) {
        int n = size * 2;
        group = Arrays.copyOf(group, n);
        fromK = Arrays.copyOf(fromK, n);
        toK = Arrays.copyOf(toK, n);
        weight = Arrays.copyOf(weight, n);
        efficiency = Arrays.copyOf(efficiency, n);
      }
      group[size] = g;
      fromK[size] = from;
      toK[size] = to;
      weight[size] = w;
      efficiency[size++] = gain / w;
    }
  }

  public static int[] solve(List<KnapsackGroup> groups, int capacity) {
    int n = groups.size();
    int[] choice = new int[n];
    int[] maxK = new int[n];
    int most = 0;
    int widest = 0;
    for (int i = 0; i < n; i++) {
      KnapsackGroup g = groups.get(i);
      maxK[i] = Math.min(g.maxItem(), capacity / g.unitWeight());
      most += maxK[i];
      widest = Math.max(widest, maxK[i]);
    }
    Steps steps = new Steps(most);
    int[] hull = new int[widest + 1];
    for (int i = 0; i < n; i++) {
      hullSteps(i, groups.get(i), maxK[i], hull, steps);
    }
    int left = capacity;
    boolean[] closed = new boolean[n];
    for (int i : takeOrder(steps, capacity)) {
      int group = steps.group[i];
      if (closed[group] || choice[group] != steps.fromK[i]) {
        continue;
      }
      if (steps.weight[i] <= left) {
        choice[group] = steps.toK[i];
        left -= steps.weight[i];
      } else {
        closed[group] = true;
      }
    }
    // Fill what the hull steps could not use with the best single upgrade per group.
    for (int i = 0; i < n && left > 0; i++) {
      KnapsackGroup g = groups.get(i);
      int from = choice[i];
      int bestK = from;
      double bestGain = 0;
      for (int k = from + 1; k <= g.maxItem() && g.weight(k) - g.weight(from) <= left; k++) {
        double gain = g.value(k) - g.value(from);
        if (gain > bestGain) {
          bestGain = gain;
          bestK = k;
        }
      }
      if (bestK != from) {
        left -= g.weight(bestK) - g.weight(from);
        choice[i] = bestK;
      }
    }
    return choice;
  }

  /**
   * The order the steps (made in group and hull order) are offered in: by falling value per GPU, ties by group and
   * then along the group's hull, which a stable sort on value per GPU alone gives. When every step fits together
   * and each group's steps already fall in value per GPU, every step is taken whatever the order, and they are
   * offered as they are: the common round, whose spare GPUs let every elastic job grow as far as it gains.
   */
  private static int[] takeOrder(Steps steps, int capacity) {
    int n = steps.size;
    long weight = 0;
    boolean falling = true; // along each group's hull
    for (int i = 0; i < n; i++) {
      weight += steps.weight[i];
      if (i > 0 && steps.group[i - 1] == steps.group[i]
          && steps.efficiency[i - 1] < steps.efficiency[i]) {
        falling = false;
      }
    }
    if (falling && weight <= capacity) {
      int[] asMade = new int[n];
      for (int i = 0; i < n; i++) {
        asMade[i] = i;
      }
      return asMade;
    }
    return takeOrder(steps.efficiency, n);
  }

  /**
   * Indexes by falling efficiency, equal ones in index order: a stable merge sort on primitives, without the boxing
   * and comparator calls of sorting the steps themselves, as every round solves one. It merges the runs the steps
   * already come in (each group's hull steps fall in efficiency), so a round of many steps over fewer groups takes as
   * many passes as it has groups, in logarithm, not steps. Efficiencies are compared as numbers ({@code >}): a step's
   * gain per GPU is above zero, never NaN or a negative zero, which {@link Double#compare} would order otherwise.
   */
  static int[] takeOrder(double[] efficiency) {
    return takeOrder(efficiency, efficiency.length);
  }

  /** As {@link #takeOrder(double[])} on the first {@code n} efficiencies. */
  private static int[] takeOrder(double[] efficiency, int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    // Where each run of non-rising efficiency starts, then n.
    int[] starts = new int[n + 1];
    int runs = 0;
    for (int i = 0; i < n; i++) {
      if (i == 0 || efficiency[i] > efficiency[i - 1]) {
        starts[runs++] = i;
      }
    }
    starts[runs] = n;
    // The keys travel with the indexes, so that a merge compares neighbours in memory rather than looking them up.
    double[] key = Arrays.copyOf(efficiency, n);
    int[] merged = new int[n];
    double[] mergedKey = new double[n];
    while (runs > 1) {
      int next = 0;
      for (int r = 0; r < runs; r += 2) {
        int lo = starts[r];
        int mid = starts[Math.min(r + 1, runs)];
        int hi = starts[Math.min(r + 2, runs)];
        int a = lo;
        int b = mid;
        int k = lo;
        while (a < mid && b < hi) {
          if (key[b] > key[a]) {
            mergedKey[k] = key[b];
            merged[k++] = order[b++];
          } else {
            mergedKey[k] = key[a];
            merged[k++] = order[a++];
          }
        }
        System.arraycopy(order, a, merged, k, mid - a);
        System.arraycopy(key, a, mergedKey, k, mid - a);
        k += mid - a;
        System.arraycopy(order, b, merged, k, hi - b);
        System.arraycopy(key, b, mergedKey, k, hi - b);
        starts[next++] = lo;
      }
      starts[next] = n;
      runs = next;
      int[] t = order;
      order = merged;
      merged = t;
      double[] tk = key;
      key = mergedKey;
      mergedKey = tk;
    }
    return order;
  }

  /** Steps along the upper convex hull of the group's items up to item {@code maxK}, from item 0. */
  private static void hullSteps(int index, KnapsackGroup g, int maxK, int[] hull, Steps out) {
    int size = 0;
    hull[size++] = 0;
    for (int k = 1; k <= maxK; k++) {
      if (g.value(k) <= g.value(hull[size - 1])) {
        continue; // dominated: heavier and no better
      }
      while (size >= 2 && !turnsRight(g, hull[size - 2], hull[size - 1], k)) {
        size--;
      }
      hull[size++] = k;
    }
    for (int h = 1; h < size; h++) {
      int from = hull[h - 1];
      int to = hull[h];
      out.add(index, from, to, g.weight(to) - g.weight(from), g.value(to) - g.value(from));
    }
  }

  /** True if b lies strictly above the segment from a to c: keeping b keeps the hull concave. */
  private static boolean turnsRight(KnapsackGroup g, int a, int b, int c) {
    double slopeAb = (g.value(b) - g.value(a)) / (b - a);
    double slopeBc = (g.value(c) - g.value(b)) / (c - b);
    return slopeAb > slopeBc;
  }
}
