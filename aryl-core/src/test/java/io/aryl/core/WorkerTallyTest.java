package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("WorkerTally: extra workers counted up by server")
class WorkerTallyTest {
  @Test
  void counts_as_a_sorted_map_merging_sums_would() {
    Random random = new Random(9);
    for (int trial = 0; trial < 200; trial++) {
      WorkerTally tally = new WorkerTally();
      TreeMap<Integer, Integer> reference = new TreeMap<>();
      for (int k = random.nextInt(12); k > 0; k--) {
        int s = random.nextInt(20);
        int w = 1 + random.nextInt(3);
        tally.add(s, w);
        reference.merge(s, w, Integer::sum);
      }
      TreeMap<Integer, Integer> counted = new TreeMap<>();
      for (int i = 0; i < tally.size(); i++) {
        assertThat(i == 0 || tally.server(i - 1) < tally.server(i)).isTrue();
        counted.put(tally.server(i), tally.workers(i));
      }
      assertThat(counted).isEqualTo(reference);
      assertThat(
              tally.sameAs(
                  ServerWorkers.of(
                      reference.keySet().stream().mapToInt(k -> k).toArray(),
                      reference.values().stream().mapToInt(v -> v).toArray())))
          .isTrue();
    }
  }

  @Test
  void is_the_same_as_exactly_its_pairs_and_empty_once_cleared() {
    WorkerTally tally = new WorkerTally();
    tally.add(9, 2);
    tally.add(1, 1);

    assertThat(tally.sameAs(ServerWorkers.of(new int[] {1, 9}, new int[] {1, 2}))).isTrue();
    assertThat(tally.sameAs(ServerWorkers.of(new int[] {1, 9}, new int[] {1, 3}))).isFalse();
    assertThat(tally.sameAs(ServerWorkers.of(new int[] {1}, new int[] {1}))).isFalse();
    assertThat(tally).hasToString("{1=1, 9=2}");
    tally.clear();
    assertThat(tally.isEmpty()).isTrue();
    assertThat(tally.sameAs(ServerWorkers.NONE)).isTrue();
  }
}
