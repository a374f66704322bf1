package io.aryl.core;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Orders of a round's jobs as index arrays, made without boxing or comparators: a round orders its
 * elastic jobs twice, and most of them arrive already sorted by id (the running jobs, in snapshot
 * order).
 */
final class IndexOrder {
  private IndexOrder() {}

  /**
   * Indexes of {@code ids} in increasing id order. Linear for ids sorted but for a tail (the jobs
   * admitted this round come after the running ones): the tail is sorted and merged in.
   */
  static int[] byId(String[] ids) {
    int n = ids.length;
    int prefix = 1;
    while (prefix < n && ids[prefix - 1].compareTo(ids[prefix]) <= 0) {
      prefix++;
    }
    int[] order = new int[n];
    if (prefix >= n) {
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      return order;
    }
    Integer[] tail = new Integer[n - prefix];
    for (int i = 0; i < tail.length; i++) {
      tail[i] = prefix + i;
    }
    Arrays.sort(
        tail, Comparator.comparing((Integer i) -> ids[i])); // stable: equal ids keep their order
    int a = 0;
    int b = 0;
    for (int k = 0; k < n; k++) {
      // Equal ids: the prefix's first, as a stable sort of the whole array gives.
      if (b == tail.length || (a < prefix && ids[a].compareTo(ids[tail[b]]) <= 0)) {
        order[k] = a++;
      } else {
        order[k] = tail[b++];
      }
    }
    return order;
  }

  /**
   * {@code order} reordered by falling {@code size}, equal sizes keeping their order in {@code
   * order}.
   */
  static int[] bySizeFalling(int[] order, int[] size) {
    int[] out = new int[order.length];
    int k = 0;
    int next = Integer.MAX_VALUE; // the largest size not yet placed is below this
    while (k < out.length) {
      int largest = Integer.MIN_VALUE;
      for (int i : order) {
        if (size[i] < next) {
          largest = Math.max(largest, size[i]);
        }
      }
      for (int i : order) {
        if (size[i] == largest) {
          out[k++] = i;
        }
      }
      next = largest;
    }
    return out;
  }

  /**
   * {@code order} reordered by rising {@code key} ({@link Double#compare}), equal keys keeping
   * their order.
   */
  static int[] byKeyRising(int[] order, double[] key) {
    int n = order.length;
    int[] from = order.clone();
    int[] to = new int[n];
    for (int width = 1; width < n; width *= 2) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + 2 * width, n);
        int a = lo;
        int b = mid;
        int k = lo;
        while (a < mid && b < hi) {
          to[k++] = Double.compare(key[from[b]], key[from[a]]) < 0 ? from[b++] : from[a++];
        }
        while (a < mid) {
          to[k++] = from[a++];
        }
        while (b < hi) {
          to[k++] = from[b++];
        }
      }
      int[] t = from;
      from = to;
      to = t;
    }
    return from;
  }
}
