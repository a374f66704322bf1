package io.aryl.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Allocation")
class AllocationTest {
  @Test
  void keeps_servers_in_id_order_and_drops_empty_ones() {
    Map<String, Integer> workers = new HashMap<>(Map.of("s3", 2, "s1", 1, "s2", 0));

    Allocation a = Allocation.of(workers);

    assertThat(a.serverCount()).isEqualTo(2);
    assertThat(a.serverAt(0)).isEqualTo("s1");
    assertThat(a.workersAt(0)).isEqualTo(1);
    assertThat(a.serverAt(1)).isEqualTo("s3");
    assertThat(a.workersAt(1)).isEqualTo(2);
    assertThat(a.workersByServer()).containsExactly(Map.entry("s1", 1), Map.entry("s3", 2));
    assertThat(a.totalWorkers()).isEqualTo(3);
    assertThat(a.workersOn("s3")).isEqualTo(2);
    assertThat(a.workersOn("s2")).isZero();
    assertThat(a).hasToString("{s1=1, s3=2}");
  }

  @Test
  void equals_and_hashes_as_its_map_of_workers() {
    Allocation a = Allocation.of(Map.of("s1", 1, "s2", 2));
    Allocation same = Allocation.of(Map.of("s2", 2, "s1", 1));

    assertThat(a).isEqualTo(same).isNotEqualTo(Allocation.of(Map.of("s1", 1, "s2", 3)));
    assertThat(a.hashCode())
        .isEqualTo(same.hashCode())
        .isEqualTo(Map.of("s1", 1, "s2", 2).hashCode());
  }

  @Test
  void all_zero_counts_make_the_empty_allocation() {
    assertThat(Allocation.of(Map.of("s1", 0))).isSameAs(Allocation.EMPTY);
    assertThat(Allocation.EMPTY.serverCount()).isZero();
    assertThat(Allocation.EMPTY.workersByServer()).isEmpty();
  }

  @Test
  void refuses_negative_workers_naming_the_server() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Allocation.of(Map.of("s1", -1)))
        .withMessage("allocation workers on s1 must be >= 0, was -1");
  }
}
