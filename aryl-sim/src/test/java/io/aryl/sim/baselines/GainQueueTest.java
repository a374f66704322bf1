package io.aryl.sim.baselines;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("GainQueue: Optimus's greedy queue")
class GainQueueTest {
  private record Item(double gain, int rank) {}

  private static final Comparator<Item> FALLING_GAIN_THEN_RANK =
      (a, b) -> {
        int c = Double.compare(-a.gain, -b.gain);
        return c != 0 ? c : Integer.compare(a.rank, b.rank);
      };

  @Test
  @DisplayName("largest gain first, equal gains by rank, zero and negative gains last")
  void order() {
    GainQueue<String> q = new GainQueue<>(1);
    q.add("c", 2.0, 3);
    q.add("a", 5.0, 9);
    q.add("b", 2.0, 1);
    q.add("z", 0.0, 0);
    q.add("n", -1.0, 2);
    List<String> out = new ArrayList<>();
    for (String s = q.poll(); s != null; s = q.poll()) {
      out.add(s);
    }
    assertThat(out).containsExactly("a", "b", "c", "z", "n");
    assertThat(q.isEmpty()).isTrue();
  }

  @Test
  @DisplayName("an item is before the head only when it would come out first")
  void beforeHead() {
    GainQueue<String> q = new GainQueue<>(4);
    assertThat(q.beforeHead(-5, 0)).isTrue();
    q.add("x", 3.0, 5);
    assertThat(q.beforeHead(3.5, 9)).isTrue();
    assertThat(q.beforeHead(3.0, 4)).isTrue();
    assertThat(q.beforeHead(3.0, 6)).isFalse();
    assertThat(q.beforeHead(2.0, 0)).isFalse();
  }

  @Test
  @DisplayName("adds and polls interleaved give what a priority queue on the same order gives")
  void sameAsPriorityQueue() {
    Random random = new Random(7);
    for (int trial = 0; trial < 200; trial++) {
      GainQueue<Item> q = new GainQueue<>(random.nextInt(4));
      PriorityQueue<Item> expected = new PriorityQueue<>(FALLING_GAIN_THEN_RANK);
      int rank = 0;
      for (int step = 0; step < 300; step++) {
        if (random.nextInt(3) > 0) {
          // Few distinct gains, so that ties by rank are common; signed zeros too.
          double gain =
              random.nextInt(5) == 0 ? (random.nextBoolean() ? 0.0 : -0.0) : random.nextInt(7) - 2;
          Item item = new Item(gain, rank++);
          q.add(item, item.gain, item.rank);
          expected.add(item);
        } else {
          assertThat(q.poll()).isEqualTo(expected.poll());
        }
      }
      while (!expected.isEmpty()) {
        assertThat(q.poll()).isEqualTo(expected.poll());
      }
      assertThat(q.poll()).isNull();
    }
  }
}
