package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.am.GangFitCheck.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "GangFitCheck: a base gang must fit the nodes it can ever run on, workers whole on nodes")
class GangFitCheckTest {
  /** Four training nodes of 8 GPUs, two inference nodes of 8, one default-partition node of 8. */
  static final List<Node> CLUSTER = nodes(4, 8, "training", 2, 8, "inference", 1, 8, "");

  static List<Node> nodes(Object... groups) {
    List<Node> out = new ArrayList<>();
    for (int i = 0; i < groups.length; i += 3) {
      for (int n = 0; n < (int) groups[i]; n++) {
        out.add(new Node((String) groups[i + 2], (int) groups[i + 1]));
      }
    }
    return out;
  }

  static Stream<Arguments> fitting() {
    return Stream.of(
        Arguments.of("4 x 8 GPUs on 4 nodes of 8", 4, 8, CLUSTER),
        Arguments.of("32 x 1 GPU on 4 nodes of 8", 32, 1, CLUSTER),
        Arguments.of("8 x 3 GPUs: 2 per node of 8", 8, 3, CLUSTER),
        Arguments.of(
            "3 x 5 GPUs on nodes of 5, 6 and 7: one each",
            3,
            5,
            nodes(1, 5, "training", 1, 6, "training", 1, 7, "training")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fitting")
  @DisplayName("a gang the pool holds now passes without a word")
  void fits(String description, int min, int gpus, List<Node> nodes) {
    assertThat(GangFitCheck.check(min, gpus, "training", "inference", nodes)).isEmpty();
  }

  static Stream<Arguments> onlyWithLoans() {
    return Stream.of(
        Arguments.of(
            5,
            8,
            CLUSTER,
            "--min-workers 5 needs 5 workers of 8 GPUs at once; the training pool holds at"
                + " most 4 (4 nodes now), 6 with every inference node lent (2 nodes now): the job waits until inference"
                + " lends nodes"),
        Arguments.of(
            6,
            4,
            nodes(1, 8, "training", 1, 16, "inference"),
            "--min-workers 6 needs 6 workers of 4 GPUs"
                + " at once; the training pool holds at most 2 (1 node now), 6 with every inference node lent (1 node"
                + " now): the job waits until inference lends nodes"));
  }

  @ParameterizedTest(name = "--min-workers {0} --gpus {1}")
  @MethodSource("onlyWithLoans")
  @DisplayName(
      "a gang only lent nodes would hold gets a warning saying what it needs and what the pool has")
  void warns(int min, int gpus, List<Node> nodes, String warning) {
    assertThat(GangFitCheck.check(min, gpus, "training", "inference", nodes)).contains(warning);
  }

  static Stream<Arguments> never() {
    return Stream.of(
        Arguments.of(
            "more than training and inference together",
            9,
            8,
            CLUSTER,
            "--min-workers 9 needs 9 workers of"
                + " 8 GPUs at once; the training pool holds at most 4 (4 nodes now), 6 with every inference node lent"
                + " (2 nodes now)"),
        Arguments.of(
            "free GPUs of a node do not add up across nodes",
            4,
            6,
            nodes(3, 8, "training"),
            "--min-workers 4 needs 4 workers of 6 GPUs at once; the training pool holds at most 3 (3 nodes now)"),
        Arguments.of(
            "one worker wider than every node",
            1,
            16,
            CLUSTER,
            "--min-workers 1 needs 1 worker of 16 GPUs"
                + " at once; the training pool holds at most 0 (4 nodes now), 0 with every inference node lent"
                + " (2 nodes now)"),
        Arguments.of(
            "no running node in the pool",
            1,
            1,
            nodes(1, 8, ""),
            "--min-workers 1 needs 1 worker of 1 GPU at once; the training pool holds at most 0 (0 nodes now)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("never")
  @DisplayName(
      "a gang not even every lendable node would hold is refused, saying what it needs and what there is")
  void refused(String description, int min, int gpus, List<Node> nodes, String message) {
    assertThatThrownBy(() -> GangFitCheck.check(min, gpus, "training", "inference", nodes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  @DisplayName(
      "a queue on the default partition counts the unlabelled nodes, and inference's as lendable")
  void defaultPartition() {
    assertThatThrownBy(() -> GangFitCheck.check(4, 8, "", "inference", CLUSTER))
        .hasMessage(
            "--min-workers 4 needs 4 workers of 8 GPUs at once; the default partition holds at most 1"
                + " (1 node now), 3 with every inference node lent (2 nodes now)");
  }

  @Test
  @DisplayName("a queue on the inference partition itself has nothing to borrow")
  void inferenceQueue() {
    assertThatThrownBy(() -> GangFitCheck.check(3, 8, "inference", "inference", CLUSTER))
        .hasMessage(
            "--min-workers 3 needs 3 workers of 8 GPUs at once; the inference pool holds at most 2"
                + " (2 nodes now)");
  }
}
