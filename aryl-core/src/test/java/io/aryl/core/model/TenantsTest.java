package io.aryl.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Tenants: teams and the GPUs of the training pool each is guaranteed")
class TenantsTest {
  static final GpuType A100 = GpuType.of("A100");

  @Test
  void guaranteesAreSortedByNameAndUndeclaredTenantsAreGuaranteedNothing() {
    Tenants t = Tenants.of(Map.of("nlp", 8, "vision", 16));
    assertThat(t.guarantees()).containsExactly(Map.entry("nlp", 8), Map.entry("vision", 16));
    assertThat(t.guarantee("vision")).isEqualTo(16);
    assertThat(t.guarantee("speech")).isZero();
    assertThat(t.totalGuaranteedGpus()).isEqualTo(24);
    assertThat(Tenants.of(Map.of())).isSameAs(Tenants.NONE);
    assertThat(Tenants.NONE.isEmpty()).isTrue();
    assertThat(t)
        .isEqualTo(Tenants.of(Map.of("vision", 16, "nlp", 8)))
        .hasSameHashCodeAs(Tenants.of(Map.of("vision", 16, "nlp", 8)));
  }

  @Test
  void badTenantsAreRefusedNamingTheFieldAndTheValue() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Tenants.of(Map.of("vision", -1)))
        .withMessage("tenant(vision).guaranteedGpus must be >= 0, was -1");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Tenants.of(Map.of(" ", 4)))
        .withMessage("tenant.name must not be blank, was ' '");
    Map<String, Integer> nullValue = new HashMap<>();
    nullValue.put("nlp", null);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Tenants.of(nullValue))
        .withMessage("tenant(nlp).guaranteedGpus must not be null");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Tenants.of(null))
        .withMessage("tenants must not be null");
  }

  @Test
  void aSnapshotRefusesGuaranteesBeyondTheOwnServers() {
    List<Server> servers = List.of(Server.training("t1", A100, 8), Server.loaned("l1", A100, 8));
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                ClusterState.of(
                    0, servers, List.of(), Map.of(), Tenants.of(Map.of("a", 4, "b", 5))))
        .withMessage(
            "tenants' guaranteedGpus must sum to at most the 8 GPUs of the training pool's own servers, "
                + "was 9 {a=4, b=5}");
    ClusterState ok =
        ClusterState.of(0, servers, List.of(), Map.of(), Tenants.of(Map.of("a", 4, "b", 4)));
    assertThat(ok.tenants().guarantee("b")).isEqualTo(4);
    assertThat(ClusterState.of(0, servers, List.of(), Map.of()).tenants()).isSameAs(Tenants.NONE);
  }

  @Test
  void aJobBelongsToTheImplicitTenantUnlessItNamesOne() {
    Job plain = Job.builder("j").remainingS(10).build();
    assertThat(plain.tenant()).isEmpty();
    Job vision = plain.toBuilder().tenant(" vision ").build();
    assertThat(vision.tenant()).isEqualTo("vision");
    assertThat(vision.toBuilder().build()).isEqualTo(vision);
    assertThat(vision).isNotEqualTo(plain);
    assertThat(vision.toString()).contains("of vision");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Job.builder("j").tenant(null).build())
        .withMessage("job(j).tenant must not be null");
  }
}
