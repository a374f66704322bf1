package io.aryl.sim.baselines;

import java.util.Arrays;

/**
 * Optimus's greedy queue: items by falling gain ({@link Double#compare} of the negated gains, as a
 * comparator on them would order them), ties by rising rank; ranks are unique, so the order is
 * total and the items come out as any priority queue on that order gives them. A binary heap on
 * parallel arrays: a round adds and takes one item per worker it hands out, millions in a replay,
 * and a {@link java.util.PriorityQueue} paid a comparator call and two object reads per comparison.
 *
 * @param <T> what an item carries
 */
final class GainQueue<T> {
  private double[] gains;
  private int[] ranks;
  private Object[] items;
  private int size;

  GainQueue(int capacity) {
    int n = Math.max(1, capacity);
    gains = new double[n];
    ranks = new int[n];
    items = new Object[n];
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** Whether an item of this gain and rank comes out before every item held. */
  boolean beforeHead(double gain, int rank) {
    return size == 0 || before(gain, rank, gains[0], ranks[0]);
  }

  void add(T item, double gain, int rank) {
    if (size == items.length) {
      int n = size * 2;
      gains = Arrays.copyOf(gains, n);
      ranks = Arrays.copyOf(ranks, n);
      items = Arrays.copyOf(items, n);
    }
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(gain, rank, gains[parent], ranks[parent])) {
        break;
      }
      move(parent, i);
      i = parent;
    }
    set(i, item, gain, rank);
  }

  /** Takes the first item out; null when empty. */
  @SuppressWarnings("unchecked")
  T poll() {
    if (size == 0) {
      return null;
    }
    T first = (T) items[0];
    int last = --size;
    double gain = gains[last];
    int rank = ranks[last];
    Object item = items[last];
    items[last] = null;
    if (last > 0) {
      int i = 0;
      int half = last >>> 1;
      while (i < half) {
        int child = 2 * i + 1;
        int right = child + 1;
        if (right < last && before(gains[right], ranks[right], gains[child], ranks[child])) {
          child = right;
        }
        if (!before(gains[child], ranks[child], gain, rank)) {
          break;
        }
        move(child, i);
        i = child;
      }
      set(i, item, gain, rank);
    }
    return first;
  }

  private static boolean before(double gain, int rank, double otherGain, int otherRank) {
    int c = Double.compare(-gain, -otherGain);
    return c < 0 || (c == 0 && rank < otherRank);
  }

  private void move(int from, int to) {
    gains[to] = gains[from];
    ranks[to] = ranks[from];
    items[to] = items[from];
  }

  private void set(int i, Object item, double gain, int rank) {
    gains[i] = gain;
    ranks[i] = rank;
    items[i] = item;
  }
}
