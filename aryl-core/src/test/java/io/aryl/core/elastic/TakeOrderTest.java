package io.aryl.core.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The greedy knapsack's take order: falling efficiency, equal ones in index order. Sorting, the
 * prefix that fits a capacity and the heap must each agree with a plain comparator sort.
 */
@DisplayName("Take order")
class TakeOrderTest {

  /**
   * Random efficiencies with many ties; half of the time in falling runs, as groups' hull steps
   * come.
   */
  private static double[] efficiencies(SplittableRandom rnd, int n, boolean hullLike) {
    double[] efficiency = new double[n];
    for (int k = 0; k < n; k++) {
      boolean newGroup = k == 0 || rnd.nextInt(4) == 0;
      efficiency[k] =
          hullLike && !newGroup
              ? efficiency[k - 1] - rnd.nextInt(0, 3) / 4.0
              : rnd.nextInt(0, 6) / 4.0
                  + 0.25; // few values: many ties; all above zero, as gains per GPU are
    }
    return efficiency;
  }

  private static int[] expectedOrder(double[] efficiency) {
    return java.util.stream.IntStream.range(0, efficiency.length)
        .boxed()
        .sorted(
            (a, b) -> {
              int c = Double.compare(efficiency[b], efficiency[a]);
              return c != 0 ? c : Integer.compare(a, b);
            })
        .mapToInt(Integer::intValue)
        .toArray();
  }

  @Test
  void sorted_is_falling_efficiency_with_ties_in_index_order() {
    SplittableRandom rnd = new SplittableRandom(11);
    for (int i = 0; i < 1000; i++) {
      double[] efficiency = efficiencies(rnd, rnd.nextInt(0, 80), i % 2 == 1);

      assertThat(TakeOrder.sorted(efficiency)).containsExactly(expectedOrder(efficiency));
    }
  }

  @Test
  void
      prefix_is_the_longest_start_of_the_take_order_that_fits_followed_by_the_step_that_does_not() {
    SplittableRandom rnd = new SplittableRandom(12);
    for (int i = 0; i < 3000; i++) {
      int n = rnd.nextInt(1, 120);
      double[] efficiency = efficiencies(rnd, n, i % 2 == 1);
      int[] weight = rnd.ints(n, 1, 17).toArray();
      long total = Arrays.stream(weight).sum();
      int capacity = (int) rnd.nextLong(0, total); // below the total: some step does not fit
      int[] expected = expectedOrder(efficiency);
      int expectedCut = 0;
      for (long used = 0; used + weight[expected[expectedCut]] <= capacity; expectedCut++) {
        used += weight[expected[expectedCut]];
      }
      int[] order = java.util.stream.IntStream.range(0, n).toArray();

      int cut = TakeOrder.prefix(efficiency, weight, order, capacity);

      assertThat(cut)
          .as("capacity %d, weights %s", capacity, Arrays.toString(weight))
          .isEqualTo(expectedCut);
      assertThat(Arrays.stream(order, 0, cut).sorted().toArray())
          .containsExactly(Arrays.stream(expected, 0, cut).sorted().toArray());
      assertThat(order[cut]).isEqualTo(expected[cut]);
      assertThat(Arrays.stream(order).sorted().toArray())
          .as("each step once")
          .containsExactly(java.util.stream.IntStream.range(0, n).toArray());
    }
  }

  @Test
  void prefix_is_none_when_every_step_fits() {
    double[] efficiency = {3, 2, 1};
    int[] weight = {1, 2, 3};

    assertThat(TakeOrder.prefix(efficiency, weight, new int[] {0, 1, 2}, 6)).isEqualTo(-1);
    assertThat(TakeOrder.prefix(efficiency, weight, new int[] {0, 1, 2}, 5)).isEqualTo(2);
    assertThat(TakeOrder.prefix(efficiency, weight, new int[] {0, 1, 2}, 0)).isEqualTo(0);
  }

  @Test
  void heap_gives_its_steps_in_take_order_as_they_are_added_and_taken() {
    SplittableRandom rnd = new SplittableRandom(13);
    for (int i = 0; i < 500; i++) {
      int n = rnd.nextInt(1, 100);
      double[] efficiency = efficiencies(rnd, n, false);
      TakeOrder.Heap heap = new TakeOrder.Heap(efficiency, 1); // grows as it must
      java.util.TreeSet<Integer> reference =
          new java.util.TreeSet<>(
              (a, b) -> {
                int c = Double.compare(efficiency[b], efficiency[a]);
                return c != 0 ? c : Integer.compare(a, b);
              });
      int next = 0;
      while (next < n || !reference.isEmpty()) {
        if (next < n && (reference.isEmpty() || rnd.nextBoolean())) {
          heap.add(next);
          reference.add(next++);
        } else {
          assertThat(heap.poll()).isEqualTo(reference.pollFirst());
        }
      }
      assertThat(heap.isEmpty()).isTrue();
    }
  }
}
