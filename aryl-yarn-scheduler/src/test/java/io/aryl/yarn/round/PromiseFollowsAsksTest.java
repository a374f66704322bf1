package io.aryl.yarn.round;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.PolicyConfig;
import io.aryl.core.RoundPlanner;
import io.aryl.core.job.JobShape;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A promise is kept only as far as the ApplicationMaster still asks for it. Between an allocation
 * and the AM's next heartbeat the AM's last ask still counts the workers it has just been given, so
 * a round may promise a job more than it wants; the AM's next ask must end that promise, or it is
 * counted as the job's allocation and renewed every round, never filled.
 */
@DisplayName("promises follow the ApplicationMaster's asks")
class PromiseFollowsAsksTest {
  private static final SnapshotTranslator TRANSLATOR =
      new SnapshotTranslator("training", GpuType.of("gpu"), node -> node.startsWith("loaned"));
  private static final JobShape E = new JobShape(1, 16, 1, 3600, "");

  /** Own node n2 full of E's 8 workers; two empty loaned nodes. */
  private static List<NodeView> nodes() {
    List<ContainerView> workers = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      workers.add(new ContainerView("c" + i, "e", i, 1, false));
    }
    return List.of(
        new NodeView("loaned-0", "training", 8, List.of()),
        new NodeView("loaned-1", "training", 8, List.of()),
        new NodeView("n2", "training", 8, workers));
  }

  private static final PlanBook PROMISED_16 =
      new PlanBook(Map.of("e", Allocation.of(Map.of("n2", 8, "loaned-0", 8))), 1);

  private static RoundInput translate(PlanBook book, int asked) {
    return TRANSLATOR.translate(
        10,
        nodes(),
        Map.of("e", new AppView("e", E, 0, asked)),
        book,
        Set.of(),
        Set.of(),
        Map.of());
  }

  @Test
  @DisplayName("a promise the ApplicationMaster still asks for counts as allocated")
  void askedPromiseCounts() {
    assertThat(translate(PROMISED_16, 8).state().allocation("e").workersByServer())
        .isEqualTo(Map.of("n2", 8, "loaned-0", 8));
  }

  @Test
  @DisplayName("a promise beyond what the ApplicationMaster asks for is dropped")
  void unaskedPromiseDropped() {
    assertThat(translate(PROMISED_16, 0).state().allocation("e").workersByServer())
        .isEqualTo(Map.of("n2", 8));
    assertThat(translate(PROMISED_16, 3).state().allocation("e").workersByServer())
        .isEqualTo(Map.of("n2", 8, "loaned-0", 3));
  }

  @Test
  @DisplayName(
      "a round on a stale ask promises too much once; the next round, on the AM's real ask, takes it back")
  void stalePromiseLastsOneRound() {
    RoundPlanner planner = new RoundPlanner(PolicyConfig.defaults());
    // The AM was given 8 workers but its last ask (8) is not yet updated: the round sees a job
    // wanting 16.
    Plan stale = planner.plan(translate(PlanBook.EMPTY, 8).state());
    assertThat(stale.target("e").totalWorkers()).isEqualTo(16);
    // Its next heartbeat asks for nothing more.
    Plan next = planner.plan(translate(new PlanBook(stale.targets(), 1), 0).state());
    assertThat(next.target("e").workersByServer()).isEqualTo(Map.of("n2", 8));
  }
}
