package io.aryl.yarn.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.state.Owners;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("InferenceOwners: which nodes inference owns, whatever their label now")
class InferenceOwnersTest {
  @Test
  @DisplayName("a node seen labelled inference stays inference's when it is lent to training")
  void seenOnceOwnedForGood() {
    InferenceOwners o = new InferenceOwners("inference", null);
    assertThat(o.observe("n1", "inference")).isTrue();
    assertThat(o.observe("n1", "training")).isFalse();
    assertThat(o.owns("n1")).isTrue();
    assertThat(o.owns("n2")).isFalse();
  }

  @Test
  @DisplayName("a node whose name matches the configured pattern is inference's without being seen")
  void configuredPattern() {
    InferenceOwners o = new InferenceOwners("inference", Pattern.compile("gpu-inf-.*"));
    assertThat(o.owns("gpu-inf-3:8041")).isTrue();
    assertThat(o.owns("gpu-tr-3:8041")).isFalse();
  }

  @Test
  @DisplayName("what is learnt stays unsaved until a snapshot covering it is stored")
  void unsavedUntilStored() {
    InferenceOwners o = new InferenceOwners("inference", null);
    o.observe("n1", "inference");
    InferenceOwners.Snapshot s = o.snapshot();
    o.observe("n2", "inference");
    o.saved(s);
    assertThat(o.unsaved()).as("n2 came after the snapshot").isTrue();
    o.saved(o.snapshot());
    assertThat(o.unsaved()).isFalse();
  }

  @Test
  @DisplayName("restoring adds the stored nodes to those already seen")
  void restoreAdds() {
    InferenceOwners o = new InferenceOwners("inference", null);
    o.observe("n1", "inference");
    o.restore(new Owners(List.of("n2")));
    assertThat(o.snapshot().owners().inference()).containsExactly("n1", "n2");
  }

  @Test
  @DisplayName("its count of changes moves when a node is learnt or restored, and only then")
  void changesCount() {
    InferenceOwners o = new InferenceOwners("inference", null);
    long start = o.changes();
    o.observe("n1", "training");
    assertThat(o.changes()).isEqualTo(start);
    o.observe("n1", "inference");
    assertThat(o.changes()).isEqualTo(start + 1);
    o.observe("n1", "inference");
    assertThat(o.changes()).isEqualTo(start + 1);
    o.restore(new Owners(List.of("n2")));
    assertThat(o.changes()).isEqualTo(start + 2);
  }
}
