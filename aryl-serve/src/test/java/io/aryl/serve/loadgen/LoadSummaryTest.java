package io.aryl.serve.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.serve.loadgen.RequestRecord.Outcome;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("LoadSummary: latency percentiles, the objective, failures by kind")
class LoadSummaryTest {
  @Test
  @DisplayName(
      "percentiles by nearest rank over the ok requests; the share within the objective of all")
  void summary() {
    List<RequestRecord> r = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      r.add(new RequestRecord(i, i, i, Outcome.OK, "http://h:1", 200));
    }
    r.add(new RequestRecord(101, 101, 5000, Outcome.TIMEOUT, "http://h:1", 0));
    r.add(new RequestRecord(102, 102, 3, Outcome.ERROR, "http://h:1", 500));
    r.add(new RequestRecord(103, 103, 0, Outcome.NO_REPLICA, "", 0));
    LoadSummary s = LoadSummary.of(r, 50, 10);
    assertThat(s.requests()).isEqualTo(103);
    assertThat(s.ok()).isEqualTo(100);
    assertThat(s.errors()).isEqualTo(1);
    assertThat(s.timeouts()).isEqualTo(1);
    assertThat(s.noReplica()).isEqualTo(1);
    assertThat(s.failures()).isEqualTo(3);
    assertThat(s.p50Ms()).isEqualTo(50.0);
    assertThat(s.p99Ms()).isEqualTo(99.0);
    assertThat(s.maxMs()).isEqualTo(100.0);
    assertThat(s.withinSlo()).isEqualTo(50 / 103.0);
    assertThat(s.sentRps()).isEqualTo(10.3);
  }

  @Test
  @DisplayName("no request: zeros, not a division by zero")
  void empty() {
    LoadSummary s = LoadSummary.of(List.of(), 50, 0);
    assertThat(s.p99Ms()).isZero();
    assertThat(s.withinSlo()).isZero();
    assertThat(s.sentRps()).isZero();
  }
}
