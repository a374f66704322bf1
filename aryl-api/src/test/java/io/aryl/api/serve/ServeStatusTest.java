package io.aryl.api.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.api.ArylJson;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ServeStatus: an inference service's status at its AM's /status.json")
class ServeStatusTest {
  private static final ServeStatus STATUS =
      new ServeStatus(
          "application_1_0001",
          "RUNNING",
          1,
          4,
          5.0,
          1,
          12.5,
          3,
          2,
          1,
          0,
          List.of("http://n1:20001", "http://n2:20002"),
          List.of(
              new ServeStatus.ReplicaStatus("container_1", "n1", 20001, "RUNNING", 40),
              new ServeStatus.ReplicaStatus("container_2", "n2", 20002, "RUNNING", 38),
              new ServeStatus.ReplicaStatus("container_3", "n1", 20003, "STARTING", -1)),
          List.of(
              new ServeStatus.ScaleEvent(1000, "scale-up", "rate 12.5/s: 2 -> 3"),
              new ServeStatus.ScaleEvent(
                  1200, ServeStatus.ScaleEvent.ALLOCATED, "container_3 on n1", "container_3")));

  @Test
  @DisplayName("is written under the field names the module's README gives, and read back equal")
  void roundTrip() throws Exception {
    String json = ArylJson.write(STATUS);
    JsonNode tree = new ObjectMapper().readTree(json);
    assertThat(tree.fieldNames())
        .toIterable()
        .containsExactly(
            "application",
            "state",
            "replicasMin",
            "replicasMax",
            "targetRpsPerReplica",
            "gpusPerReplica",
            "rateRps",
            "target",
            "running",
            "starting",
            "asked",
            "endpoints",
            "replicas",
            "events");
    assertThat(tree.path("replicas").get(0).fieldNames())
        .toIterable()
        .containsExactly("container", "host", "port", "state", "requests");
    assertThat(tree.path("events").get(0).fieldNames())
        .as("an event about the service as a whole names no container")
        .toIterable()
        .containsExactly("timeMs", "kind", "detail");
    assertThat(tree.path("events").get(1).fieldNames())
        .toIterable()
        .containsExactly("timeMs", "kind", "detail", "container");
    assertThat(ArylJson.strictReader(ServeStatus.class).<ServeStatus>readValue(json))
        .isEqualTo(STATUS);
  }

  @Test
  @DisplayName("read leniently: missing lists are empty, unknown fields skipped")
  void lenient() throws Exception {
    ServeStatus s =
        ArylJson.read(
            "{\"application\":\"a\",\"state\":\"STARTING\",\"endpoints\":null,\"newer\":1}",
            ServeStatus.class);
    assertThat(s.endpoints()).isEmpty();
    assertThat(s.replicas()).isEmpty();
    assertThat(s.events()).isEmpty();
    assertThat(s.state()).isEqualTo("STARTING");
  }
}
