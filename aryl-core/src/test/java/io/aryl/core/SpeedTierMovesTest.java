package io.aryl.core;

import static io.aryl.core.RoundPlannerTest.A100;
import static io.aryl.core.RoundPlannerTest.T4;
import static io.aryl.core.RoundPlannerTest.job;
import static io.aryl.core.RoundPlannerTest.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.elastic.ElasticValue;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Beyond the paper: each round decides which GPU speed a job runs on (A100 = 1.0, loaned T4 = 0.5
 * here), moving whole jobs when the round gains by it.
 */
@DisplayName("speed-tier moves")
class SpeedTierMovesTest {
  private static final double HOUR = 3600;
  private final RoundPlanner arylPlus =
      new RoundPlanner(
          PolicyConfig.defaults()
              .withSpeedAware(true)
              .withElasticValue(ElasticValue.SHORTEST_REMAINING_FIRST));
  private final RoundPlanner paper = new RoundPlanner(PolicyConfig.defaults());

  private static final Server T1 = Server.training("t1", A100, 8);
  private static final Server T2 = Server.training("t2", A100, 8);
  private static final Server L1 = Server.loaned("l1", T4, 8);

  @Test
  @DisplayName("a rigid job on slow GPUs moves up when fast GPUs free up")
  void rigidMovesUp() {
    ClusterState s =
        state(
            List.of(T1, L1),
            List.of(job("r", 8, 1, 1, 10 * HOUR).build()),
            Map.of("r", Allocation.of("l1", 1)));
    Plan plan = arylPlus.plan(s);
    assertThat(plan.changes()).containsEntry("r", Plan.Change.MOVE);
    assertThat(plan.target("r")).isEqualTo(Allocation.of("t1", 1));
    assertThat(paper.plan(s).changes()).as("the paper never moves a base worker").isEmpty();
  }

  @Test
  @DisplayName("a job about to end does not move: the gain must beat a few re-scale pauses")
  void noMoveForASmallGain() {
    // 100 s left at half speed = 200 s; on fast GPUs 100 s plus a 30 s pause: 70 s saved, below 4
    // pauses.
    ClusterState s =
        state(
            List.of(T1, L1),
            List.of(job("r", 8, 1, 1, 100).build()),
            Map.of("r", Allocation.of("l1", 1)));
    assertThat(arylPlus.plan(s).changes()).isEmpty();
  }

  @Test
  @DisplayName(
      "an elastic job that would run narrow on fast GPUs moves down to run wide on idle slow ones")
  void narrowElasticMovesDown() {
    // A rigid job holds 6 of t1's 8 GPUs: e fits its base of 2 there and no more. On l1 it runs 8
    // wide at half
    // speed: twice as fast as 2 on t1.
    ClusterState s =
        state(
            List.of(T1, L1),
            List.of(job("r", 6, 1, 1, 10 * HOUR).build(), job("e", 1, 2, 8, 10 * HOUR).build()),
            Map.of("r", Allocation.of("t1", 1)));
    Plan plan = arylPlus.plan(s);
    assertThat(plan.target("e")).isEqualTo(Allocation.of("l1", 8));
    assertThat(plan.changes()).containsEntry("e", Plan.Change.START).doesNotContainKey("r");
  }

  @Test
  @DisplayName("an elastic job on slow GPUs moves back up as fast ones free up")
  void elasticMovesBackUp() {
    ClusterState s =
        state(
            List.of(T1, T2, L1),
            List.of(job("e", 1, 2, 8, 10 * HOUR).build()),
            Map.of("e", Allocation.of("l1", 8)));
    Allocation next = arylPlus.plan(s).target("e");
    assertThat(next.workersOn("l1")).isZero();
    assertThat(next.totalWorkers()).isEqualTo(8);
  }

  @Test
  @DisplayName("moving up may take other jobs' extra workers when it gains more than they lose")
  void moveUpTakesExtras() {
    // x runs 16 one-GPU workers over both fast servers, only 1 of them its base (on t1): t2 is all
    // extras. The rigid
    // job r at half speed on l1 gains 10 h by moving to t2; x loses its 9th..16th workers, worth
    // far less.
    ClusterState s =
        state(
            List.of(T1, T2, L1),
            List.of(job("r", 8, 1, 1, 10 * HOUR).build(), job("x", 1, 1, 16, 10 * HOUR).build()),
            Map.of("r", Allocation.of("l1", 1), "x", Allocation.of(Map.of("t1", 8, "t2", 8))));
    Plan plan = arylPlus.plan(s);
    assertThat(plan.target("r")).isEqualTo(Allocation.of("t2", 1));
    assertThat(plan.target("x")).isEqualTo(Allocation.of("t1", 8));
  }

  @Test
  @DisplayName("a job that cannot fit faster GPUs whole stays where it is")
  void noRoomNoMove() {
    // t1 is held by another job's base; r would need all 8 GPUs.
    ClusterState s =
        state(
            List.of(T1, L1),
            List.of(job("r", 8, 1, 1, 10 * HOUR).build(), job("b", 1, 1, 1, 10 * HOUR).build()),
            Map.of("r", Allocation.of("l1", 1), "b", Allocation.of("t1", 1)));
    assertThat(arylPlus.plan(s).changes()).isEmpty();
  }
}
