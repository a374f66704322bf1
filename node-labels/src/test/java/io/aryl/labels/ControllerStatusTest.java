package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.labels.ControllerStatus.ErrorNote;
import io.aryl.labels.ControllerStatus.SchedulerSeen;
import io.aryl.labels.LedgerReconciler.Unlisted;
import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanDecider.Memory;
import io.aryl.labels.LoanDecisions.Taken;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("ControllerStatus: the status endpoint's JSON, from one snapshot of the controller")
class ControllerStatusTest {
  private static final LoanCounters.Snapshot COUNTERS = new LoanCounters.Snapshot(5, 2, 1, 3, 4, 1, 2);
  private static final List<LoanEntry> LEDGER = List.of(
      LoanEntry.home("inf-0:1", 2, 100, "seen in the inference pool"),
      LoanEntry.loaned("inf-1:1", 2, 200, "rate 50.0 rps needs 1 server(s) + margin 0 of 4: loan 2"),
      LoanEntry.reclaiming("inf-2:1", 2, 300, "asked back", 7, 9_000),
      LoanEntry.reclaiming("inf-3:1", 2, 300, "asked back", 8, 9_000));

  /** A standby that has never decided: only what every instance knows. */
  private static ControllerStatus standby() {
    return new ControllerStatus("b", LoanController.Role.STANDBY, false, -1, true, 1_000, 3, null, null, null,
        List.of(), Map.of(), null, ReclaimBackoff.NONE, new LoanCounters.Snapshot(0, 0, 0, 0, 0, 0, 0), 0, null);
  }

  /** A leader after some decisions, with an error, a backoff and a request on its way. */
  private static ControllerStatus leader(Map<String, Unlisted> unlisted) {
    DemandReading demand = new DemandReading(150, false, Map.of("replay", 150.0));
    Taken decision = new Taken(new Decision(0, 0, 2, "held", new Memory(-1, 500)), 2_000);
    return new ControllerStatus("a", LoanController.Role.LEADER, true, 4, true, 2_000, 40, demand,
        new SchedulerSeen(2_000, true, false, "http://rm1:8088"), decision, LEDGER, unlisted,
        new ReclaimIntent(1, 9_500, 1_900, 4), ReclaimBackoff.NONE.refused(1_500, 50, "only 0 are loaned"),
        COUNTERS, 1_950, new ErrorNote("reclaim of 1 refused", 1_500));
  }

  @Test
  @DisplayName("keys come in a fixed order; a leader shows its scheduler and decision, a standby leaves them out")
  void keyOrder() {
    List<String> always = List.of("instance", "role", "acting", "epoch", "zooKeeperConnected", "lastTickMs", "ticks",
        "demand", "counts", "ledger", "pendingReclaimRequest", "reclaimBackoff", "counters", "reportedToSchedulerMs",
        "lastError", "lastErrorMs");
    assertThat(standby().toMap().keySet()).containsExactlyElementsOf(always);
    assertThat(leader(Map.of()).toMap().keySet()).containsExactly("instance", "role", "acting", "epoch",
        "zooKeeperConnected", "lastTickMs", "ticks", "demand", "scheduler", "decision", "counts", "ledger",
        "pendingReclaimRequest", "reclaimBackoff", "counters", "reportedToSchedulerMs", "lastError", "lastErrorMs");
  }

  @Test
  @DisplayName("before the first decision: no demand, no backoff, no error, every count 0")
  void beforeTheFirstDecision() {
    Map<String, Object> s = standby().toMap();
    assertThat(s).containsEntry("instance", "b").containsEntry("role", "STANDBY").containsEntry("acting", false)
        .containsEntry("epoch", -1L).containsEntry("zooKeeperConnected", true).containsEntry("lastTickMs", 1_000L)
        .containsEntry("ticks", 3L).containsEntry("demand", Map.of()).containsEntry("ledger", List.of())
        .containsEntry("pendingReclaimRequest", null).containsEntry("reclaimBackoff", null)
        .containsEntry("reportedToSchedulerMs", 0L).containsEntry("lastError", null)
        .containsEntry("lastErrorMs", null);
    assertThat(s.get("counts")).isEqualTo(Map.of("HOME", 0, "LOANED", 0, "RECLAIMING", 0));
  }

  @Test
  @DisplayName("a leader shows the scheduler, the decision, the backoff, the counters and the last error")
  void leaderParts() {
    Map<String, Object> s = leader(Map.of()).toMap();
    assertThat(s).containsEntry("epoch", 4L).containsEntry("reportedToSchedulerMs", 1_950L)
        .containsEntry("lastError", "reclaim of 1 refused").containsEntry("lastErrorMs", 1_500L)
        .containsEntry("pendingReclaimRequest", new ReclaimIntent(1, 9_500, 1_900, 4));
    assertThat(s.get("demand")).isEqualTo(new DemandReading(150, false, Map.of("replay", 150.0)).toStatus());
    assertInOrder(s.get("scheduler"), "atMs", 2_000L, "reachable", true, "recovering", false,
        "address", "http://rm1:8088");
    assertInOrder(s.get("decision"), "atMs", 2_000L, "needed", 2, "loan", 0, "reclaim", 0,
        "reason", "held");
    assertInOrder(s.get("reclaimBackoff"), "refusals", 1, "lastRefusal", "only 0 are loaned",
        "nextAttemptMs", 1_550L);
    assertInOrder(s.get("counters"), "nodesLoaned", 5L, "reclaimsRequested", 2L,
        "reclaimsAdopted", 1L, "reclaimsRefused", 3L, "nodesReturned", 4L, "fencedWrites", 1L, "epochsClaimed", 2L);
    assertThat(s.get("counts")).isEqualTo(Map.of("HOME", 1, "LOANED", 1, "RECLAIMING", 2));
  }

  @ParameterizedTest(name = "[{index}] {3}")
  @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      # unlisted node | under reclaim | since | case
        inf-2:1       | 7             | 1200  | a reclaim the scheduler does not list shows since when
        inf-2:1       | 6             | -     | a period of an earlier reclaim says nothing of this one
        inf-1:1       | 7             | -     | only RECLAIMING entries show it
        -             | -             | -     | a listed reclaim shows nothing
      """)
  @DisplayName("a RECLAIMING entry shows its reclaim, and since when the scheduler has not listed it")
  void unlistedSince(String node, Long reclaimId, Long sinceMs, String why) {
    Map<String, Unlisted> unlisted = node == null ? Map.of() : Map.of(node, new Unlisted(reclaimId, 1_200));

    List<Map<String, Object>> ledger = ledgerOf(leader(unlisted).toMap());

    assertThat(ledger).hasSize(4);
    assertThat(ledger.get(1)).as("LOANED: no reclaim fields").containsOnlyKeys("node", "state", "epoch", "sinceMs",
        "reason");
    Map<String, Object> reclaiming = ledger.get(2);
    assertThat(reclaiming).containsEntry("node", "inf-2:1").containsEntry("state", "RECLAIMING")
        .containsEntry("epoch", 2L).containsEntry("sinceMs", 300L).containsEntry("reclaimId", 7L)
        .containsEntry("deadlineMs", 9_000L);
    if (sinceMs == null) {
      assertThat(reclaiming).as(why).doesNotContainKey("unlistedSinceMs");
    } else {
      assertThat(reclaiming).as(why).containsEntry("unlistedSinceMs", sinceMs);
    }
    assertThat(ledger.get(3)).as("another reclaim's node").doesNotContainKey("unlistedSinceMs");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> ledgerOf(Map<String, Object> status) {
    return (List<Map<String, Object>>) status.get("ledger");
  }

  /** {@code actual} is a map of the keys and values {@code kv}, in that order. */
  private static void assertInOrder(Object actual, Object... kv) {
    Map<String, Object> expected = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      expected.put((String) kv[i], kv[i + 1]);
    }
    assertThat(actual).asInstanceOf(InstanceOfAssertFactories.map(String.class, Object.class))
        .containsExactlyEntriesOf(expected);
  }
}
