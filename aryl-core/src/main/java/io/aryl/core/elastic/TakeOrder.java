package io.aryl.core.elastic;

import java.util.Arrays;

/**
 * The order the greedy knapsack offers its steps in: by falling value per GPU ("efficiency"), equal
 * ones in the order they were made. Sorted whole ({@link #sorted}), as a prefix that fits a
 * capacity ({@link #prefix}), or one step at a time from a few candidates ({@link Heap}).
 * Efficiencies are compared as numbers ({@code >}): a step's gain per GPU is above zero, never NaN
 * or a negative zero, which {@link Double#compare} would order otherwise.
 */
final class TakeOrder {
  private TakeOrder() {}

  /** True if step {@code a} is offered before step {@code b}. */
  static boolean before(double[] efficiency, int a, int b) {
    return efficiency[a] > efficiency[b] || (efficiency[a] == efficiency[b] && a < b);
  }

  /**
   * Indexes in take order: a stable merge sort on primitives, without the boxing and comparator
   * calls of sorting the steps themselves, as every round solves one. It merges the runs the steps
   * already come in (each group's hull steps fall in efficiency), so a round of many steps over
   * fewer groups takes as many passes as it has groups, in logarithm, not steps.
   */
  static int[] sorted(double[] efficiency) {
    return sorted(efficiency, efficiency.length);
  }

  /** As {@link #sorted(double[])} on the first {@code n} efficiencies. */
  static int[] sorted(double[] efficiency, int n) {
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
    // The keys travel with the indexes, so that a merge compares neighbours in memory rather than
    // looking them up.
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

  /**
   * Puts the longest prefix of the take order whose weights fit {@code capacity} first in {@code
   * order} (which holds each step once), followed by the step that comes next, and returns the
   * prefix's length; or -1 when every step fits or the selection gives up on a run of bad pivots. A
   * weighted quickselect: each pass splits the steps still in question around a median of three and
   * keeps the side where the capacity runs out, in linear time expected.
   */
  static int prefix(double[] efficiency, int[] weight, int[] order, int capacity) {
    int lo = 0;
    int hi = order.length;
    long budget = capacity;
    // Expected passes are about the logarithm of the steps; far more means pivots chosen badly
    // again and again.
    int passesLeft = 2 * (32 - Integer.numberOfLeadingZeros(order.length)) + 16;
    while (lo < hi) {
      if (passesLeft-- == 0) {
        return -1;
      }
      int pivot = medianOfThree(efficiency, order, lo, lo + (hi - lo) / 2, hi - 1);
      swap(order, pivot, hi - 1);
      int p = order[hi - 1];
      int store = lo;
      long before = 0;
      for (int k = lo; k < hi - 1; k++) {
        if (before(efficiency, order[k], p)) {
          before += weight[order[k]];
          swap(order, store++, k);
        }
      }
      swap(order, store, hi - 1);
      if (before > budget) {
        hi = store; // the capacity runs out among the steps before the pivot
      } else if (weight[p] <= budget - before) {
        budget -= before + weight[p];
        lo = store + 1; // they and the pivot fit: it runs out after
      } else {
        return store; // they fit and the pivot does not
      }
    }
    return -1; // every step fits
  }

  private static int medianOfThree(double[] efficiency, int[] order, int a, int b, int c) {
    if (before(efficiency, order[b], order[a])) {
      int t = a;
      a = b;
      b = t;
    }
    // now order[a] comes before order[b]
    if (before(efficiency, order[c], order[b])) {
      return before(efficiency, order[c], order[a]) ? a : c;
    }
    return b;
  }

  private static void swap(int[] a, int i, int j) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }

  /** A binary heap of step indexes that gives the one offered first. */
  static final class Heap {
    private final double[] efficiency;
    private int[] heap;
    private int size;

    Heap(double[] efficiency, int room) {
      this.efficiency = efficiency;
      this.heap = new int[Math.max(1, room)];
    }

    boolean isEmpty() {
      return size == 0;
    }

    void add(int step) {
      if (size == heap.length) {
        heap = Arrays.copyOf(heap, size * 2);
      }
      int k = size++;
      while (k > 0) {
        int parent = (k - 1) >>> 1;
        if (!before(efficiency, step, heap[parent])) {
          break;
        }
        heap[k] = heap[parent];
        k = parent;
      }
      heap[k] = step;
    }

    int poll() {
      int first = heap[0];
      int last = heap[--size];
      int k = 0;
      while (true) {
        int child = 2 * k + 1;
        if (child >= size) {
          break;
        }
        if (child + 1 < size && before(efficiency, heap[child + 1], heap[child])) {
          child++;
        }
        if (!before(efficiency, heap[child], last)) {
          break;
        }
        heap[k] = heap[child];
        k = child;
      }
      if (size > 0) {
        heap[k] = last;
      }
      return first;
    }
  }
}
