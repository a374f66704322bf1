package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("IndexOrder: a round's job orders, as a comparator sort gives them")
class IndexOrderTest {
  private static int[] sorted(int n, Comparator<Integer> by) {
    return IntStream.range(0, n).boxed().sorted(by).mapToInt(Integer::intValue).toArray();
  }

  @Test
  void orders_by_id_a_sorted_run_with_an_unsorted_tail_and_any_order() {
    Random random = new Random(3);
    for (int trial = 0; trial < 500; trial++) {
      int n = random.nextInt(30);
      String[] ids = new String[n];
      for (int i = 0; i < n; i++) {
        ids[i] = "j" + random.nextInt(1000);
      }
      int prefix = n == 0 ? 0 : random.nextInt(n + 1);
      Arrays.sort(ids, 0, prefix); // the running jobs come sorted, the admitted ones after them

      assertThat(IndexOrder.byId(ids))
          .as("ids %s", Arrays.toString(ids))
          .containsExactly(sorted(n, Comparator.comparing((Integer i) -> ids[i])));
    }
  }

  @Test
  void orders_largest_first_and_by_rising_key_keeping_the_order_given_among_equals() {
    Random random = new Random(5);
    for (int trial = 0; trial < 500; trial++) {
      int n = random.nextInt(40);
      int[] size = new int[n];
      double[] key = new double[n];
      for (int i = 0; i < n; i++) {
        size[i] = 1 << random.nextInt(4);
        key[i] = random.nextInt(5) == 0 ? Double.POSITIVE_INFINITY : random.nextInt(6) - 3.0;
      }
      int[] given = sorted(n, Comparator.comparingInt(i -> (i * 7919) % 31)); // any permutation
      int[] rank = new int[n];
      for (int k = 0; k < n; k++) {
        rank[given[k]] = k;
      }

      assertThat(IndexOrder.bySizeFalling(given, size))
          .containsExactly(
              sorted(
                  n,
                  Comparator.comparingInt((Integer i) -> -size[i]).thenComparingInt(i -> rank[i])));
      assertThat(IndexOrder.byKeyRising(given, key))
          .containsExactly(
              sorted(
                  n,
                  Comparator.comparingDouble((Integer i) -> key[i])
                      .thenComparingInt(i -> rank[i])));
    }
  }
}
