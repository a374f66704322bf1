package io.aryl.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("JobAllocations: running jobs' allocations as a sorted map kept in arrays")
class JobAllocationsTest {
  private static final Allocation ONE = Allocation.of("s1", 1);
  private static final Allocation TWO = Allocation.of("s2", 2);
  private static final Allocation THREE = Allocation.of("s3", 3);

  private static SortedMap<String, Allocation> reference() {
    return new TreeMap<>(Map.of("b", TWO, "a", ONE, "c", THREE));
  }

  @Test
  void is_the_sorted_map_of_the_same_entries_whatever_order_they_came_in() {
    Map<String, Allocation> unsorted = new LinkedHashMap<>();
    unsorted.put("c", THREE);
    unsorted.put("a", ONE);
    unsorted.put("b", TWO);

    for (Map<String, Allocation> given :
        java.util.List.of(reference(), unsorted, new HashMap<>(unsorted))) {
      JobAllocations m = JobAllocations.of(given);
      assertThat(m).isEqualTo(reference()).hasSameHashCodeAs(reference());
      assertThat(m.keySet()).containsExactly("a", "b", "c");
      assertThat(m.jobAt(1)).isEqualTo("b");
      assertThat(m.allocationAt(2)).isSameAs(THREE);
      assertThat(m.get("b")).isSameAs(TWO);
      assertThat(m.get("z")).isNull();
      assertThat(m.indexOf("c")).isEqualTo(2);
      assertThat(m.indexOf("bb")).isNegative();
    }
  }

  @Test
  void leaves_empty_allocations_out() {
    JobAllocations m = JobAllocations.of(new TreeMap<>(Map.of("a", ONE, "q", Allocation.EMPTY)));

    assertThat(m).containsOnlyKeys("a");
    assertThat(JobAllocations.of(Map.of("q", Allocation.EMPTY))).isSameAs(JobAllocations.EMPTY);
  }

  @Test
  void is_returned_as_it_is_rather_than_copied() {
    JobAllocations m = JobAllocations.of(reference());

    assertThat(JobAllocations.of(m)).isSameAs(m);
  }

  @Test
  void answers_ranges_as_a_tree_map_does() {
    JobAllocations m = JobAllocations.of(reference());
    SortedMap<String, Allocation> r = reference();

    assertThat(m.firstKey()).isEqualTo("a");
    assertThat(m.lastKey()).isEqualTo("c");
    assertThat(m.headMap("b")).isEqualTo(r.headMap("b"));
    assertThat(m.tailMap("b")).isEqualTo(r.tailMap("b"));
    assertThat(m.subMap("aa", "c")).isEqualTo(r.subMap("aa", "c"));
    assertThat(m.subMap("x", "y")).isEmpty();
    assertThat(m.comparator()).isNull();
  }

  @Test
  void refuses_a_job_given_twice_and_a_missing_allocation() {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () -> new JobAllocations.Builder(2).put("b", ONE).put("a", TWO).put("b", THREE).build())
        .withMessageContaining("'b' appears twice");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new JobAllocations.Builder(1).put("a", null))
        .withMessageContaining("job(a)");
  }

  @Test
  void cannot_be_changed() {
    JobAllocations m = JobAllocations.of(reference());

    assertThatThrownBy(() -> m.put("d", ONE)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> m.remove("a")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(m::clear).isInstanceOf(UnsupportedOperationException.class);
    assertThat(m).hasSize(3);
  }

  @Test
  void changes_one_job_or_many_as_a_tree_map_would_leaving_the_original_as_it_was() {
    java.util.Random random = new java.util.Random(11);
    TreeMap<String, Allocation> reference = new TreeMap<>();
    JobAllocations m = JobAllocations.EMPTY;
    for (int step = 0; step < 2000; step++) {
      JobAllocations before = m;
      TreeMap<String, Allocation> referenceBefore = new TreeMap<>(reference);
      if (random.nextBoolean()) {
        String id = "j" + random.nextInt(40);
        Allocation a =
            random.nextInt(3) == 0 ? Allocation.EMPTY : Allocation.of("s" + random.nextInt(5), 1);
        m = m.with(id, a);
        apply(reference, id, a);
      } else {
        TreeMap<String, Allocation> changes = new TreeMap<>();
        for (int k = random.nextInt(6); k > 0; k--) {
          changes.put(
              "j" + random.nextInt(40),
              random.nextInt(3) == 0
                  ? Allocation.EMPTY
                  : Allocation.of("s" + random.nextInt(5), 2));
        }
        m = m.with(changes);
        changes.forEach((id, a) -> apply(reference, id, a));
      }
      assertThat(m).isEqualTo(reference);
      assertThat(m.keySet()).containsExactlyElementsOf(reference.keySet());
      assertThat(before).as("unchanged by the change").isEqualTo(referenceBefore);
    }
  }

  @Test
  void is_itself_when_nothing_changes() {
    JobAllocations m = JobAllocations.of(reference());

    assertThat(m.with("b", TWO)).isSameAs(m);
    assertThat(m.with("z", Allocation.EMPTY)).isSameAs(m);
    assertThat(m.with(new TreeMap<>())).isSameAs(m);
  }

  private static void apply(Map<String, Allocation> map, String id, Allocation a) {
    if (a.isEmpty()) {
      map.remove(id);
    } else {
      map.put(id, a);
    }
  }
}
