package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.api.ArylJson;
import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.NodeStatus.Pool;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.RecoveryStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.core.PolicyConfig;
import io.aryl.core.RoundPlanner;
import io.aryl.core.job.JobShape;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Plan;
import io.aryl.core.victim.Fate;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.round.SnapshotTranslator;
import io.aryl.yarn.state.MemoryStateStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The status names what the scheduler decides by the status's own enums (aryl-api), which its
 * clients read: each of the scheduler's values must have its name there, or a status holding it
 * could not be written. What the last round recorded of why reaches the status.
 */
@DisplayName("StatusReport: every decision the scheduler makes has its name in the status")
class StatusReportTest {
  private static String[] names(Enum<?>[] values) {
    return Arrays.stream(values).map(Enum::name).toArray(String[]::new);
  }

  @Test
  @DisplayName("a plan's changes, and NONE for no change")
  void changes() {
    for (Plan.Change c : Plan.Change.values()) {
      assertThat(StatusReport.change(c).name()).isEqualTo(c.name());
    }
    assertThat(StatusReport.change(null)).isEqualTo(ApplicationStatus.Change.NONE);
    List<String> written = new ArrayList<>(List.of(names(Plan.Change.values())));
    written.add("NONE");
    assertThat(names(ApplicationStatus.Change.values()))
        .as("no name the scheduler never writes")
        .containsExactlyInAnyOrderElementsOf(written);
  }

  @Test
  @DisplayName(
      "an elastic application below its maximum says why, in words, from the last round's plan;"
          + " each shows how often it was stopped, as the engine stored it")
  void belowMaxBecause() {
    // t1 has 4 GPUs: r (rigid, one 2-GPU worker) holds 2, e the other 2 at 1 GPU a worker, asking
    // for 2 more.
    JobShape eShape = new JobShape(1, 4, 1, 36_000, "");
    JobShape rShape = new JobShape(1, 1, 2, 36_000, "");
    NodeView t1 =
        new NodeView(
            "t1",
            "training",
            4,
            List.of(
                new ContainerView("c1", "r", 1, 2, false),
                new ContainerView("c2", "e", 2, 1, false),
                new ContainerView("c3", "e", 3, 1, false)));
    Map<String, AppView> views =
        new TreeMap<>(
            Map.of("e", new AppView("e", eShape, 0, 2), "r", new AppView("r", rShape, 0, 0)));
    RoundInput input =
        new SnapshotTranslator("training", GpuType.of("gpu"), n -> false)
            .translate(100, List.of(t1), views, PlanBook.EMPTY, Set.of(), Set.of(), Map.of());
    Plan plan = new RoundPlanner(PolicyConfig.defaults()).plan(input.state());
    ElasticApps.App e = new ElasticApps.App("e", eShape, 0);
    e.asks.put(
        "1",
        ResourceRequest.newInstance(
            Priority.newInstance(1), ResourceRequest.ANY, Resource.newInstance(1024, 1), 2));
    StatusReport.Inputs in =
        new StatusReport.Inputs(
            1,
            1.0,
            List.of(t1),
            n -> false,
            Set.of(),
            List.of(e, new ElasticApps.App("r", rShape, 0)),
            new PlanBook(plan.targets(), 1),
            input,
            plan,
            List.of(),
            List.of(),
            0,
            new RecoveryStatus(false, 0, 0, 0, 0, List.of(), null),
            null,
            Map.of(),
            null,
            Map.of("r", 2));

    SchedulerStatus status =
        StatusReport.of(in, ArylSettings.defaults(), new MemoryStateStore(), 1);
    Map<String, ApplicationStatus> apps = new TreeMap<>();
    status.applications().forEach(a -> apps.put(a.application(), a));
    assertThat(apps.get("e").targetWorkers()).isEqualTo(2);
    assertThat(apps.get("e").belowMaxBecause())
        .isEqualTo("no spare GPUs of the types it may use (gpu)");
    assertThat(apps.get("r").belowMaxBecause()).as("at its maximum: nothing to say").isNull();
    assertThat(apps.get("r").preemptions()).as("as the engine stored it").isEqualTo(2);
    assertThat(apps.get("e").preemptions()).as("never stopped").isZero();
  }

  @Test
  @DisplayName(
      "a node is inference's if it ever was, training's if labelled training, else neither pool's")
  void owners() throws Exception {
    NodeView lent = new NodeView("i1:1", "training", 4, List.of());
    NodeView home = new NodeView("i2:1", "inference", 4, List.of());
    NodeView training = new NodeView("t1:1", "training", 4, List.of());
    NodeView unlabelled = new NodeView("cpu1:1", "", 0, List.of());
    NodeView otherLabel = new NodeView("x1:1", "batch", 2, List.of());
    Set<String> inference = Set.of("i1:1", "i2:1");
    StatusReport.Inputs in =
        new StatusReport.Inputs(
            1,
            1.0,
            List.of(lent, home, training, unlabelled, otherLabel),
            inference::contains,
            Set.of(),
            List.of(),
            PlanBook.EMPTY,
            null,
            null,
            List.of(),
            List.of(),
            0,
            new RecoveryStatus(false, 0, 0, 0, 0, List.of(), null),
            null,
            Map.of(),
            null,
            Map.of());

    SchedulerStatus status =
        StatusReport.of(in, ArylSettings.defaults(), new MemoryStateStore(), 1);

    assertThat(status.node("i1:1").owner()).isEqualTo(Pool.INFERENCE);
    assertThat(status.node("i1:1").loaned()).isTrue();
    assertThat(status.node("i2:1").owner()).isEqualTo(Pool.INFERENCE);
    assertThat(status.node("t1:1").owner()).isEqualTo(Pool.TRAINING);
    assertThat(status.node("cpu1:1").owner()).as("the default partition").isNull();
    assertThat(status.node("x1:1").owner()).as("a label of neither pool").isNull();
    assertThat(status.loanedNodes()).extracting(NodeStatus::node).containsExactly("i1:1");

    JsonNode nodes = new ObjectMapper().readTree(ArylJson.write(status)).get("nodes");
    assertThat(nodes.get(2).get("owner").asText()).isEqualTo("training");
    assertThat(nodes.get(3).has("owner"))
        .as("a meaningful null: omitted, as a node's place is")
        .isFalse();
  }

  @Test
  @DisplayName("a reclaim's phases and the planner's actions on its jobs")
  void reclaims() {
    assertThat(names(ReclaimStatus.Phase.values())).containsExactly(names(Reclaim.Phase.values()));
    assertThat(names(ReclaimStatus.Action.values())).containsExactly(names(Fate.values()));
  }
}
