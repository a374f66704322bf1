package io.aryl.yarn.round;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.GpuType;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "PlannableNodes: the training pool's nodes of a known GPU type, by id, each with a position")
class PlannableNodesTest {
  private static final GpuType GPU = GpuType.of("gpu");
  private static final GpuType FAST = new GpuType("fast", 2.0);

  private static NodeView node(String id, String label) {
    return new NodeView(id, label, 8, List.of());
  }

  @Test
  @DisplayName(
      "training nodes of a known type only (no inference or unlabelled node), sorted by id; a node"
          + " without a type takes the default one")
  void positions() {
    List<NodeView> given =
        List.of(
            node("n3", "training"),
            node("inf1", "inference"),
            node("n1", "training"),
            new NodeView("n2", "training", 8, List.of(), FAST, null),
            new NodeView("n0", "training", 8, List.of(), null, "no gpu-type attribute"),
            node("am1", ""));

    PlannableNodes nodes = PlannableNodes.of(given, "training", GPU);

    assertThat(nodes.size()).isEqualTo(3);
    assertThat(List.of(nodes.id(0), nodes.id(1), nodes.id(2))).containsExactly("n1", "n2", "n3");
    assertThat(nodes.type(0)).isEqualTo(GPU);
    assertThat(nodes.type(1)).isEqualTo(FAST);
    assertThat(nodes.position("n3")).isEqualTo(2);
    assertThat(nodes.position("inf1")).isEqualTo(-1);
    assertThat(nodes.position("n0")).isEqualTo(-1);
    assertThat(nodes.positionOfGiven(0)).isEqualTo(2);
    assertThat(nodes.positionOfGiven(1)).isEqualTo(-1);
    assertThat(nodes.positionOfGiven(2)).isEqualTo(0);
    assertThat(nodes.positionOfGiven(4)).isEqualTo(-1);
    assertThat(nodes.position("am1")).as("the default partition: neither pool's").isEqualTo(-1);
    assertThat(nodes.positionOfGiven(5)).isEqualTo(-1);
  }

  @Test
  @DisplayName("a node given twice counts once, as its last view")
  void givenTwice() {
    PlannableNodes nodes =
        PlannableNodes.of(
            List.of(
                node("n1", "training"), new NodeView("n1", "training", 8, List.of(), FAST, null)),
            "training",
            GPU);

    assertThat(nodes.size()).isEqualTo(1);
    assertThat(nodes.positionOfGiven(0)).isEqualTo(-1);
    assertThat(nodes.positionOfGiven(1)).isZero();
    assertThat(nodes.type(0)).isEqualTo(FAST);
  }

  @Test
  @DisplayName(
      "it fits the same nodes in the same order, whatever runs on them; not a node joined, moved or resized")
  void fits() {
    List<NodeView> given = List.of(node("n1", "training"), node("n2", "training"));
    PlannableNodes nodes = PlannableNodes.of(given, "training", GPU);
    ContainerView c = new ContainerView("c1", "app1", 1, 2, false);

    assertThat(nodes.fits(given, "training", GPU)).isTrue();
    assertThat(
            nodes.fits(
                List.of(new NodeView("n1", "training", 8, List.of(c)), node("n2", "training")),
                "training",
                GPU))
        .isTrue();
    assertThat(nodes.fits(List.of(node("n2", "training"), node("n1", "training")), "training", GPU))
        .isFalse();
    assertThat(nodes.fits(List.of(node("n1", "training")), "training", GPU)).isFalse();
    assertThat(
            nodes.fits(List.of(node("n1", "training"), node("n2", "inference")), "training", GPU))
        .isFalse();
    assertThat(
            nodes.fits(
                List.of(node("n1", "training"), new NodeView("n2", "training", 4, List.of())),
                "training",
                GPU))
        .isFalse();
    assertThat(
            nodes.fits(
                List.of(
                    node("n1", "training"),
                    new NodeView("n2", "training", 8, List.of(), FAST, null)),
                "training",
                GPU))
        .isFalse();
    assertThat(nodes.fits(given, "training", FAST)).isFalse();
  }

  @Test
  @DisplayName(
      "a node's server is the very same while its free GPUs, loan and fence are, and a new one once not")
  void servers() {
    PlannableNodes nodes = PlannableNodes.of(List.of(node("n1", "training")), "training", GPU);

    Server first = nodes.server(0, 6, false, false);
    assertThat(first).isEqualTo(new Server("n1", GPU, 6, Pool.TRAINING, false, false));
    assertThat(nodes.server(0, 6, false, false)).isSameAs(first);
    assertThat(nodes.server(0, 5, false, false).gpus()).isEqualTo(5);
    assertThat(nodes.server(0, 5, true, false))
        .isEqualTo(new Server("n1", GPU, 5, Pool.INFERENCE, true, false));
    assertThat(nodes.server(0, 5, true, true).fenced()).isTrue();
  }
}
