package io.aryl.yarn.round;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("ShrinkChooser: which live workers a plan takes away")
class ShrinkChooserTest {
  private static final GpuType GPU = GpuType.of("gpu");

  // app-a: three workers on n1 (listed out of creation order), one on n2. app-b: one on each.
  private static final ContainerView A_OLD = worker("a-old", "app-a", 10);
  private static final ContainerView A_NEWEST = worker("a-newest", "app-a", 30);
  private static final ContainerView A_MIDDLE = worker("a-middle", "app-a", 20);
  private static final ContainerView A_N2 = worker("a-n2", "app-a", 5);
  private static final ContainerView B_N1 = worker("b-n1", "app-b", 1);
  private static final ContainerView B_N2 = worker("b-n2", "app-b", 2);

  private static final ClusterState STATE =
      ClusterState.of(
          0,
          List.of(Server.training("n1", GPU, 8), Server.training("n2", GPU, 8)),
          List.of(job("app-a", 1, 6), job("app-b", 2, 2)),
          Map.of("app-a", on("n1", 3, "n2", 1), "app-b", on("n1", 1, "n2", 1)));

  private static final RoundInput INPUT =
      new RoundInput(
          STATE,
          Map.of(
              "app-a", Map.of("n1", List.of(A_OLD, A_NEWEST, A_MIDDLE), "n2", List.of(A_N2)),
              "app-b", Map.of("n1", List.of(B_N1), "n2", List.of(B_N2))),
          List.of());

  private static ContainerView worker(String id, String app, long seq) {
    return new ContainerView(id, app, seq, 1, false);
  }

  private static Job job(String id, int min, int max) {
    return Job.builder(id).workers(min, max).remainingS(3600).build();
  }

  private static Allocation on(Object... nodeAndWorkers) {
    Map<String, Integer> m = new TreeMap<>();
    for (int i = 0; i < nodeAndWorkers.length; i += 2) {
      m.put((String) nodeAndWorkers[i], (Integer) nodeAndWorkers[i + 1]);
    }
    return Allocation.of(m);
  }

  static Stream<Arguments> plans() {
    Allocation bAsIs = on("n1", 1, "n2", 1);
    return Stream.of(
        Arguments.of(
            "every target met: nothing",
            Map.of("app-a", on("n1", 3, "n2", 1), "app-b", bAsIs),
            List.of()),
        Arguments.of(
            "a job that grows: nothing",
            Map.of("app-a", on("n1", 3, "n2", 3), "app-b", bAsIs),
            List.of()),
        Arguments.of(
            "one fewer on n1: the newest there",
            Map.of("app-a", on("n1", 2, "n2", 1), "app-b", bAsIs),
            List.of(A_NEWEST)),
        Arguments.of(
            "two fewer on n1: the two newest there, newest first",
            Map.of("app-a", on("n1", 1, "n2", 1), "app-b", bAsIs),
            List.of(A_NEWEST, A_MIDDLE)),
        Arguments.of(
            "none left on n2: the one there, though it is the job's oldest",
            Map.of("app-a", on("n1", 3), "app-b", bAsIs),
            List.of(A_N2)),
        Arguments.of(
            "fewer on n1, more on n2: only n1's excess, no netting across nodes",
            Map.of("app-a", on("n1", 1, "n2", 3), "app-b", bAsIs),
            List.of(A_NEWEST, A_MIDDLE)),
        Arguments.of(
            "a job the plan drops (preempted): every worker of it",
            Map.of("app-a", on("n1", 3, "n2", 1)),
            List.of(B_N1, B_N2)),
        Arguments.of(
            "both jobs shrink", Map.of("app-a", on("n1", 2)), List.of(A_NEWEST, A_N2, B_N1, B_N2)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("plans")
  @DisplayName("takes, per node, the newest workers beyond the job's target there")
  void takesNewestBeyondTargetPerNode(
      String description, Map<String, Allocation> targets, List<ContainerView> taken) {
    Plan plan = Plan.between(STATE, targets);
    assertThat(ShrinkChooser.choose(INPUT, plan)).containsExactlyInAnyOrderElementsOf(taken);
  }

  @Test
  @DisplayName("orders a node's excess newest first")
  void newestFirstWithinANode() {
    Plan plan = Plan.between(STATE, Map.of("app-a", on("n2", 1)));
    List<ContainerView> chosen = ShrinkChooser.choose(INPUT, plan);
    List<ContainerView> onN1 =
        chosen.stream().filter(c -> c.appId().equals("app-a") && !c.equals(A_N2)).toList();
    assertThat(onN1).containsExactly(A_NEWEST, A_MIDDLE, A_OLD);
  }

  @Test
  @DisplayName("never takes a partial gang's orphans: those are drained separately")
  void ignoresOrphans() {
    ContainerView orphan = worker("c-orphan", "app-c", 99);
    RoundInput input = new RoundInput(STATE, INPUT.workers(), List.of(orphan));
    assertThat(ShrinkChooser.choose(input, Plan.between(STATE, Map.of())))
        .doesNotContain(orphan)
        .hasSize(6);
  }

  @Test
  @DisplayName("with no live workers takes nothing")
  void nothingLive() {
    RoundInput input = new RoundInput(STATE, Map.of(), List.of());
    assertThat(ShrinkChooser.choose(input, Plan.between(STATE, Map.of()))).isEmpty();
  }
}
