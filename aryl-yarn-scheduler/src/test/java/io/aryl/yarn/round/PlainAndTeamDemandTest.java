package io.aryl.yarn.round;

import static io.aryl.yarn.round.SnapshotTranslatorTest.TRANSLATOR;
import static io.aryl.yarn.round.SnapshotTranslatorTest.apps;
import static io.aryl.yarn.round.SnapshotTranslatorTest.node;
import static io.aryl.yarn.round.SnapshotTranslatorTest.on;
import static io.aryl.yarn.round.SnapshotTranslatorTest.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.core.PolicyConfig;
import io.aryl.core.RoundPlanner;
import io.aryl.core.job.JobShape;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Tenants;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Plain applications' pending GPU asks and the training queue's teams reach the plan")
class PlainAndTeamDemandTest {
  private static final RoundPlanner PLANNER = new RoundPlanner(PolicyConfig.defaults());

  private static AppView elastic(String id, int min, int max, int gpus, String tenant) {
    return new AppView(id, new JobShape(min, max, gpus, 3600, ""), 10, min, tenant, false);
  }

  /** A plain application waiting for {@code pending} containers of {@code gpus} GPUs each. */
  private static AppView plain(String id, int pending, int gpus) {
    return new AppView(id, new JobShape(pending, pending, gpus, 1, ""), 20, pending, "", true);
  }

  private static RoundInput translate(
      List<NodeView> nodes, Map<String, AppView> apps, PlanBook book, TenantShares teams) {
    return TRANSLATOR.translate(
        100,
        nodes,
        apps,
        book,
        Set.of(),
        Set.of(),
        Map.of(),
        SnapshotTranslator.SINCE_CHANGE,
        teams);
  }

  @Test
  @DisplayName("an elastic job's extra workers shrink for a plain application's pending containers")
  void extrasShrinkForPlainDemand() {
    // One 8-GPU node: the elastic job holds it with 4 workers of 2 GPUs (min 1); the plain app
    // waits for 2 x 2 GPUs.
    List<NodeView> nodes =
        List.of(
            node(
                "t1",
                8,
                worker("c1", "e", 2),
                worker("c2", "e", 2),
                worker("c3", "e", 2),
                worker("c4", "e", 2)));
    RoundInput input =
        translate(
            nodes,
            apps(elastic("e", 1, 4, 2, ""), plain("p", 2, 2)),
            SnapshotTranslatorTest.book("e", on("t1", 4)),
            TenantShares.NONE);

    assertThat(input.state().job("p").minWorkers())
        .as("the plain app's pending containers, one rigid gang")
        .isEqualTo(2);
    Plan plan = PLANNER.plan(input.state());

    assertThat(plan.target("p").totalWorkers())
        .as("the plain app is given room for both")
        .isEqualTo(2);
    assertThat(plan.target("e").totalWorkers())
        .as("the elastic job shrinks to make it")
        .isEqualTo(2);
    assertThat(plan.changes()).containsEntry("e", Plan.Change.SHRINK);
  }

  @Test
  @DisplayName(
      "a plain application's running containers are capacity the plan does not own, never its workers")
  void plainContainersAreNotTheirs() {
    List<NodeView> nodes = List.of(node("t1", 8, worker("d1", "p", 4)));
    RoundInput input = translate(nodes, apps(plain("p", 1, 2)), PlanBook.EMPTY, TenantShares.NONE);

    assertThat(input.workers())
        .as("nothing of p's is the plan's to shrink or drain")
        .doesNotContainKey("p");
    assertThat(input.state().server("t1").gpus())
        .as("p's running container holds 4 of 8 GPUs")
        .isEqualTo(4);
    assertThat(input.state().allocations()).doesNotContainKey("p");
  }

  @Test
  @DisplayName(
      "teams are guaranteed their share of the own servers' GPUs; loaned servers are shared")
  void teamsGetTheirShareOfOwnServers() {
    List<NodeView> nodes = List.of(node("t1", 8), node("t2", 8), node("inf1", 8));
    RoundInput input =
        translate(
            nodes,
            apps(elastic("a", 1, 1, 4, "vision"), elastic("b", 1, 4, 4, "nlp")),
            PlanBook.EMPTY,
            TenantShares.of(Map.of("vision", 0.6, "nlp", 0.4)));

    assertThat(input.state().tenants()).isEqualTo(Tenants.of(Map.of("vision", 9, "nlp", 6)));
    assertThat(input.state().job("a").tenant()).isEqualTo("vision");
    assertThat(input.state().job("b").tenant()).isEqualTo("nlp");
  }

  @Test
  @DisplayName("one team, or none, is the single-team round")
  void oneTeamIsNoTeams() {
    assertThat(TenantShares.of(Map.of("only", 1.0)).guarantees(16)).isEqualTo(Tenants.NONE);
    assertThat(TenantShares.NONE.guarantees(16)).isEqualTo(Tenants.NONE);
  }

  @Test
  @DisplayName("float capacities that sum a hair above 1 are one whole partition")
  void floatCapacitiesAreWhole() {
    TenantShares teams =
        TenantShares.of(Map.of("vision", 0.6000000238418579, "nlp", 0.4000000059604645));
    assertThat(teams.guarantees(16)).isEqualTo(Tenants.of(Map.of("vision", 9, "nlp", 6)));
    assertThat(
            TenantShares.of(Map.of("a", 0.5000001, "b", 0.5000001))
                .guarantees(100_000_000)
                .totalGuaranteedGpus())
        .isLessThanOrEqualTo(100_000_000);
  }

  @Test
  @DisplayName("shares outside 0..1 or summing above 1 are refused, naming the team and the value")
  void badShares() {
    assertThatThrownBy(() -> TenantShares.of(Map.of("vision", 1.5)))
        .hasMessageContaining("tenant vision")
        .hasMessageContaining("1.5");
    assertThatThrownBy(() -> TenantShares.of(Map.of("vision", 0.7, "nlp", 0.6)))
        .hasMessageContaining("sum to at most 1");
  }
}
