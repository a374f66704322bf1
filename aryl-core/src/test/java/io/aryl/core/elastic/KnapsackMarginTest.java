package io.aryl.core.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The margin of a phase-2 solution: what GPUs handed back are worth, and what taking GPUs costs.
 */
@DisplayName("KnapsackMargin")
class KnapsackMarginTest {
  private static final double EPS = 1e-9;

  // Job 0: 1-GPU workers, got 1 of 3 extras; increments worth 10, 6, 2 per worker.
  // Job 1: 2-GPU workers, got 2 of 2 extras; increments worth 8 and 4 per worker (4 and 2 per GPU).
  private static final List<KnapsackGroup> GROUPS =
      List.of(
          new KnapsackGroup(1, new double[] {0, 10, 16, 18}),
          new KnapsackGroup(2, new double[] {0, 8, 12}));
  private static final int[] CHOSEN = {1, 2};
  private static final int[] OWNERS = {0, 1};

  private static KnapsackMargin margin(int idle) {
    return new KnapsackMargin(GROUPS, CHOSEN, OWNERS, idle);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void gpus_handed_back_are_worth_the_best_increments_they_fit(
      String scenario, int gpus, int leaving, double expected) {
    assertThat(margin(0).valueOfReturned(gpus, leaving, false)).isCloseTo(expected, within(EPS));
  }

  static Stream<Arguments> gpus_handed_back_are_worth_the_best_increments_they_fit() {
    return Stream.of(
        Arguments.of("one GPU: job 0's next worker", 1, -1, 6.0),
        Arguments.of("two GPUs: job 0's next two workers", 2, -1, 8.0),
        Arguments.of("more GPUs than anyone wants: only what is wanted", 10, -1, 8.0),
        Arguments.of("no GPU: nothing", 0, -1, 0.0),
        Arguments.of("the job handing them back does not count its own wants", 2, 0, 0.0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void taking_gpus_costs_idle_ones_nothing_then_the_cheapest_increments_held(
      String scenario, int idle, int gpus, double expected) {
    assertThat(margin(idle).costOfTaking(gpus, false)).isCloseTo(expected, within(EPS));
  }

  static Stream<Arguments> taking_gpus_costs_idle_ones_nothing_then_the_cheapest_increments_held() {
    return Stream.of(
        Arguments.of("idle GPUs are free", 3, 3, 0.0),
        Arguments.of("past the idle ones: job 1's last worker (2 per GPU)", 0, 2, 4.0),
        Arguments.of("a whole increment goes even for one GPU", 0, 1, 4.0),
        Arguments.of(
            "then job 1's first worker (4 per GPU) before job 0's (10 per GPU)", 0, 4, 12.0),
        Arguments.of("every held GPU", 0, 5, 22.0),
        Arguments.of("idle first, then increments", 1, 3, 4.0));
  }

  @Test
  void taking_more_than_the_pool_holds_costs_infinitely_much() {
    assertThat(margin(1).costOfTaking(7, false)).isInfinite();
  }

  @Test
  void a_committed_return_is_then_held_and_can_be_taken_back() {
    KnapsackMargin m = margin(0);
    assertThat(m.valueOfReturned(1, -1, true)).isCloseTo(6.0, within(EPS));
    // Job 0's second worker is now held at 6 per GPU; the next wanted is its third, at 2.
    assertThat(m.valueOfReturned(1, -1, false)).isCloseTo(2.0, within(EPS));
    assertThat(m.costOfTaking(5, false))
        .as("held: 2+2 (job 1), 4+4 (job 1), 6, 10 -> cheapest 5 GPUs")
        .isCloseTo(4 + 8 + 6, within(EPS));
  }

  @Test
  void a_committed_take_frees_wants_and_keeps_the_change_of_a_whole_increment_idle() {
    KnapsackMargin m = margin(0);
    assertThat(m.costOfTaking(1, true))
        .isCloseTo(4.0, within(EPS)); // job 1's last 2-GPU worker goes
    assertThat(m.costOfTaking(1, false)).as("one GPU of it was left over, idle").isZero();
    assertThat(m.valueOfReturned(4, -1, false))
        .as("job 0's two workers, and job 1 wants its worker back")
        .isCloseTo(6 + 2 + 4, within(EPS));
  }

  @Test
  void a_job_that_left_neither_wants_nor_holds() {
    KnapsackMargin m = margin(0);
    m.remove(0);
    assertThat(m.valueOfReturned(3, -1, false)).isZero();
    assertThat(m.costOfTaking(4, false)).isCloseTo(12.0, within(EPS));
    assertThat(m.costOfTaking(5, false)).as("job 0's worker is gone with it").isInfinite();
  }

  @Test
  void mismatched_inputs_are_refused_naming_the_sizes() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new KnapsackMargin(GROUPS, new int[] {1}, OWNERS, 0))
        .withMessageContaining("2 groups, 1 choices, 2 owners");
  }
}
