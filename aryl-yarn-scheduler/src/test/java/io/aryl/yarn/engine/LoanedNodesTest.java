package io.aryl.yarn.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.state.Owners;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("LoanedNodes: the inference nodes a round sees in the training pool")
class LoanedNodesTest {
  private final InferenceOwners owners = new InferenceOwners("inference", null);
  private final LoanedNodes loaned = new LoanedNodes("training", owners);

  private static NodeView view(String id, String label, int gpus) {
    return new NodeView(id, label, gpus, List.of());
  }

  @Test
  @DisplayName("a node seen in the inference pool, then in the training pool, is on loan with its GPUs")
  void seenThenLent() {
    NodeView own = view("t1", "training", 8);
    loaned.update(List.of(view("i1", "inference", 4), own));
    assertThat(loaned.nodes()).isZero();

    loaned.update(List.of(view("i1", "training", 4), own));

    assertThat(loaned.nodes()).isEqualTo(1);
    assertThat(loaned.gpus()).isEqualTo(4);
  }

  @Test
  @DisplayName("the same views count again once the owners learnt something (here, restored from the store)")
  void ownersChangedUnderTheSameViews() {
    List<NodeView> views = List.of(view("i1", "training", 4), view("t1", "training", 8));
    loaned.update(views);
    assertThat(loaned.nodes()).isZero();

    owners.restore(new Owners(List.of("i1")));
    loaned.update(views);

    assertThat(loaned.nodes()).isEqualTo(1);
    assertThat(loaned.gpus()).isEqualTo(4);
  }

  @Test
  @DisplayName("a node that left is counted no more")
  void nodeLeft() {
    NodeView lent = view("i1", "training", 4);
    owners.observe("i1", "inference");
    loaned.update(List.of(lent, view("t1", "training", 8)));
    assertThat(loaned.nodes()).isEqualTo(1);

    loaned.update(List.of(view("t1", "training", 8)));

    assertThat(loaned.nodes()).isZero();
  }
}
