package io.aryl.core.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.aryl.core.model.GpuType;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("FreeGpuIndex: best fit over open servers")
class FreeGpuIndexTest {
  static final GpuType A100 = GpuType.of("A100", 1.0);
  static final GpuType T4 = GpuType.of("T4", 0.5);

  /** Any type allowed, for tables of one type. */
  static final boolean[] ONE_TYPE = {true};

  /** For tables holding A100 and T4: type index 0 is A100 (faster first), 1 is T4. */
  static final boolean[] BOTH = {true, true};

  static final boolean[] ONLY_A100 = {true, false};
  static final boolean[] ONLY_T4 = {false, true};

  static FreeGpuIndex index(List<Server> servers, int... free) {
    return new FreeGpuIndex(new ServerTable(servers), free);
  }

  // Four own A100 servers of 8 GPUs with 8, 3, 5, 2 free.
  static final List<Server> FOUR =
      List.of(
          Server.training("s1", A100, 8), Server.training("s2", A100, 8),
          Server.training("s3", A100, 8), Server.training("s4", A100, 8));

  @ParameterizedTest(name = "a worker of {0} GPUs goes to server index {1}")
  @CsvSource({
    // free = [8, 3, 5, 2]
    "1, 3", // every server fits; s4 has the fewest free (2)
    "2, 3", // s4 (2) still fits exactly
    "3, 1", // s4 (2) is too small; s2 (3) is the tightest that fits
    "4, 2", // s3 (5) is the only one besides s1 (8), and tighter
    "5, 2", // s3 (5) exactly
    "6, 0", // only s1 (8)
    "8, 0", // only s1 (8)
    "9, -1", // larger than any server
  })
  void best_fit_picks_the_open_server_with_the_fewest_free_GPUs_that_still_fits(
      int gpus, int expected) {
    FreeGpuIndex idx = index(FOUR, 8, 3, 5, 2);
    assertThat(idx.bestFit(gpus, ONE_TYPE, WorkerRole.BASE)).isEqualTo(expected);
    assertThat(idx.bestFit(gpus, ONE_TYPE, WorkerRole.FLEXIBLE))
        .isEqualTo(expected); // no loaned servers here
  }

  // Index 0: an own training server "o"; index 1: a loaned inference server "p" ("o" < "p" in id
  // order).
  @ParameterizedTest(name = "own free {0}, loaned free {1}: a {3} worker of {2} GPUs goes to {4}")
  @CsvSource({
    // preferred group wins even where the other group fits tighter
    "2, 8, 1, FLEXIBLE, 1", // loaned first for flexible workers, though own (2 free) fits tighter
    "8, 2, 1, BASE,     0", // own first for base workers, though loaned (2 free) fits tighter
    "8, 2, 1, FLEXIBLE, 1", // loaned first, and it fits tightest anyway
    "2, 8, 1, BASE,     0", // own first, and it fits tightest anyway
    // falls back to the other group when the preferred one has no room
    "8, 2, 4, FLEXIBLE, 0", // loaned has 2 < 4: own
    "2, 8, 4, BASE,     1", // own has 2 < 4: loaned
    // neither group fits
    "2, 2, 4, FLEXIBLE, -1",
    "2, 2, 4, BASE,     -1",
  })
  void base_workers_prefer_own_servers_and_flexible_workers_prefer_loaned_ones(
      int ownFree, int loanedFree, int gpus, WorkerRole role, int expected) {
    FreeGpuIndex idx =
        index(
            List.of(Server.training("o", A100, 8), Server.loaned("p", A100, 8)),
            ownFree,
            loanedFree);
    assertThat(idx.bestFit(gpus, ONE_TYPE, role)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void at_equal_free_count_faster_types_come_first_but_fewer_free_GPUs_come_before_speed(
      String scenario, int[] free, int gpus, boolean[] allowed, int expected) {
    // s1 T4 (index 0), s2 A100 (index 1), s3 A100 (index 2), all 8 GPUs, own.
    FreeGpuIndex idx =
        index(
            List.of(
                Server.training("s1", T4, 8),
                Server.training("s2", A100, 8),
                Server.training("s3", A100, 8)),
            free);
    assertThat(idx.bestFit(gpus, allowed, WorkerRole.BASE)).isEqualTo(expected);
  }

  static Stream<Arguments>
      at_equal_free_count_faster_types_come_first_but_fewer_free_GPUs_come_before_speed() {
    return Stream.of(
        // s1 (T4) and s2 (A100) both have 4 free: A100 wins although s1 has the lower index
        Arguments.of("equal free: the A100 server", new int[] {4, 4, 6}, 4, BOTH, 1),
        // the T4 server has 3 free, the A100 ones 4 and 6: fewest free first, whatever the speed
        Arguments.of("fewer free: the T4 server", new int[] {3, 4, 6}, 3, BOTH, 0),
        // only T4 allowed: s1 although the A100 servers fit
        Arguments.of("only T4 allowed", new int[] {4, 4, 6}, 4, ONLY_T4, 0),
        // only A100 allowed: the T4 server with 3 free (tightest) is skipped, s2 (4) is next
        Arguments.of("only A100 allowed", new int[] {3, 4, 6}, 3, ONLY_A100, 1),
        // no allowed type: nothing
        Arguments.of("no type allowed", new int[] {8, 8, 8}, 1, new boolean[] {false, false}, -1));
  }

  @Test
  void on_a_tie_of_group_type_and_free_count_the_lowest_index_wins() {
    FreeGpuIndex idx = index(FOUR.subList(0, 3), 4, 4, 4);
    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.BASE)).isEqualTo(0);
    idx.set(0, 8); // s1 now has more free than s2 and s3
    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.BASE)).isEqualTo(1);
  }

  @Test
  void fenced_servers_and_servers_not_serving_training_are_never_offered_but_keep_their_counts() {
    List<Server> servers =
        List.of(
            new Server("a", A100, 8, Pool.TRAINING, false, true), // training, fenced
            Server.inference("b", A100, 8), // inference, not lent
            new Server(
                "c", A100, 8, Pool.INFERENCE, true, true), // lent but fenced (being returned)
            Server.training("d", A100, 8)); // the only open one
    FreeGpuIndex idx = index(servers, 8, 8, 8, 1);

    assertThat(idx.bestFit(1, ONE_TYPE, WorkerRole.BASE)).isEqualTo(3);
    assertThat(idx.bestFit(1, ONE_TYPE, WorkerRole.FLEXIBLE)).isEqualTo(3);
    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.BASE))
        .isEqualTo(-1); // "d" has 1; the others are closed
    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.FLEXIBLE)).isEqualTo(-1);
    assertThat(idx.fittingWorkers(1, ONE_TYPE)).isEqualTo(1); // only "d"'s one GPU counts

    idx.set(0, 6); // counts of closed servers are tracked ...
    assertThat(idx.free(0)).isEqualTo(6);
    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.BASE)).isEqualTo(-1); // ... but never offered
  }

  @Test
  void set_moves_a_server_to_the_bucket_of_its_new_free_count() {
    FreeGpuIndex idx = index(FOUR.subList(0, 2), 2, 6);
    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.BASE)).isEqualTo(0); // s1 (2) over s2 (6)

    idx.set(0, 0); // s1 is full
    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.BASE)).isEqualTo(1);
    assertThat(idx.bestFit(7, ONE_TYPE, WorkerRole.BASE)).isEqualTo(-1);

    idx.set(0, 8); // s1 is empty: 8 > 6, s2 is still the tighter fit for 2 GPUs ...
    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.BASE)).isEqualTo(1);
    assertThat(idx.bestFit(7, ONE_TYPE, WorkerRole.BASE)).isEqualTo(0); // ... and s1 now holds 7

    idx.set(1, 1); // s2 down to 1
    assertThat(idx.bestFit(1, ONE_TYPE, WorkerRole.BASE)).isEqualTo(1);
    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.BASE)).isEqualTo(0);
    assertThat(idx.freeCounts()).containsExactly(8, 1);
  }

  @Test
  void free_counts_are_copied_in_and_out() {
    int[] free = {2, 6};
    FreeGpuIndex idx = index(FOUR.subList(0, 2), free);
    free[0] = 0; // changing the caller's array changes nothing
    assertThat(idx.free(0)).isEqualTo(2);
    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.BASE)).isEqualTo(0);

    int[] out = idx.freeCounts();
    out[1] = 0; // nor does changing the returned copy
    assertThat(idx.free(1)).isEqualTo(6);
    assertThat(idx.freeCounts()).containsExactly(2, 6);
  }

  @Test
  void a_copy_finds_the_same_servers_and_changes_apart() {
    FreeGpuIndex idx = index(FOUR.subList(0, 2), new int[] {2, 6});

    FreeGpuIndex copy = idx.copy();
    copy.set(0, 0);

    assertThat(idx.bestFit(2, ONE_TYPE, WorkerRole.BASE)).isEqualTo(0);
    assertThat(copy.bestFit(2, ONE_TYPE, WorkerRole.BASE)).isEqualTo(1);
    assertThat(idx.freeCounts()).containsExactly(2, 6);
    assertThat(copy.freeCounts()).containsExactly(0, 6);
  }

  @ParameterizedTest(name = "free {0} on an 8-GPU server is refused")
  @CsvSource({"-1", "9"})
  void out_of_range_free_counts_are_refused_at_construction_naming_the_server(int bad) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> index(FOUR.subList(0, 2), 4, bad))
        .withMessageContaining("server(s2)")
        .withMessageContaining("0..8")
        .withMessageContaining(String.valueOf(bad));
  }

  @ParameterizedTest(name = "set to {0} on an 8-GPU server is refused and changes nothing")
  @CsvSource({"-1", "9"})
  void out_of_range_free_counts_are_refused_by_set_naming_the_server_and_change_nothing(int bad) {
    FreeGpuIndex idx = index(FOUR.subList(0, 2), 4, 3);
    assertThatIllegalStateException()
        .isThrownBy(() -> idx.set(1, bad))
        .withMessageContaining("server(s2)")
        .withMessageContaining(String.valueOf(bad));
    assertThat(idx.freeCounts()).containsExactly(4, 3);
    assertThat(idx.bestFit(3, ONE_TYPE, WorkerRole.BASE)).isEqualTo(1); // still indexed under 3
  }

  // s1 A100 8 (7 free), s2 A100 8 (3 free), s3 T4 4 (4 free), s4 A100 8 fenced (8 free), s5 A100
  // loaned 8 (5 free)
  @ParameterizedTest(name = "workers of {0} GPUs on {1}: {2}")
  @CsvSource({
    "1, BOTH,      19", // 7 + 3 + 4 + 5; the fenced s4 does not count
    "2, BOTH,       8", // 3 + 1 + 2 + 2
    "3, BOTH,       5", // 2 + 1 + 1 + 1
    "4, BOTH,       3", // 1 + 0 + 1 + 1
    "2, ONLY_A100,  6", // 3 + 1 + 2 (s1, s2, s5)
    "2, ONLY_T4,    2", // s3: 4 / 2
    "5, BOTH,       2", // s1 (7) and s5 (5)
    "8, BOTH,       0", // no open server has 8 free
  })
  void fitting_workers_sums_floor_of_free_over_gpus_across_open_servers_of_allowed_types(
      int gpus, String allowedName, int expected) {
    List<Server> servers =
        List.of(
            Server.training("s1", A100, 8),
            Server.training("s2", A100, 8),
            Server.training("s3", T4, 4),
            new Server("s4", A100, 8, Pool.TRAINING, false, true),
            Server.loaned("s5", A100, 8));
    FreeGpuIndex idx = index(servers, 7, 3, 4, 8, 5);
    boolean[] allowed =
        switch (allowedName) {
          case "BOTH" -> BOTH;
          case "ONLY_A100" -> ONLY_A100;
          case "ONLY_T4" -> ONLY_T4;
          default -> throw new IllegalArgumentException(allowedName);
        };
    assertThat(idx.fittingWorkers(gpus, allowed)).isEqualTo(expected);
  }

  @Test
  void max_free_is_the_most_free_GPUs_on_an_open_server_of_any_type_or_group() {
    List<Server> servers =
        List.of(
            Server.training("s1", A100, 8),
            Server.training("s2", T4, 4),
            new Server("s3", A100, 8, Pool.TRAINING, false, true),
            Server.loaned("s4", A100, 8));
    FreeGpuIndex idx = index(servers, 2, 3, 8, 1); // the fenced s3's 8 free are not offered
    assertThat(idx.maxFree()).isEqualTo(3);
    idx.set(0, 6);
    assertThat(idx.maxFree()).isEqualTo(6);
    idx.set(0, 0);
    idx.set(1, 0);
    idx.set(3, 0);
    assertThat(idx.maxFree()).isZero();
  }
}
