package io.aryl.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.aryl.api.serve.ServeStatus.ScaleEvent;
import io.aryl.demo.Inference.LentSample;
import io.aryl.demo.InferenceSummary.ReplicaStart;
import io.aryl.serve.loadgen.RateCurve;
import io.aryl.serve.loadgen.RequestRecord;
import io.aryl.serve.loadgen.RequestRecord.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class InferenceTest {
  private static final String A = "container_1_0001_01_000002";
  private static final String B = "container_1_0001_01_000003";
  private static final String C = "container_1_0001_01_000004";

  @Test
  @DisplayName(
      "the curve: the day compressed into the run, its peak with 20% headroom needing every"
          + " inference node")
  void curve() {
    RateCurve c = Inference.curve(new double[] {10, 30, 60, 20}, 600, 60, 2);
    assertThat(c.stepS()).isEqualTo(10.0);
    assertThat(c.durationS()).isEqualTo(40.0);
    double peak = 2 * Inference.RPS_PER_REPLICA / 1.2;
    assertThat(c.rps())
        .containsExactly(new double[] {peak / 6, peak / 2, peak, peak / 3}, within(1e-9));
  }

  @Test
  @DisplayName(
      "a replica asked for while its node was on loan waited for a reclaim, from the ask it answered"
          + " to its first answer; the first replica, served before the traffic, is left out")
  void replicasBehindAReclaim() {
    List<ScaleEvent> events =
        List.of(
            new ScaleEvent(1_000, "start", "target 1 (--replicas-min)"),
            new ScaleEvent(1_010, "ask", "1 replica(s): 0 live, target 1"),
            new ScaleEvent(2_000, "allocated", A + " on localhost, port 20001"),
            new ScaleEvent(4_000, "ready", A + " serves at http://localhost:20001, 2000 ms after"),
            // two asked at once: B waits for the node on loan, C is granted on a free one first
            new ScaleEvent(20_000, "scale-up", "target 3"),
            new ScaleEvent(20_000, "ask", "2 replica(s): 1 live, target 3"),
            new ScaleEvent(21_000, "allocated", C + " on localhost, port 20003"),
            new ScaleEvent(24_000, "ready", C + " serves at http://localhost:20003, 3000 ms after"),
            new ScaleEvent(30_000, "allocated", B + " on localhost, port 20002"),
            new ScaleEvent(
                33_500, "ready", B + " serves at http://localhost:20002, 3500 ms after"));
    Map<String, String> nodeOf = Map.of(A, "n1", B, "n2", C, "n3");
    List<LentSample> lent = new ArrayList<>();
    for (long t = 10_000; t <= 40_000; t += 1_000) {
      // n2 on loan until 28 s, when the reclaim gives it back
      lent.add(new LentSample(t, t < 28_000 ? Set.of("n2") : Set.of()));
    }

    List<ReplicaStart> starts = Inference.starts(events, nodeOf, lent, 10_000);

    assertThat(starts)
        .containsExactly(
            new ReplicaStart(C, 20_000, 24_000, false), new ReplicaStart(B, 20_000, 33_500, true));
    InferenceSummary s = InferenceSummary.of(List.of(), 500, 40, starts);
    assertThat(s.replicasStarted()).isEqualTo(2);
    assertThat(s.replicasBehindReclaim()).isEqualTo(1);
    assertThat(s.reclaimWaitP50S()).isEqualTo(13.5);
    assertThat(s.reclaimWaitMaxS()).isEqualTo(13.5);
    assertThat(s.otherWaitP50S()).isEqualTo(4.0);
  }

  @Test
  @DisplayName("a node given back before the ask does not count: the replica did not wait for it")
  void nodeBackBeforeTheAsk() {
    List<ScaleEvent> events =
        List.of(
            new ScaleEvent(20_000, "ask", "1 replica(s): 1 live, target 2"),
            new ScaleEvent(20_500, "allocated", B + " on localhost, port 20002"),
            new ScaleEvent(23_000, "ready", B + " serves at http://localhost:20002, 2500 ms"));
    List<LentSample> lent =
        List.of(
            new LentSample(15_000, Set.of("n2")),
            new LentSample(19_000, Set.of()),
            new LentSample(21_000, Set.of()));
    assertThat(Inference.starts(events, Map.of(B, "n2"), lent, 0))
        .containsExactly(new ReplicaStart(B, 20_000, 23_000, false));
  }

  @Test
  @DisplayName(
      "every request is counted once: ok within the objective, ok late, failed of each kind")
  void requests() {
    List<RequestRecord> records =
        List.of(
            new RequestRecord(0, 0.1, 20, Outcome.OK, "r1", 200),
            new RequestRecord(1, 0.2, 40, Outcome.OK, "r1", 200),
            new RequestRecord(2, 0.3, 900, Outcome.OK, "r1", 200),
            new RequestRecord(3, 0.4, 5, Outcome.ERROR, "r1", 500),
            new RequestRecord(4, 0.5, 10_000, Outcome.TIMEOUT, "r1", 0),
            new RequestRecord(5, 0.6, 0, Outcome.NO_REPLICA, "", 0));
    InferenceSummary s = InferenceSummary.of(records, 500, 1, List.of());
    assertThat(s.requests()).isEqualTo(6);
    assertThat(s.ok()).isEqualTo(3);
    assertThat(s.failed()).isEqualTo(3);
    assertThat(s.ok() + s.failed()).isEqualTo(s.requests());
    assertThat(s.withinSlo()).isCloseTo(2 / 6.0, within(1e-9));
    assertThat(s.p99Ms()).isEqualTo(900.0);
    assertThat(s.replicasBehindReclaim()).isZero();
    assertThat(s.reclaimWaitMaxS()).isZero();
  }

  @Test
  @DisplayName("the table's inference rows, for Aryl on and off")
  void tableRows() {
    RunSummary on =
        RunSummary.of("Aryl on", 0, List.of(), 40_000, new PoolMeter(), 1, 0, 0)
            .withInference(
                new InferenceSummary(
                    812, 811, 1, 0, 0, 500, 0.9975, 12, 48.25, 130, 3, 2, 5.5, 7.25, 3));
    RunSummary off =
        RunSummary.of("Aryl off", 0, List.of(), 40_000, new PoolMeter(), 0, 0, 0)
            .withInference(
                new InferenceSummary(812, 812, 0, 0, 0, 500, 1.0, 11, 30, 90, 2, 0, 0, 0, 3));
    String table = SummaryTable.format(List.of(on, off));
    assertThat(table)
        .containsPattern("inference requests within 500 ms +99\\.75% +100\\.00%")
        .containsPattern("inference latency p99 +48\\.3 ms +30\\.0 ms")
        .containsPattern("inference requests failed +1 of 812 +0 of 812")
        .containsPattern("replicas that waited for a reclaim +2 \\(5\\.5 / 7\\.3 s\\) +0");
  }
}
