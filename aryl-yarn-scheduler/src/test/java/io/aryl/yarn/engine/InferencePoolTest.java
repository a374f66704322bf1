package io.aryl.yarn.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.state.InferenceNodes;
import io.aryl.yarn.state.InferenceNodes.Place;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "InferencePool: the inference nodes and where each one is, written by the scheduler alone")
class InferencePoolTest {
  private final InferencePool pool = new InferencePool("inference", "training", null);

  private static NodeView view(String id, String label, int gpus) {
    return new NodeView(id, label, gpus, List.of());
  }

  @Test
  @DisplayName(
      "a node seen labelled inference joins the pool at home, and stays inference's when it is lent")
  void seenOnceOwnedForGood() {
    pool.observe(List.of(view("i1", "inference", 4), view("t1", "training", 8)));
    assertThat(pool.place("i1")).isEqualTo(Place.HOME);
    assertThat(pool.owns("t1")).as("training's own").isFalse();
    pool.lend("i1");
    pool.observe(List.of(view("i1", "training", 4), view("t1", "training", 8)));
    assertThat(pool.place("i1")).isEqualTo(Place.LENT);
    assertThat(pool.owns("i1")).isTrue();
    assertThat(pool.lentNodes()).isEqualTo(1);
    assertThat(pool.lentGpus()).isEqualTo(4);
  }

  @Test
  @DisplayName(
      "a node whose name matches the configured pattern is inference's without being seen labelled so")
  void configuredPattern() {
    InferencePool named = new InferencePool("inference", "training", Pattern.compile("gpu-inf-.*"));
    assertThat(named.owns("gpu-inf-3:8041")).isTrue();
    assertThat(named.owns("gpu-tr-3:8041")).isFalse();
    named.observe(List.of(view("gpu-inf-3:8041", "training", 4)));
    assertThat(named.place("gpu-inf-3:8041"))
        .as("named, and labelled training: lent")
        .isEqualTo(Place.LENT);
  }

  @Test
  @DisplayName("a node being lent is lent once it carries the training label, not before")
  void lendingUntilRelabelled() {
    pool.observe(List.of(view("i1", "inference", 4)));
    pool.lend("i1");
    pool.observe(List.of(view("i1", "inference", 4)));
    assertThat(pool.place("i1")).isEqualTo(Place.LENDING);
    assertThat(pool.onLoan(Set.of())).as("being lent counts as on loan").isEqualTo(1);
    pool.lent("i1");
    assertThat(pool.place("i1")).isEqualTo(Place.LENT);
  }

  @Test
  @DisplayName("a label changed outside Aryl is taken as it is: home to lent, lent to home")
  void labelsChangedOutside() {
    pool.observe(List.of(view("i1", "inference", 4), view("i2", "inference", 4)));
    pool.lend("i2");
    pool.lent("i2");
    pool.observe(List.of(view("i1", "training", 4), view("i2", "inference", 4)));
    assertThat(pool.place("i1")).isEqualTo(Place.LENT);
    assertThat(pool.place("i2")).isEqualTo(Place.HOME);
  }

  @Test
  @DisplayName("only a node at home may be lent, only a node being lent may be kept home")
  void movesFromTheRightPlace() {
    pool.observe(List.of(view("i1", "inference", 4)));
    assertThatThrownBy(() -> pool.lent("i1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("node i1 is HOME, not LENDING");
    pool.lend("i1");
    assertThatThrownBy(() -> pool.lend("i1")).hasMessage("node i1 is LENDING, not HOME");
    pool.keepHome("i1");
    assertThat(pool.place("i1")).isEqualTo(Place.HOME);
  }

  @Test
  @DisplayName(
      "what changed stays unsaved until stored, and its count of changes moves with every change only")
  void unsavedAndChanges() {
    long start = pool.changes();
    pool.observe(List.of(view("t1", "training", 8)));
    assertThat(pool.unsaved()).isFalse();
    assertThat(pool.changes()).isEqualTo(start);
    List<NodeView> views = List.of(view("i1", "inference", 4));
    pool.observe(views);
    assertThat(pool.unsaved()).isTrue();
    assertThat(pool.changes()).isEqualTo(start + 1);
    pool.saved();
    pool.observe(views);
    assertThat(pool.unsaved()).isFalse();
    assertThat(pool.toRecord()).isEqualTo(new InferenceNodes(Map.of("i1", Place.HOME)));
  }

  @Test
  @DisplayName(
      "restored places stand; upgraded from a format without places, the labels set them quietly")
  void restore() {
    pool.restore(new InferenceNodes(Map.of("i1", Place.HOME, "i2", Place.LENT)), true);
    assertThat(pool.owns("i2")).isTrue();
    pool.observe(List.of(view("i1", "training", 4), view("i2", "training", 4)));
    assertThat(pool.place("i1")).isEqualTo(Place.LENT);
    assertThat(pool.lentNodes()).isEqualTo(2);
  }

  @Test
  @DisplayName(
      "a lent node that left the cluster is counted no more among the lent GPUs, but stays inference's")
  void nodeLeft() {
    pool.observe(List.of(view("i1", "inference", 4)));
    pool.lend("i1");
    pool.observe(List.of(view("i1", "training", 4), view("t1", "training", 8)));
    assertThat(pool.lentNodes()).isEqualTo(1);
    pool.observe(List.of(view("t1", "training", 8)));
    assertThat(pool.lentNodes()).isZero();
    assertThat(pool.place("i1")).isEqualTo(Place.LENT);
  }
}
