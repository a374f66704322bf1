package io.aryl.api.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.aryl.api.ArylJson;
import io.aryl.api.status.ApplicationStatus.Change;
import io.aryl.api.status.NodeStatus.Pool;
import io.aryl.api.status.ReclaimStatus.Phase;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName(
    "SchedulerStatus: GET /ws/v1/cluster/aryl as the scheduler writes it and its clients read it")
class SchedulerStatusJsonTest {
  private static final ObjectMapper PLAIN = new ObjectMapper();

  private static JsonNode tree(String json) throws Exception {
    return PLAIN.readTree(json);
  }

  @Nested
  @DisplayName("written")
  class Written {
    @Test
    @DisplayName(
        "every component under its JSON name, with its value: the wire form field for field")
    void everyField() throws Exception {
      assertThat(tree(ArylJson.write(StatusExamples.full())))
          .isEqualTo(tree(StatusExamples.FULL_JSON));
    }

    @Test
    @DisplayName(
        "components in the order the record declares them, the order the page and the docs show")
    void order() throws Exception {
      List<String> names =
          PLAIN.readTree(ArylJson.write(StatusExamples.full())).properties().stream()
              .map(Map.Entry::getKey)
              .toList();
      assertThat(names)
          .containsExactly(
              "enabled",
              "round",
              "roundLatencyMs",
              "recovery",
              "store",
              "nodes",
              "loanedNodes",
              "applications",
              "teams",
              "plainDemand",
              "plan",
              "reclaimsInFlight",
              "reclaimsDone",
              "drainingContainers",
              "loanTarget");
    }

    @Test
    @DisplayName("with Aryl off, {\"enabled\": false} and nothing else")
    void disabled() {
      assertThat(ArylJson.write(SchedulerStatus.disabled())).isEqualTo("{\"enabled\":false}");
    }

    @Test
    @DisplayName(
        "absent until they apply: recovery's outcome, the store's deposed, a node's gpuTypeError, the plan"
            + " before the first round, the loan controller before its first report, the loan target before one is set,"
            + " a training node's place")
    void optionalFieldsAbsent() throws Exception {
      SchedulerStatus f = StatusExamples.full();
      SchedulerStatus early =
          new SchedulerStatus(
              true,
              0L,
              0.0,
              new RecoveryStatus(true, 1, -1, 60000, 1, List.of("n:1"), null),
              new StoreStatus("memory", "", 1, null),
              List.of(StatusExamples.TRAINING_NODE),
              List.of(),
              List.of(),
              List.of(),
              List.of(),
              PlanStatus.NONE,
              List.of(),
              List.of(),
              0,
              null);
      JsonNode json = tree(ArylJson.write(early));
      assertThat(json.path("recovery").has("outcome")).isFalse();
      assertThat(json.path("store").has("deposed")).isFalse();
      assertThat(json.path("nodes").get(0).has("gpuTypeError")).isFalse();
      assertThat(json.path("plan")).isEqualTo(tree("{}"));
      assertThat(json.has("loanTarget")).isFalse();
      assertThat(json.path("nodes").get(0).has("place"))
          .as("a training node has no place in the inference pool")
          .isFalse();
      assertThat(json.path("round").asLong(-1)).as("a zero is a value, not an absence").isZero();
      assertThat(tree(ArylJson.write(f)).path("nodes").get(2).get("gpuType").isNull())
          .as("an unknown GPU type is written as null, beside its error")
          .isTrue();
    }

    @Test
    @DisplayName(
        "null where the last round did not plan the application: sinceCheckpointS, team, belowMaxBecause")
    void nullsThatMean() throws Exception {
      ApplicationStatus unplanned =
          new ApplicationStatus(
              "application_1_0001", 1, 2, 1, 60, 0, Map.of(), 0, 1, Change.NONE, null, null);
      JsonNode json = tree(ArylJson.write(unplanned));
      assertThat(json.has("sinceCheckpointS")).isTrue();
      assertThat(json.get("sinceCheckpointS").isNull()).isTrue();
      assertThat(json.get("team").isNull()).isTrue();
      assertThat(json.has("belowMaxBecause"))
          .as("written as null: it runs at its maximum or not at all")
          .isTrue();
      assertThat(json.get("belowMaxBecause").isNull()).isTrue();
    }
  }

  @Nested
  @DisplayName("read back")
  class ReadBack {
    @Test
    @DisplayName("the full status, equal to what was written")
    void roundTrip() throws Exception {
      SchedulerStatus s = StatusExamples.full();
      assertThat(ArylJson.readStatus(ArylJson.write(s))).isEqualTo(s);
    }

    @Test
    @DisplayName("the wire form, equal to the record it was written from")
    void fromTheWireForm() throws Exception {
      assertThat(ArylJson.readStatus(StatusExamples.FULL_JSON)).isEqualTo(StatusExamples.full());
    }

    @Test
    @DisplayName("a field it does not know is skipped: an older client reads a newer scheduler")
    void unknownFieldIgnored() throws Exception {
      String newer =
          "{\"enabled\": true, \"round\": 7, \"loanTarget\": {\"servers\": 3}, \"nodes\": [{\"node\":"
              + " \"a:1\", \"owner\": \"training\", \"gpus\": 8, \"rack\": \"r1\"}]}";
      SchedulerStatus s = ArylJson.readStatus(newer);
      assertThat(s.round()).isEqualTo(7L);
      assertThat(s.node("a:1").gpus()).isEqualTo(8);
      assertThat(s.node("a:1").owner()).isEqualTo(Pool.TRAINING);
    }

    @Test
    @DisplayName("an enum value it does not know reads as null, the rest of the entry as sent")
    void unknownEnumValue() throws Exception {
      SchedulerStatus s =
          ArylJson.readStatus(
              "{\"enabled\": true, \"reclaimsInFlight\": [{\"id\": 3, \"phase\":"
                  + " \"VERIFYING\", \"nodes\": [\"a:1\"], \"jobs\": {\"app\": \"PAUSE\"}}]}");
      ReclaimStatus r = s.reclaimsInFlight().get(0);
      assertThat(r.id()).isEqualTo(3);
      assertThat(r.phase()).isNull();
      assertThat(r.done()).isFalse();
      assertThat(r.nodes()).containsExactly("a:1");
      assertThat(r.jobs()).containsEntry("app", null);
    }

    @Test
    @DisplayName(
        "lists and maps it does not find are empty: a newer client reads an older scheduler")
    void missingContainersEmpty() throws Exception {
      SchedulerStatus s =
          ArylJson.readStatus(
              "{\"enabled\": true, \"round\": 1, \"reclaimsDone\": [{\"id\": 1,"
                  + " \"phase\": \"DONE\"}], \"plan\": {}}");
      assertThat(s.teams()).isEmpty();
      assertThat(s.nodes()).isEmpty();
      assertThat(s.plainDemand()).isEmpty();
      assertThat(s.reclaimsDone().get(0).nodes()).isEmpty();
      assertThat(s.reclaimsDone().get(0).jobs()).isEmpty();
      assertThat(s.reclaimsDone().get(0).done()).isTrue();
      assertThat(s.plan().targets()).isEmpty();
      assertThat(s.plan().changes()).isEmpty();
    }

    @Test
    @DisplayName(
        "an application from a scheduler that gives no reason for its width reads with belowMaxBecause null")
    void noReasonGiven() throws Exception {
      SchedulerStatus s =
          ArylJson.readStatus(
              "{\"enabled\": true, \"applications\": [{\"application\": \"app\","
                  + " \"maxWorkers\": 8, \"targetWorkers\": 6}]}");
      assertThat(s.applications().get(0).targetWorkers()).isEqualTo(6);
      assertThat(s.applications().get(0).belowMaxBecause()).isNull();
    }

    @Test
    @DisplayName(
        "an application from a scheduler that does not count preemptions reads as never preempted")
    void noPreemptionsCounted() throws Exception {
      SchedulerStatus s =
          ArylJson.readStatus(
              "{\"enabled\": true, \"applications\": [{\"application\": \"app\","
                  + " \"maxWorkers\": 8, \"targetWorkers\": 6}]}");
      assertThat(s.applications().get(0).preemptions()).isZero();
    }

    @Test
    @DisplayName("Aryl off: enabled false, empty lists, no round")
    void disabled() throws Exception {
      SchedulerStatus s = ArylJson.readStatus("{\"enabled\": false}");
      assertThat(s.enabled()).isFalse();
      assertThat(s.round()).isNull();
      assertThat(s.nodes()).isEmpty();
      assertThat(s.reclaimsInFlight()).isEmpty();
    }

    @Test
    @DisplayName(
        "a strict reader refuses what the lenient one skips: for fixtures held to the contract")
    void strictForFixtures() {
      assertThatThrownBy(
              () ->
                  ArylJson.strictReader(SchedulerStatus.class)
                      .readValue("{\"enabled\": true," + " \"rounds\": 3}"))
          .isInstanceOf(UnrecognizedPropertyException.class)
          .hasMessageContaining("\"rounds\"");
    }
  }

  @Test
  @DisplayName("lookups by name and the loan flag")
  void lookups() {
    SchedulerStatus s = StatusExamples.full();
    assertThat(s.node("gpu-inf-3:45454").onLoan()).isTrue();
    assertThat(s.node("gpu-tr-1:45454").onLoan()).isFalse();
    assertThat(s.node("nowhere:1")).isNull();
    assertThat(s.application("application_1764400000000_0042").targetWorkers()).isEqualTo(6);
    assertThat(s.application("application_1_0001")).isNull();
    assertThat(s.reclaimsDone().get(0).phase()).isEqualTo(Phase.DONE);
  }

  @Test
  @DisplayName("a record read or built cannot be changed under its readers")
  void unmodifiable() {
    SchedulerStatus s = StatusExamples.full();
    assertThatThrownBy(() -> s.nodes().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> s.reclaimsDone().get(0).jobs().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> s.plan().targets().values().iterator().next().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
