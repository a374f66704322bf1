package io.aryl.api.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.ArylJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("History: the charts' samples of GET /ws/v1/cluster/aryl/history")
class HistoryTest {
  @Test
  @DisplayName(
      "a sample of a status: nodes on loan, elastic applications without a worker, GPUs used and held by"
          + " label")
  void sampleOfAStatus() {
    HistorySample s = HistorySample.of(42, StatusExamples.full());
    assertThat(s.timeMs()).isEqualTo(42);
    assertThat(s.loanedNodes()).isEqualTo(1);
    assertThat(s.queuedJobs()).isZero();
    assertThat(s.gpusUsed())
        .containsExactlyInAnyOrderEntriesOf(Map.of("training", 14, "inference", 2));
    assertThat(s.gpus()).containsExactlyInAnyOrderEntriesOf(Map.of("training", 16, "inference", 4));
  }

  @Test
  @DisplayName("round trip with the field names the docs give")
  void roundTrip() throws Exception {
    History h =
        new History(
            60000,
            360,
            List.of(
                new HistorySample(
                    1764431500000L,
                    2,
                    1,
                    Map.of("inference", 3, "training", 24),
                    Map.of("inference", 16, "training", 24))));
    String json = ArylJson.write(h);
    assertThat(json)
        .startsWith(
            "{\"intervalMs\":60000,\"capacity\":360,\"samples\":[{\"timeMs\":1764431500000,"
                + "\"loanedNodes\":2,\"queuedJobs\":1,\"gpusUsed\":{");
    assertThat(ArylJson.read(json, History.class)).isEqualTo(h);
  }
}
