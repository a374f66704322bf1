package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.am.GangFitCheck.Node;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "AmPartition: the AM goes where a NodeManager runs, or the job is refused saying what to set")
class AmPartitionTest {
  static final Node DEFAULT = new Node("", 0);
  static final Node TRAINING = new Node("training", 8);
  static final Node INFERENCE = new Node("inference", 8);

  static Stream<Arguments> chosen() {
    return Stream.of(
        Arguments.of("auto, a default-partition node runs", "auto", List.of(DEFAULT, TRAINING), ""),
        Arguments.of(
            "auto, every node labelled: the workers' partition",
            "auto",
            List.of(TRAINING, INFERENCE),
            "training"),
        Arguments.of("AUTO is auto", "AUTO", List.of(TRAINING), "training"),
        Arguments.of("null is auto", null, List.of(TRAINING), "training"),
        Arguments.of("'' forces the default partition", "", List.of(DEFAULT, TRAINING), ""),
        Arguments.of(
            "a label forces it, though the default partition runs",
            "training",
            List.of(DEFAULT, TRAINING),
            "training"),
        Arguments.of(
            "any label a node has, not only the workers'",
            " inference ",
            List.of(TRAINING, INFERENCE),
            "inference"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("chosen")
  @DisplayName("the AM's partition")
  void chooses(String description, String asked, List<Node> nodes, String expected) {
    assertThat(AmPartition.choose(asked, "training", nodes)).isEqualTo(expected);
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of(
            "'' on a cluster whose every node is labelled",
            "",
            "training",
            List.of(TRAINING, INFERENCE),
            "--am-node-label '': no NodeManager runs in the default partition (NodeManagers run in"
                + " partition 'inference', partition 'training'), so the job's ApplicationMaster"
                + " would never start; use --am-node-label auto (or training) to run it in the"
                + " workers' partition, or set aryl.am.node-label-expression=auto"),
        Arguments.of(
            "a label no running node has (a typo)",
            "trainng",
            "training",
            List.of(DEFAULT, TRAINING),
            "--am-node-label trainng: no NodeManager runs in partition 'trainng' (NodeManagers run"
                + " in partition 'training', the default partition), so the job's"
                + " ApplicationMaster would never start; use --am-node-label auto (or training) to"
                + " run it in the workers' partition, or set aryl.am.node-label-expression=auto"),
        Arguments.of(
            "auto, neither the default partition nor the workers' has a node",
            "auto",
            "training",
            List.of(INFERENCE),
            "--am-node-label auto: no NodeManager runs in partition 'training' nor in the default"
                + " partition (NodeManagers run in partition 'inference'), so the job's"
                + " ApplicationMaster would never start; use --am-node-label with a partition"
                + " where a NodeManager runs"),
        Arguments.of(
            "auto, a queue on the default partition and no node there",
            "auto",
            "",
            List.of(TRAINING),
            "--am-node-label auto: no NodeManager runs in the default partition (NodeManagers run"
                + " in partition 'training'), so the job's ApplicationMaster would never start;"
                + " use --am-node-label with a partition where a NodeManager runs"),
        Arguments.of(
            "no NodeManager at all",
            "auto",
            "training",
            List.of(),
            "--am-node-label auto: no NodeManager runs in partition 'training' nor in the default"
                + " partition (none runs at all), so the job's ApplicationMaster would never start;"
                + " start a NodeManager, then submit again"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  @DisplayName("a partition without a running NodeManager is refused")
  void refuses(String description, String asked, String workers, List<Node> nodes, String message) {
    assertThatThrownBy(() -> AmPartition.choose(asked, workers, nodes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }
}
