package io.aryl.yarn.round;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.core.model.Allocation;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("PlanBook: the promises of the latest round, as the allocation path consults them")
class PlanBookTest {
  /**
   * app-a: 2 workers on n1, 1 on n2; app-b: 1 on n1; app-c admitted with nothing (an empty target).
   */
  private static final PlanBook BOOK =
      new PlanBook(
          Map.of(
              "app-a", Allocation.of(Map.of("n1", 2, "n2", 1)),
              "app-b", Allocation.of("n1", 1),
              "app-c", Allocation.EMPTY),
          7);

  static Stream<Arguments> mayPlace() {
    return Stream.of(
        Arguments.of("app-a", "n1", 0, true),
        Arguments.of("app-a", "n1", 1, true),
        Arguments.of("app-a", "n1", 2, false),
        Arguments.of("app-a", "n1", 3, false),
        Arguments.of("app-a", "n2", 0, true),
        Arguments.of("app-a", "n2", 1, false),
        Arguments.of("app-a", "n3", 0, false),
        Arguments.of("app-b", "n1", 0, true),
        Arguments.of("app-b", "n2", 0, false),
        Arguments.of("app-c", "n1", 0, false),
        Arguments.of("app-unknown", "n1", 0, false));
  }

  @ParameterizedTest(name = "{0} holding {2} on {1}: {3}")
  @MethodSource("mayPlace")
  @DisplayName("mayPlace: one more worker only where the promise on that node is not yet filled")
  void mayPlaceOnlyBelowTheNodesPromise(String app, String node, int liveOnNode, boolean expected) {
    assertThat(BOOK.mayPlace(app, node, liveOnNode)).isEqualTo(expected);
  }

  static Stream<Arguments> outstanding() {
    return Stream.of(
        Arguments.of("app-a", 0, 3),
        Arguments.of("app-a", 2, 1),
        Arguments.of("app-a", 3, 0),
        Arguments.of("app-a", 5, 0),
        Arguments.of("app-b", 0, 1),
        Arguments.of("app-c", 0, 0),
        Arguments.of("app-unknown", 0, 0),
        Arguments.of("app-unknown", 4, 0));
  }

  @ParameterizedTest(name = "{0} holding {1}: {2} to start")
  @MethodSource("outstanding")
  @DisplayName("outstanding: workers still to start, never negative")
  void outstandingIsTheUnfilledTotal(String app, int live, int expected) {
    assertThat(BOOK.outstanding(app, live)).isEqualTo(expected);
  }

  @Test
  @DisplayName("promisedOn: the workers promised to each application on the node")
  void promisedOnByNode() {
    assertThat(BOOK.promisedOn("n1"))
        .containsExactlyInAnyOrderEntriesOf(Map.of("app-a", 2, "app-b", 1));
    assertThat(BOOK.promisedOn("n2")).containsExactlyInAnyOrderEntriesOf(Map.of("app-a", 1));
    assertThat(BOOK.promisedOn("n3")).isEmpty();
  }

  @Test
  @DisplayName(
      "knows which applications were admitted, an empty target included, and the round that wrote it")
  void admittedAndRound() {
    assertThat(BOOK.admitted("app-a")).isTrue();
    assertThat(BOOK.admitted("app-c")).isTrue();
    assertThat(BOOK.admitted("app-unknown")).isFalse();
    assertThat(BOOK.target("app-unknown")).isEqualTo(Allocation.EMPTY);
    assertThat(BOOK.target("app-a").totalWorkers()).isEqualTo(3);
    assertThat(BOOK.round()).isEqualTo(7);
    assertThat(BOOK.targets()).containsOnlyKeys("app-a", "app-b", "app-c");
  }

  @Test
  @DisplayName("the empty book promises nothing")
  void emptyBook() {
    assertThat(PlanBook.EMPTY.round()).isZero();
    assertThat(PlanBook.EMPTY.targets()).isEmpty();
    assertThat(PlanBook.EMPTY.admitted("app-a")).isFalse();
    assertThat(PlanBook.EMPTY.mayPlace("app-a", "n1", 0)).isFalse();
    assertThat(PlanBook.EMPTY.outstanding("app-a", 0)).isZero();
    assertThat(PlanBook.EMPTY.promisedOn("n1")).isEmpty();
  }

  @Test
  @DisplayName("is immutable: later changes to the caller's map do not reach it")
  void copiesItsInput() {
    Map<String, Allocation> targets = new HashMap<>(Map.of("app-a", Allocation.of("n1", 1)));
    PlanBook book = new PlanBook(targets, 1);
    targets.put("app-b", Allocation.of("n1", 4));
    targets.remove("app-a");
    assertThat(book.admitted("app-a")).isTrue();
    assertThat(book.admitted("app-b")).isFalse();
    assertThat(book.promisedOn("n1")).containsOnlyKeys("app-a");
  }

  @Test
  @DisplayName("is immutable: neither targets() nor promisedOn() lets a reader change the promises")
  void readersCannotChangeIt() {
    PlanBook book = new PlanBook(Map.of("app-a", Allocation.of("n1", 2)), 1);
    assertThatThrownBy(() -> book.targets().put("app-x", Allocation.of("n1", 1)))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> book.promisedOn("n1").put("app-x", 8))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(book.promisedOn("n1")).containsOnlyKeys("app-a");
    assertThat(book.mayPlace("app-x", "n1", 0)).isFalse();
  }
}
