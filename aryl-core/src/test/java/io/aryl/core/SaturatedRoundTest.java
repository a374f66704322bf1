package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import io.aryl.core.testing.SmallStates;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * A saturated cluster (nothing queued, nothing fenced, every running job at its widest, one
 * training speed) is left as it is: the promise that lets a caller skip such rounds.
 */
class SaturatedRoundTest {
  private static final List<PolicyConfig> CONFIGS =
      List.of(
          PolicyConfig.defaults(),
          PolicyConfig.defaults().withArylPlus(),
          PolicyConfig.defaults().withExactKnapsackOpsLimit(0)); // the greedy knapsack

  @Property(tries = 500)
  void aSaturatedClusterIsLeftAsItIs(@ForAll long seed) {
    ClusterState state = SmallStates.saturate(SmallStates.random(seed));
    assertThat(RoundPlanner.saturated(state)).isTrue();
    for (PolicyConfig config : CONFIGS) {
      RoundPlanner planner = new RoundPlanner(config);
      assertThat(planner.changesNothingWhenSaturated()).isTrue();
      assertThat(planner.plan(state).changes())
          .as("changes under %s on %s", config, state)
          .isEmpty();
    }
  }

  @Test
  void withoutARescalePauseNothingIsPromised() {
    assertThat(
            new RoundPlanner(PolicyConfig.defaults().withRescaleOverheadS(0))
                .changesNothingWhenSaturated())
        .isFalse();
  }

  @Property(tries = 200)
  void aQueuedJobAFencedServerOrANarrowJobIsNotSaturated(@ForAll long seed) {
    ClusterState saturated = SmallStates.saturate(SmallStates.random(seed));
    List<Job> withQueued = new ArrayList<>(saturated.jobs());
    withQueued.add(Job.builder("queued").gpusPerWorker(1).workers(1, 1).remainingS(60).build());
    assertThat(
            RoundPlanner.saturated(
                ClusterState.of(
                    saturated.nowS(), saturated.servers(), withQueued, saturated.allocations())))
        .as("with a queued job")
        .isFalse();

    List<Server> fenced = new ArrayList<>(saturated.servers());
    fenced.replaceAll(s -> s.loaned() ? s.withFenced(true) : s);
    if (!fenced.equals(saturated.servers())) {
      assertThat(
              RoundPlanner.saturated(
                  ClusterState.of(
                      saturated.nowS(), fenced, saturated.jobs(), saturated.allocations())))
          .as("with a fenced server")
          .isFalse();
    }

    List<Job> wider = new ArrayList<>(saturated.jobs());
    wider.replaceAll(j -> j.toBuilder().workers(j.minWorkers(), j.maxWorkers() + 1).build());
    if (!wider.isEmpty()) {
      assertThat(
              RoundPlanner.saturated(
                  ClusterState.of(
                      saturated.nowS(), saturated.servers(), wider, saturated.allocations())))
          .as("with jobs below their widest")
          .isFalse();
    }
  }
}
