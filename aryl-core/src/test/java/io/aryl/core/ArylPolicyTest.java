package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.elastic.ElasticValue;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ArylPolicy: the policies' names, and the round each configures")
class ArylPolicyTest {
  @Test
  @DisplayName("aryl and aryl+, found by their exact names and by nothing else")
  void names() {
    assertThat(ArylPolicy.names()).containsExactly("aryl", "aryl+");
    assertThat(ArylPolicy.named("aryl")).contains(ArylPolicy.ARYL);
    assertThat(ArylPolicy.named("aryl+")).contains(ArylPolicy.ARYL_PLUS);
    assertThat(ArylPolicy.named("ARYL")).isEmpty();
    assertThat(ArylPolicy.named("aryl+forecast")).isEmpty();
    assertThat(ArylPolicy.namesInWords()).isEqualTo("aryl or aryl+");
    assertThat(ArylPolicy.Name.ARYL).isEqualTo(ArylPolicy.ARYL.policyName());
    assertThat(ArylPolicy.Name.ARYL_PLUS).isEqualTo(ArylPolicy.ARYL_PLUS.policyName());
  }

  @Test
  @DisplayName(
      "aryl is the paper's round: the defaults' speed awareness (off) and worth of extra workers (JCT saved)")
  void arylIsThePapers() {
    PolicyConfig base = PolicyConfig.defaults();
    assertThat(ArylPolicy.ARYL.applyTo(base)).isEqualTo(base);
    assertThat(ArylPolicy.ARYL.applyTo(base.withArylPlus()))
        .as("aryl undoes aryl+'s switches")
        .isEqualTo(base);
  }

  @Test
  @DisplayName(
      "aryl+ is speed-aware and gives spare GPUs to the jobs closest to finishing, as withArylPlus does")
  void arylPlus() {
    PolicyConfig base = PolicyConfig.defaults().withStarvationShare(0.3);
    PolicyConfig plus = ArylPolicy.ARYL_PLUS.applyTo(base);
    assertThat(plus).isEqualTo(base.withArylPlus());
    assertThat(plus.speedAware()).isTrue();
    assertThat(plus.elasticValue()).isEqualTo(ElasticValue.SHORTEST_REMAINING_FIRST);
    assertThat(plus.starvationShare()).as("what the policy does not set is kept").isEqualTo(0.3);
  }
}
