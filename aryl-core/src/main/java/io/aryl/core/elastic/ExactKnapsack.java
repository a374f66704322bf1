package io.aryl.core.elastic;

import java.util.List;

/**
 * Multiple-choice knapsack by dynamic programming over capacity: optimal, in time proportional to
 * capacity times the number of items. Weights and capacity are first divided by the gcd of the unit
 * weights.
 */
public final class ExactKnapsack {
  private ExactKnapsack() {}

  /** Operations the DP would take: the test for whether the exact path is affordable. */
  public static long cost(List<KnapsackGroup> groups, int capacity) {
    int unit = gcdOfUnits(groups);
    long cells = capacity / unit + 1L;
    long ops = 0;
    for (KnapsackGroup g : groups) {
      ops += cells * Math.min(g.maxItem() + 1, capacity / g.unitWeight() + 1);
    }
    return ops;
  }

  public static int[] solve(List<KnapsackGroup> groups, int capacity) {
    int n = groups.size();
    int[] choice = new int[n];
    if (n == 0) {
      return choice;
    }
    int unit = gcdOfUnits(groups);
    int cap = capacity / unit;
    double[] best = new double[cap + 1]; // best value with weight <= c over the groups so far
    double[] next = new double[cap + 1];
    short[][] pick = new short[n][];
    for (int i = 0; i < n; i++) {
      KnapsackGroup g = groups.get(i);
      int w = g.unitWeight() / unit;
      int maxK = Math.min(g.maxItem(), cap / w);
      short[] p = new short[cap + 1]; // item 0 unless a larger one is better
      double v0 = g.value(0);
      for (int c = 0; c <= cap; c++) {
        next[c] = best[c] + v0;
      }
      // Items in rising order, each over every capacity it fits: per capacity the same comparisons
      // in the same order
      // as trying every item at one capacity, so the smallest best item still wins; a straight walk
      // of the arrays.
      for (int k = 1; k <= maxK; k++) {
        double vk = g.value(k);
        int kw = k * w;
        for (int c = kw; c <= cap; c++) {
          double cand = best[c - kw] + vk;
          if (cand > next[c]) {
            next[c] = cand;
            p[c] = (short) k;
          }
        }
      }
      pick[i] = p;
      double[] t = best;
      best = next;
      next = t;
    }
    int c = cap;
    for (int i = n - 1; i >= 0; i--) {
      int k = pick[i][c];
      choice[i] = k;
      c -= k * (groups.get(i).unitWeight() / unit);
    }
    return choice;
  }

  static int gcdOfUnits(List<KnapsackGroup> groups) {
    int g = 0;
    for (KnapsackGroup grp : groups) {
      g = gcd(g, grp.unitWeight());
    }
    return Math.max(g, 1);
  }

  private static int gcd(int a, int b) {
    while (b != 0) {
      int t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
}
