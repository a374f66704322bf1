package io.aryl.yarn.round;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.core.model.GpuType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("GpuLedger: a round's capacity and used GPUs per node it plans on")
class GpuLedgerTest {
  private static final PlannableNodes NODES =
      PlannableNodes.of(
          List.of(
              new NodeView("n2", "training", 8, List.of()),
              new NodeView("n1", "training", 8, List.of()),
              new NodeView("i1", "inference", 8, List.of())),
          "training",
          GpuType.of("gpu"));

  @Test
  @DisplayName("capacity and used GPUs add up per node, by name or by position")
  void accounts() {
    GpuLedger gpus = new GpuLedger(NODES);
    gpus.setCapacityAt(NODES.position("n1"), 8);
    gpus.setCapacityAt(NODES.position("n2"), 6);
    gpus.addCapacity("n2", -2);
    gpus.addUsed("n2", 3);
    gpus.addUsed("n2", -1);

    assertThat(gpus.capacity("n1")).isEqualTo(8);
    assertThat(gpus.capacity("n2")).isEqualTo(4);
    assertThat(gpus.capacityAt(NODES.position("n2"))).isEqualTo(4);
    assertThat(gpus.used("n2")).isEqualTo(2);
    assertThat(gpus.used("n1")).isZero();
    assertThat(gpus.largestCapacity()).isEqualTo(8);
  }

  @Test
  @DisplayName(
      "GPUs being drained become a promise's room once taken, once only, and are named per node")
  void roomFromDrains() {
    GpuLedger gpus = new GpuLedger(NODES);
    int n1 = NODES.position("n1");
    gpus.setCapacityAt(n1, 4);
    gpus.addLeavingAt(n1, 3);
    gpus.addUsed("n1", 5);

    assertThat(gpus.free("n1")).isZero();
    gpus.takeFromDrains("n1", 2);

    assertThat(gpus.capacity("n1")).isEqualTo(6);
    assertThat(gpus.free("n1")).isEqualTo(1);
    assertThat(gpus.leaving("n1")).isEqualTo(1);
    assertThat(gpus.roomFromDrains()).containsExactly(Map.entry("n1", 2));
    assertThatThrownBy(() -> gpus.takeFromDrains("n1", 2))
        .hasMessageContaining("n1")
        .hasMessageContaining("1 GPUs being drained");
    assertThat(gpus.leaving("i1")).isZero();
  }

  @Test
  @DisplayName("a node not planned on is not in it: it uses nothing, and has no capacity to change")
  void nodesNotPlannedOn() {
    GpuLedger gpus = new GpuLedger(NODES);

    assertThat(gpus.plans("i1")).isFalse();
    assertThat(gpus.plans("n1")).isTrue();
    assertThat(gpus.used("i1")).isZero();
    assertThatThrownBy(() -> gpus.addCapacity("i1", 1)).hasMessageContaining("i1");
    assertThat(
            new GpuLedger(PlannableNodes.of(List.of(), "training", GpuType.of("gpu")))
                .largestCapacity())
        .isZero();
  }
}
