package io.aryl.core.victim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.core.victim.VictimOrder.Candidate;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("VictimOrder: who loses workers first")
class VictimOrderTest {
  private static final double IDLE = Double.POSITIVE_INFINITY;

  @Nested
  @DisplayName("the chain: of two candidates, which goes first")
  class Chain {
    static Stream<Arguments> pairs() {
      return Stream.of(
          // Jobs preempted for another team's gang: cost, then the team's borrowing, then id.
          Arguments.of(
              "the cheaper job goes first, however little its team borrows",
              Candidate.job("a", 100, 0),
              Candidate.job("b", 200, 50),
              "a"),
          Arguments.of(
              "reclaim quota from the borrower: of two equally costly jobs, the team borrowing most's first",
              Candidate.job("a", 100, 10),
              Candidate.job("b", 100, 30),
              "b"),
          Arguments.of(
              "jobs equal in cost and borrowing: the lower id first",
              Candidate.job("b", 100, 10),
              Candidate.job("a", 100, 10),
              "a"),
          // Loaned servers Aryl returns: the cost added, then busy GPUs, then id.
          Arguments.of(
              "the server adding the least cost goes first, however busy",
              Candidate.server("a", 240, 8),
              Candidate.server("b", 480, 1),
              "a"),
          Arguments.of(
              "of two servers adding the same cost, the one with fewer busy GPUs",
              Candidate.server("a", 0, 4),
              Candidate.server("b", 0, 2),
              "b"),
          Arguments.of(
              "servers equal in cost and busy GPUs: the lower id first (as strings: i10 before i2)",
              Candidate.server("i2", 120, 2),
              Candidate.server("i10", 120, 2),
              "i10"),
          // Stock YARN: the newest first, then id.
          Arguments.of(
              "stock YARN: a server running nothing goes before any busy one",
              Candidate.stockYarnServer("a", 5_000),
              Candidate.stockYarnServer("b", IDLE),
              "b"),
          Arguments.of(
              "stock YARN: the server whose newest job started latest goes first",
              Candidate.stockYarnServer("a", 100),
              Candidate.stockYarnServer("b", 200),
              "b"),
          Arguments.of(
              "stock YARN: servers whose newest jobs started together go by id",
              Candidate.stockYarnServer("b", 100),
              Candidate.stockYarnServer("a", 100),
              "a"),
          // One chain: an earlier criterion outranks every later one.
          Arguments.of(
              "cost outranks the newest: a newer but costlier candidate goes second",
              new Candidate("old", 10, 0, 0, 100),
              new Candidate("new", 20, 0, 0, 200),
              "old"),
          Arguments.of(
              "borrowing outranks busy GPUs",
              new Candidate("a", 10, 5, 8, 0),
              new Candidate("b", 10, 1, 1, 0),
              "a"),
          Arguments.of(
              "busy GPUs outrank the newest",
              new Candidate("a", 10, 0, 1, 100),
              new Candidate("b", 10, 0, 2, 200),
              "a"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pairs")
    void goesFirst(String what, Candidate one, Candidate other, String first) {
      List<Candidate> sorted = new ArrayList<>(List.of(one, other));
      sorted.sort(VictimOrder.ORDER);
      assertThat(sorted.get(0).id()).isEqualTo(first);
      sorted = new ArrayList<>(List.of(other, one));
      sorted.sort(VictimOrder.ORDER);
      assertThat(sorted.get(0).id()).as("whichever is given first").isEqualTo(first);
    }

    @Test
    @DisplayName(
        "a candidate without a cost or a start time, or with negative GPUs, is refused, naming the values")
    void badCandidates() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Candidate.server("i1", Double.NaN, 2))
          .withMessageContaining("victim(i1)")
          .withMessageContaining("NaN GPU-s");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Candidate.stockYarnServer("i1", Double.NaN))
          .withMessageContaining("victim(i1)")
          .withMessageContaining("NaN s");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Candidate.server("i1", 10, -2))
          .withMessageContaining(
              "victim(i1).teamBorrowedGpus and .busyGpus must be >= 0, were 0 and -2");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Candidate.job(null, 10, 0))
          .withMessageContaining("victim.id");
    }
  }

  @ParameterizedTest(
      name = "team holding {0} GPUs, guaranteed {2}: a job of {1} GPUs may be taken: {3}")
  @DisplayName(
      "criterion 1, reclaim quota from the borrower: only what the victim's team borrowed comes back")
  @CsvSource({
    "12, 4, 8, true", // 4 borrowed: a 4-GPU job gives back exactly what was borrowed
    "12, 2, 8, true",
    "12, 6, 8, false", // would take 2 GPUs the team owns
    "8,  2, 8, false", // within its guarantee: nothing is borrowed
    "4,  4, 0, true", // a team without a guarantee borrows all it holds
  })
  void onlyBorrowedQuotaComesBack(int teamGpus, int victimGpus, int guarantee, boolean mayTake) {
    assertThat(VictimOrder.takesOnlyBorrowed(teamGpus, victimGpus, guarantee)).isEqualTo(mayTake);
  }

  @Nested
  @DisplayName("newestFirst: which workers of a job go")
  class NewestFirst {
    /** A worker container: its id and YARN sequence number. */
    record Worker(String id, long seq) {}

    static final Worker BASE_1 = new Worker("base-1", 10);
    static final Worker BASE_2 = new Worker("base-2", 11);
    static final Worker FLEX_1 = new Worker("flex-1", 40);
    static final Worker FLEX_2 = new Worker("flex-2", 52);
    static final List<Worker> JOB =
        List.of(FLEX_1, BASE_2, FLEX_2, BASE_1); // not in creation order

    static Stream<Arguments> shrinks() {
      return Stream.of(
          Arguments.of("the newest worker of a job goes first", 1, List.of(FLEX_2)),
          Arguments.of(
              "a flexible worker goes before any base worker: the two newest are the extras",
              2,
              List.of(FLEX_2, FLEX_1)),
          Arguments.of(
              "past its extras, the newest base worker", 3, List.of(FLEX_2, FLEX_1, BASE_2)),
          Arguments.of(
              "more asked than it runs: every worker, newest first",
              9,
              List.of(FLEX_2, FLEX_1, BASE_2, BASE_1)),
          Arguments.of("none asked: none", 0, List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shrinks")
    void takesTheNewest(String what, int count, List<Worker> expected) {
      assertThat(VictimOrder.newestFirst(JOB, Worker::seq, count))
          .containsExactlyElementsOf(expected);
    }

    @Test
    @DisplayName("workers with the same sequence number keep the order they were given in")
    void tiesKeepTheirOrder() {
      Worker a = new Worker("a", 7);
      Worker b = new Worker("b", 7);
      assertThat(VictimOrder.newestFirst(List.of(a, b), Worker::seq, 1)).containsExactly(a);
      assertThat(VictimOrder.newestFirst(List.of(b, a), Worker::seq, 1)).containsExactly(b);
    }

    @Test
    @DisplayName("a negative count is refused, naming it")
    void negativeCount() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> VictimOrder.newestFirst(JOB, Worker::seq, -1))
          .withMessageContaining("victims.count")
          .withMessageContaining("-1");
    }
  }

  @Nested
  @DisplayName("cheaper: of two plans that both make room")
  class Cheaper {
    /** A plan's cost, the number after its {@code =}. */
    private static double cost(String plan) {
      return Double.parseDouble(plan.substring(plan.indexOf('=') + 1));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
        nullValues = "none",
        value = {
          "the second only when strictly cheaper, first=30, second=20, second=20",
          "the first when the second costs more,  first=30, second=40, first=30",
          "on a tie the first (the simpler plan), first=30, second=30, first=30",
          "the second when there is no first,     none,     second=40, second=40",
          "the first when there is no second,     first=30, none,      first=30",
          "neither when there is none,            none,     none,      none",
        })
    void theCheaperPlan(String what, String first, String second, String expected) {
      assertThat(VictimOrder.cheaper(first, second, Cheaper::cost)).isEqualTo(expected);
    }
  }
}
