package io.aryl.yarn.round;

import static io.aryl.yarn.round.SnapshotTranslatorTest.TRANSLATOR;
import static io.aryl.yarn.round.SnapshotTranslatorTest.app;
import static io.aryl.yarn.round.SnapshotTranslatorTest.apps;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.PolicyConfig;
import io.aryl.core.RoundPlanner;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Plan;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Nodes of several GPU types reach the plan with their own type and speed")
class MixedGpuNodesTest {
  private static final GpuType A100 = GpuType.of("a100", 1.0);
  private static final GpuType T4 = GpuType.of("t4", 0.5);

  private static NodeView typed(String id, GpuType type) {
    return new NodeView(id, "training", 8, List.of(), type, null);
  }

  private static RoundInput translate(List<NodeView> nodes, Map<String, AppView> apps) {
    return TRANSLATOR.translate(100, nodes, apps, PlanBook.EMPTY, Set.of(), Set.of(), Map.of());
  }

  @Test
  @DisplayName("each server carries its node's GPU type")
  void serversCarryTheirType() {
    RoundInput in =
        translate(List.of(typed("t1", A100), typed("inf1", T4)), apps(app("j", 1, 1, 1, 1)));
    assertThat(in.state().server("t1").gpuType()).isEqualTo(A100);
    assertThat(in.state().server("inf1").gpuType()).isEqualTo(T4);
  }

  @Test
  @DisplayName("a node of no known type is left out of the plan")
  void unknownTypeIsLeftOut() {
    NodeView unknown =
        new NodeView("t2", "training", 8, List.of(), null, "node t2 has GPU type 'v100' ...");
    RoundInput in = translate(List.of(typed("t1", A100), unknown), apps(app("j", 1, 1, 1, 1)));
    assertThat(in.state().servers()).extracting(s -> s.id()).containsExactly("t1");
  }

  @Test
  @DisplayName(
      "aryl+ places a gang of 12 on one speed (the two slow nodes); the paper's spans both")
  void speedAwareGangOnOneSpeed() {
    List<NodeView> nodes = List.of(typed("t1", A100), typed("inf1", T4), typed("inf2", T4));
    RoundInput in = translate(nodes, apps(app("g", 12, 12, 1, 12)));
    Plan speedAware =
        new RoundPlanner(PolicyConfig.defaults().withSpeedAware(true)).plan(in.state());
    Plan paper = new RoundPlanner(PolicyConfig.defaults()).plan(in.state());
    assertThat(speedAware.target("g").totalWorkers()).isEqualTo(12);
    assertThat(speedAware.target("g").workersByServer()).containsOnlyKeys("inf1", "inf2");
    assertThat(paper.target("g").workersByServer())
        .as("best-fit on free GPUs, whatever their speed")
        .containsKeys("t1", "inf1");
  }

  @Test
  @DisplayName(
      "a job that accepts only a100 is planned on a100 nodes only, even with slow GPUs idle")
  void acceptedTypesOnly() {
    AppView fastOnly =
        new AppView("f", new io.aryl.core.job.JobShape(1, 16, 1, 3600, "", Set.of("a100")), 10, 16);
    List<NodeView> nodes = List.of(typed("t1", A100), typed("inf1", T4));
    RoundInput in = translate(nodes, apps(fastOnly));
    assertThat(in.state().job("f").allowedGpuTypes()).containsExactly("a100");
    for (PolicyConfig policy :
        List.of(PolicyConfig.defaults(), PolicyConfig.defaults().withSpeedAware(true))) {
      Plan plan = new RoundPlanner(policy).plan(in.state());
      assertThat(plan.target("f").workersByServer())
          .as("speed-aware %s", policy.speedAware())
          .containsOnlyKeys("t1");
    }
  }
}
