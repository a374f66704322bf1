package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.IteratorSelector;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.MockSchedulableEntity;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "PlanAwareOrderingPolicy: FIFO, narrowed to the applications that have something to be given")
class PlanAwareOrderingTest {
  private static PlanAwareOrdering<MockSchedulableEntity> policy(String... ids) {
    PlanAwareOrdering<MockSchedulableEntity> p = new PlanAwareOrdering<>();
    long serial = 0;
    for (String id : ids) {
      MockSchedulableEntity e = new MockSchedulableEntity();
      e.setId(id);
      e.setSerial(serial++);
      p.addSchedulableEntity(e);
    }
    return p;
  }

  private static List<String> order(PlanAwareOrdering<MockSchedulableEntity> p) {
    List<String> out = new ArrayList<>();
    p.getAssignmentIterator(new IteratorSelector()).forEachRemaining(e -> out.add(e.getId()));
    return out;
  }

  @Test
  @DisplayName("outside a node heartbeat, with no scheduler's filter, it is plain FIFO")
  void fifoOutsideHeartbeat() {
    assertThat(order(policy("a", "b", "c"))).containsExactly("a", "b", "c");
  }

  @Test
  @DisplayName("during a heartbeat only offered applications are visited, still in FIFO order")
  void filtersDuringHeartbeat() {
    var p = policy("a", "b", "c", "d");
    List<String> seen = new ArrayList<>();
    PlanAwareOrdering.serving(
        e -> Set.of("b", "d").contains(e.getId()), () -> seen.addAll(order(p)));
    assertThat(seen).containsExactly("b", "d");
    assertThat(order(p))
        .as("the filter ends with the heartbeat")
        .containsExactly("a", "b", "c", "d");
  }

  @Test
  @DisplayName("a heartbeat offering nothing visits nothing")
  void nothingOffered() {
    var p = policy("a", "b");
    List<String> seen = new ArrayList<>();
    PlanAwareOrdering.serving(e -> false, () -> seen.addAll(order(p)));
    assertThat(seen).isEmpty();
  }

  @Test
  @DisplayName(
      "outside a heartbeat (the asynchronous scheduling thread) its scheduler's filter applies, in FIFO order")
  void filtersOutsideHeartbeat() {
    var p = policy("a", "b", "c", "d");
    p.offerOutsideHeartbeats(e -> !e.getId().equals("b"));
    assertThat(order(p)).containsExactly("a", "c", "d");
  }

  @Test
  @DisplayName("during a heartbeat the node's filter wins over the one outside heartbeats")
  void heartbeatFilterWins() {
    var p = policy("a", "b", "c");
    p.offerOutsideHeartbeats(e -> e.getId().equals("a"));
    List<String> seen = new ArrayList<>();
    PlanAwareOrdering.serving(e -> e.getId().equals("c"), () -> seen.addAll(order(p)));
    assertThat(seen).containsExactly("c");
  }

  @Test
  @DisplayName(
      "an allocation on one node inside a heartbeat offers its own applications, and the heartbeat's after it")
  void nested() {
    var p = policy("a", "b", "c");
    List<String> inner = new ArrayList<>();
    List<String> outerAfter = new ArrayList<>();
    String result =
        PlanAwareOrdering.serving(
            e -> e.getId().equals("a"),
            () -> {
              inner.addAll(PlanAwareOrdering.serving(e -> e.getId().equals("c"), () -> order(p)));
              outerAfter.addAll(order(p));
              return "done";
            });
    assertThat(result).isEqualTo("done");
    assertThat(inner).containsExactly("c");
    assertThat(outerAfter).containsExactly("a");
    assertThat(order(p)).containsExactly("a", "b", "c");
  }
}
