package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ServerWorkers: a job's workers by server index")
class ServerWorkersTest {
  @Test
  void counts_one_worker_per_entry_in_server_order() {
    ServerWorkers w = ServerWorkers.ofEach(new int[] {7, 2, 7, 7, 0});

    assertThat(w.toMap()).containsExactly(entry(0, 1), entry(2, 1), entry(7, 3));
    assertThat(w.size()).isEqualTo(3);
    assertThat(w.server(2)).isEqualTo(7);
    assertThat(w.workers(2)).isEqualTo(3);
    assertThat(ServerWorkers.ofEach(new int[] {5, 4, 3}, 1, 3).toMap())
        .containsExactly(entry(3, 1), entry(4, 1));
  }

  @Test
  void keeps_the_pairs_in_server_order_without_their_zero_counts() {
    ServerWorkers w = ServerWorkers.of(new int[] {1, 4, 9}, new int[] {1, 0, 2});

    List<int[]> seen = new ArrayList<>();
    w.forEach((s, n) -> seen.add(new int[] {s, n}));
    assertThat(seen).containsExactly(new int[] {1, 1}, new int[] {9, 2});
    assertThat(ServerWorkers.of(new int[0], new int[0])).isSameAs(ServerWorkers.NONE);
    assertThat(ServerWorkers.NONE.isEmpty()).isTrue();
  }

  @Test
  void equals_the_same_pairs_however_made() {
    ServerWorkers w = ServerWorkers.of(new int[] {1, 9}, new int[] {1, 2});

    assertThat(w)
        .isEqualTo(ServerWorkers.ofEach(new int[] {9, 1, 9}))
        .hasSameHashCodeAs(ServerWorkers.ofEach(new int[] {9, 1, 9}))
        .isNotEqualTo(ServerWorkers.ofEach(new int[] {9, 1}));
  }
}
