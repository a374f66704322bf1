package io.aryl.core.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.aryl.core.model.GpuType;
import io.aryl.core.model.Server;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("GpuBudget: spare and idle GPUs, gangs all or nothing")
class GpuBudgetTest {
  static final GpuType A100 = GpuType.of("A100", 1.0);
  static final GpuType T4 = GpuType.of("T4", 0.5);
  static final boolean[] ANY = {true};

  /** Own A100 servers s1, s2, ... of 8 GPUs each. */
  static ServerTable eightGpuServers(int n) {
    return new ServerTable(
        IntStream.rangeClosed(1, n).mapToObj(i -> Server.training("s" + i, A100, 8)).toList());
  }

  static int[] spares(GpuBudget b) {
    return IntStream.range(0, b.table().size()).map(b::spare).toArray();
  }

  static int[] idles(GpuBudget b) {
    return IntStream.range(0, b.table().size()).map(b::idle).toArray();
  }

  @Test
  void idle_is_spare_minus_flexible() {
    GpuBudget b = new GpuBudget(eightGpuServers(3), new int[] {8, 6, 3}, new int[] {2, 6, 0});
    assertThat(spares(b)).containsExactly(8, 6, 3);
    assertThat(idles(b)).containsExactly(6, 0, 3);
  }

  @Test
  void
      a_gang_that_fits_on_idle_GPUs_goes_there_even_where_spare_best_fit_would_pick_another_server() {
    // s1: spare 4, all 4 flexible (idle 0); s2: spare 6, none flexible (idle 6).
    // Best fit on spare GPUs would pick s1 (4 < 6) and shrink an elastic job; on idle GPUs only s2
    // has room.
    GpuBudget b = new GpuBudget(eightGpuServers(2), new int[] {4, 6}, new int[] {4, 0});

    assertThat(b.placeGang(4, 1, ANY, WorkerRole.BASE)).containsExactly(1);
    assertThat(spares(b)).containsExactly(4, 2);
    assertThat(idles(b)).containsExactly(0, 2); // s1's flexible GPUs are untouched
  }

  @Test
  void
      a_gang_that_does_not_fit_on_idle_GPUs_is_placed_whole_on_spare_GPUs_displacing_flexible_ones() {
    // Same budget; a gang of 2 x 4 GPUs: idle holds only one worker (s2), so the whole gang goes by
    // spare best fit:
    // s1 (spare 4) first, displacing its 4 flexible GPUs, then s2 (spare 6).
    GpuBudget b = new GpuBudget(eightGpuServers(2), new int[] {4, 6}, new int[] {4, 0});

    assertThat(b.placeGang(4, 2, ANY, WorkerRole.BASE)).containsExactly(0, 1);
    assertThat(spares(b)).containsExactly(0, 2);
    assertThat(idles(b)).containsExactly(0, 2);
  }

  @Test
  void a_gang_that_does_not_fit_leaves_spare_and_idle_of_every_server_exactly_as_before() {
    // spare [8, 6, 3], flexible [2, 6, 0], idle [6, 0, 3]. A gang of 4 x 4 GPUs: spare holds 2 + 1
    // + 0 = 3 workers.
    // Both attempts take some GPUs before failing (idle: one worker on s1; spare: s2, then s1
    // twice).
    GpuBudget b = new GpuBudget(eightGpuServers(3), new int[] {8, 6, 3}, new int[] {2, 6, 0});

    assertThat(b.placeGang(4, 4, ANY, WorkerRole.BASE)).isNull();
    assertThat(spares(b)).containsExactly(8, 6, 3);
    assertThat(idles(b)).containsExactly(6, 0, 3); // so flexible is [2, 6, 0] again as well

    // and the indexes were restored too: the next gang is placed as on a fresh budget
    GpuBudget fresh = new GpuBudget(eightGpuServers(3), new int[] {8, 6, 3}, new int[] {2, 6, 0});
    assertThat(b.placeGang(4, 3, ANY, WorkerRole.BASE))
        .containsExactly(fresh.placeGang(4, 3, ANY, WorkerRole.BASE));
    assertThat(spares(b)).containsExactly(spares(fresh));
    assertThat(idles(b)).containsExactly(idles(fresh));
  }

  @Test
  void a_gang_that_fits_only_on_types_it_may_not_use_gets_nothing_and_changes_nothing() {
    // s1 A100 with 8 spare, s2 T4 with 2 spare; a T4-only gang of 2 x 2 GPUs does not fit.
    ServerTable table =
        new ServerTable(List.of(Server.training("s1", A100, 8), Server.training("s2", T4, 8)));
    GpuBudget b = new GpuBudget(table, new int[] {8, 2}, new int[] {0, 1});

    assertThat(b.placeGang(2, 2, new boolean[] {false, true}, WorkerRole.BASE)).isNull();
    assertThat(spares(b)).containsExactly(8, 2);
    assertThat(idles(b)).containsExactly(8, 1);
  }

  @Test
  void gangs_follow_the_role_preference_for_loaned_or_own_servers() {
    // "l" (index 0) is loaned, "o" (index 1) own, both fully spare.
    ServerTable table =
        new ServerTable(List.of(Server.loaned("l", A100, 8), Server.training("o", A100, 8)));
    GpuBudget b = new GpuBudget(table, new int[] {8, 8}, new int[] {0, 0});

    assertThat(b.placeGang(2, 2, ANY, WorkerRole.BASE)).containsExactly(1, 1);
    assertThat(b.placeGang(2, 2, ANY, WorkerRole.FLEXIBLE)).containsExactly(0, 0);
    assertThat(spares(b)).containsExactly(4, 4);
  }

  // One 8-GPU server with spare 6, of which 4 flexible (idle 2).
  @ParameterizedTest(name = "take {0}: spare {1}, idle {2}, flexible left {3}")
  @CsvSource({
    "0, 6, 2, 4",
    "1, 5, 1, 4", // idle GPUs go first
    "2, 4, 0, 4", // all idle GPUs, no flexible one
    "3, 3, 0, 3", // one flexible GPU displaced
    "6, 0, 0, 0", // every flexible GPU displaced
  })
  void take_displaces_flexible_GPUs_only_as_far_as_needed(
      int gpus, int spare, int idle, int flexibleLeft) {
    GpuBudget b = new GpuBudget(eightGpuServers(1), new int[] {6}, new int[] {4});
    b.take(0, gpus);
    assertThat(b.spare(0)).isEqualTo(spare);
    assertThat(b.idle(0)).isEqualTo(idle);
    // flexible is not exposed, but idle = spare - flexible shows what is left of it
    assertThat(b.spare(0) - b.idle(0)).isEqualTo(flexibleLeft);
  }

  @Test
  void take_refuses_more_than_the_spare_GPUs_naming_the_server_and_changes_nothing() {
    GpuBudget b = new GpuBudget(eightGpuServers(2), new int[] {8, 6}, new int[] {0, 4});
    assertThatIllegalStateException()
        .isThrownBy(() -> b.take(1, 7))
        .withMessageContaining("server(s2) has 6 spare GPUs, asked 7");
    assertThat(spares(b)).containsExactly(8, 6);
    assertThat(idles(b)).containsExactly(8, 2);
  }

  @Test
  void release_undoes_a_hold_on_a_server_without_flexible_workers() {
    GpuBudget b = new GpuBudget(eightGpuServers(2), new int[] {5, 8}, new int[] {0, 0});
    b.take(0, 5); // hold every spare GPU of s1
    assertThat(b.placeGang(1, 1, ANY, WorkerRole.BASE)).containsExactly(1); // s1 is out of reach
    b.release(1, 1); // give that worker's GPU back too

    b.release(0, 5);
    assertThat(spares(b)).containsExactly(5, 8);
    assertThat(idles(b)).containsExactly(5, 8);
    assertThat(b.placeGang(5, 1, ANY, WorkerRole.BASE))
        .containsExactly(0); // s1 (5) is the best fit again
  }

  @Test
  void release_gives_held_GPUs_back_as_idle_ones_even_where_the_hold_displaced_flexible_GPUs() {
    // spare 6, flexible 4: holding all 6 displaces the 4 flexible GPUs; they come back idle.
    GpuBudget b = new GpuBudget(eightGpuServers(1), new int[] {6}, new int[] {4});
    b.take(0, 6);
    b.release(0, 6);
    assertThat(b.spare(0)).isEqualTo(6);
    assertThat(b.idle(0)).isEqualTo(6);
  }

  @ParameterizedTest(name = "release {1} on a server with spare {0} of 8 is refused")
  @CsvSource({"8, 1", "5, 4", "5, -1"})
  void release_refuses_more_than_the_server_has_or_a_negative_count(int spare, int gpus) {
    GpuBudget b = new GpuBudget(eightGpuServers(1), new int[] {spare}, new int[] {0});
    assertThatIllegalStateException()
        .isThrownBy(() -> b.release(0, gpus))
        .withMessageContaining("server(s1) cannot get back " + gpus + " GPUs");
    assertThat(b.spare(0)).isEqualTo(spare);
  }

  @Test
  void a_copy_is_independent_of_the_original_in_both_directions() {
    GpuBudget original = new GpuBudget(eightGpuServers(2), new int[] {8, 6}, new int[] {2, 6});
    GpuBudget copy = original.copy();
    assertThat(spares(copy)).containsExactly(8, 6);
    assertThat(idles(copy)).containsExactly(6, 0); // flexible is copied too
    assertThat(copy.table()).isSameAs(original.table());

    copy.placeGang(
        4, 2, ANY, WorkerRole.BASE); // idle: s1 holds 6 / 4 = 1 worker only, so spare: s2 then s1
    assertThat(spares(copy)).containsExactly(4, 2);
    assertThat(spares(original)).containsExactly(8, 6);
    assertThat(idles(original)).containsExactly(6, 0);

    original.take(0, 8);
    assertThat(spares(copy)).containsExactly(4, 2);
    assertThat(original.placeGang(4, 1, ANY, WorkerRole.BASE)).containsExactly(1);
    assertThat(copy.placeGang(4, 1, ANY, WorkerRole.BASE)).containsExactly(0); // s1 (4) in the copy
  }

  @Test
  void refuses_more_flexible_than_spare_GPUs_naming_the_server() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new GpuBudget(eightGpuServers(2), new int[] {8, 4}, new int[] {0, 5}))
        .withMessageContaining("server(s2) has 5 flexible GPUs but only 4 spare");
  }

  @Test
  void a_preempted_jobs_base_and_flexible_GPUs_become_idle_and_a_budget_restores_from_a_copy() {
    // s1: 2 base GPUs of other jobs (spare 6), 4 of them flexible (idle 2).
    GpuBudget b = new GpuBudget(eightGpuServers(1), new int[] {6}, new int[] {4});
    GpuBudget before = b.copy();
    b.vacate(0, 2, 3); // a job with 2 base GPUs and 3 flexible ones there is preempted
    assertThat(spares(b)).containsExactly(8);
    assertThat(idles(b)).containsExactly(7);
    assertThatIllegalStateException()
        .isThrownBy(() -> b.vacate(0, 1, 0))
        .withMessageContaining("server(s1) cannot get back 1 base GPUs");
    b.restoreFrom(before);
    assertThat(spares(b)).containsExactly(6);
    assertThat(idles(b)).containsExactly(2);
    assertThatIllegalArgumentException()
        .isThrownBy(
            () -> b.restoreFrom(new GpuBudget(eightGpuServers(1), new int[] {8}, new int[1])))
        .withMessageContaining("different server tables");
  }

  @Test
  void held_flexible_GPUs_take_no_gang_and_come_back_flexible() {
    GpuBudget b = new GpuBudget(eightGpuServers(1), new int[] {6}, new int[] {4}); // idle 2
    assertThat(b.holdFlexible(0, 4)).isEqualTo(4);
    assertThat(spares(b)).containsExactly(2);
    assertThat(idles(b)).containsExactly(2);
    assertThat(b.placeGang(1, 3, ANY, WorkerRole.BASE)).isNull();
    b.unholdFlexible(0, 4, 4);
    assertThat(spares(b)).containsExactly(6);
    assertThat(idles(b)).containsExactly(2);
    assertThat(b.holdFlexible(0, 5)).as("4 flexible and 1 idle").isEqualTo(4);
    assertThat(idles(b)).containsExactly(1);
    assertThatIllegalStateException().isThrownBy(() -> b.holdFlexible(0, 2));
  }
}
