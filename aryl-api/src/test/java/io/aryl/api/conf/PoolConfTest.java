package io.aryl.api.conf;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("PoolConf: one key per pool label, and the keys they replaced")
class PoolConfTest {
  @Test
  @DisplayName(
      "aryl.pools.inference.label and aryl.pools.training.label, defaults inference and training")
  void keys() {
    assertThat(PoolConf.keys())
        .containsExactly("aryl.pools.inference.label", "aryl.pools.training.label");
    assertThat(PoolConf.INFERENCE_LABEL.defaultValue()).isEqualTo("inference");
    assertThat(PoolConf.TRAINING_LABEL.defaultValue()).isEqualTo("training");
    assertThat(PoolConf.values()).allSatisfy(c -> assertThat(c.key()).startsWith(PoolConf.PREFIX));
  }

  @Test
  @DisplayName("an old key is refused in one line naming it, its value and the new key")
  void renamed() {
    assertThat(PoolConf.refusal("aryl.scheduler.inference.label", "serve"))
        .contains(
            "configuration key"
                + " aryl.scheduler.inference.label=serve was renamed to aryl.pools.inference.label: set"
                + " aryl.pools.inference.label=serve instead (the scheduler, the loan controller and aryl-am all read it)");
    assertThat(PoolConf.refusal("aryl.labels.training.label", "train"))
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .contains(
                        "aryl.labels.training.label=train", "renamed to aryl.pools.training.label")
                    .doesNotContain("\n"));
    assertThat(PoolConf.RENAMED)
        .containsOnlyKeys(
            "aryl.scheduler.inference.label",
            "aryl.scheduler.training.label",
            "aryl.labels.inference.label",
            "aryl.labels.training.label");
  }

  @Test
  @DisplayName(
      "renamed alone says nothing of a typo: a client older than the cluster's keys refuses only old ones")
  void renamedOnly() {
    assertThat(PoolConf.renamed("aryl.scheduler.training.label", "t")).isPresent();
    assertThat(PoolConf.renamed("aryl.pools.inference.lable", "x")).isEmpty();
    assertThat(PoolConf.renamed("aryl.pools.inference.label", "x")).isEmpty();
  }

  @Test
  @DisplayName(
      "an aryl.pools.* key that is not one of them is refused; any other key is not this class's to judge")
  void unknown() {
    assertThat(PoolConf.refusal("aryl.pools.inference.lable", "x"))
        .contains(
            "unknown configuration key"
                + " aryl.pools.inference.lable=x (known: [aryl.pools.inference.label, aryl.pools.training.label])");
    assertThat(PoolConf.refusal("aryl.pools.inference.label", "x")).isEmpty();
    assertThat(PoolConf.refusal("aryl.scheduler.round-interval-ms", "5")).isEmpty();
  }
}
