package io.aryl.core.elastic;

import java.util.Arrays;
import java.util.List;

/**
 * Multiple-choice knapsack for large clusters, in time linear-logarithmic in the number of items.
 *
 * <p>It is the classic LP-relaxation greedy: each group's items are reduced to the upper convex
 * hull of (weight, value), whose steps have falling value per GPU; all groups' steps are taken in
 * order of value per GPU while they fit (a group whose next step does not fit takes no later step).
 * A final pass then upgrades each group to the best item the leftover capacity allows. With many
 * groups the gap to the optimum is at most one item's value and in practice a fraction of a percent
 * (measured in its tests).
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
    int left =
        fallingAlongHulls(steps)
            ? takeFalling(steps, capacity, choice)
            : takeSorted(steps, capacity, choice);
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
   * True if each group's steps fall (or stay equal) in value per GPU along its hull, as they do but
   * for rounding.
   */
  private static boolean fallingAlongHulls(Steps steps) {
    for (int i = 1; i < steps.size; i++) {
      if (steps.group[i - 1] == steps.group[i] && steps.efficiency[i - 1] < steps.efficiency[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Offers every step in take order (falling value per GPU, ties in the order made): a step is
   * taken when it fits and is its group's next; a group whose next step does not fit is closed.
   * Returns the capacity left.
   */
  private static int takeSorted(Steps steps, int capacity, int[] choice) {
    int left = capacity;
    boolean[] closed = new boolean[choice.length];
    for (int i : TakeOrder.sorted(steps.efficiency, steps.size)) {
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
    return left;
  }

  /**
   * What {@link #takeSorted} chooses, when each group's steps fall along its hull, without sorting
   * them all. Then every group's steps come in take order as they come along its hull, so each step
   * is its group's next when offered, and the steps offered before the first that does not fit are
   * all taken: that prefix is found by a selection on weight, in time linear in the steps. After
   * it, only each open group's next step can be taken or close its group, so the rest are offered
   * from a heap of those, one per group, until the capacity is spent.
   */
  private static int takeFalling(Steps steps, int capacity, int[] choice) {
    int n = steps.size;
    long total = 0;
    for (int i = 0; i < n; i++) {
      total += steps.weight[i];
    }
    if (total <= capacity) {
      // The common round: the spare GPUs let every elastic job grow as far as it gains.
      for (int i = 0; i < n; i++) {
        choice[steps.group[i]] = steps.toK[i];
      }
      return capacity - (int) total;
    }
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    int cut = TakeOrder.prefix(steps.efficiency, steps.weight, order, capacity);
    if (cut < 0) {
      return takeSorted(steps, capacity, choice); // the selection met its worst case
    }
    int left = capacity;
    for (int k = 0; k < cut; k++) {
      int i = order[k];
      choice[steps.group[i]] = Math.max(choice[steps.group[i]], steps.toK[i]);
      left -= steps.weight[i];
    }
    // The first step that did not fit closed its group; every other group offers its next step, if
    // any is left.
    int closedGroup = steps.group[order[cut]];
    TakeOrder.Heap heads = new TakeOrder.Heap(steps.efficiency, choice.length);
    for (int i = 0; i < n; i++) {
      int group = steps.group[i];
      if (group != closedGroup && steps.fromK[i] == choice[group]) {
        heads.add(i);
      }
    }
    while (left > 0 && !heads.isEmpty()) {
      int i = heads.poll();
      if (steps.weight[i] <= left) {
        int group = steps.group[i];
        choice[group] = steps.toK[i];
        left -= steps.weight[i];
        if (i + 1 < n && steps.group[i + 1] == group) {
          heads.add(i + 1);
        }
      } // else the group is closed: its later steps are never offered
    }
    return left;
  }

  /**
   * Steps along the upper convex hull of the group's items up to item {@code maxK}, from item 0.
   */
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
