package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.LoanTargetStatus;
import io.aryl.labels.ControllerStatus.Answer;
import io.aryl.labels.ControllerStatus.ErrorNote;
import io.aryl.labels.ControllerStatus.SchedulerSeen;
import io.aryl.labels.ControllerStatus.Sent;
import io.aryl.labels.ControllerStatus.Taken;
import io.aryl.labels.LoanDecider.Change;
import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanDecider.Memory;
import io.aryl.labels.LoanDecider.Target;
import io.aryl.labels.SchedulerLink.SchedulerView;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ControllerStatus: the status endpoint's JSON, from one snapshot of the controller")
class ControllerStatusTest {
  private static final LoanCounters.Snapshot COUNTERS =
      new LoanCounters.Snapshot(40, 2, 1, 38, 36, 1, 0, 1, 2, 0);
  private static final LoanTargetStatus IN_FORCE =
      new LoanTargetStatus(4, "a", 2, 9_000, 1_900, "lowered", 1_910, 2);

  /** A standby that has never decided: only what every instance knows. */
  private static ControllerStatus standby() {
    return new ControllerStatus(
        "b",
        LoanController.Role.STANDBY,
        false,
        -1,
        true,
        1_000,
        3,
        null,
        null,
        null,
        null,
        new LoanCounters.Snapshot(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        null);
  }

  /** A leader after some decisions, with an error and a target accepted. */
  private static ControllerStatus leader(Sent sent) {
    return leader(
        sent,
        new LeadPlanner.Plan(
            150,
            180,
            new LeadPlanner.Part(2_300, 3, 4_100),
            new LeadPlanner.Part(2_500, 4, 2_700)));
  }

  /** The same leader, its last decision planned as {@code plan}. */
  private static ControllerStatus leader(Sent sent, LeadPlanner.Plan plan) {
    DemandReading demand = new DemandReading(150, false, Map.of("replay", 150.0));
    Decision d =
        new Decision(
            new Target(2, 9_000),
            Change.LOWERED,
            2,
            "lowered from 3 to 2",
            new Memory(-1, 2_000, new Target(2, 9_000)));
    return new ControllerStatus(
        "a",
        LoanController.Role.LEADER,
        true,
        4,
        true,
        2_000,
        40,
        demand,
        new SchedulerSeen(2_000, "http://rm1:8088", new SchedulerView(false, 4, 3, IN_FORCE)),
        new Taken(d, 2_000, plan),
        sent,
        COUNTERS,
        new ErrorNote("target refused (503): recovering", 1_500));
  }

  private static final Sent ACCEPTED =
      new Sent(2_000, 4, 2, 9_000, Answer.ACCEPTED, IN_FORCE, 4, false, null);

  @Test
  @DisplayName("keys come in a fixed order, the same for a standby and a leader")
  void keyOrder() {
    List<String> keys =
        List.of(
            "instance",
            "role",
            "acting",
            "epoch",
            "zooKeeperConnected",
            "lastTickMs",
            "ticks",
            "demand",
            "scheduler",
            "decision",
            "lastTarget",
            "counters",
            "lastError",
            "lastErrorMs");
    assertThat(standby().toMap().keySet()).containsExactlyElementsOf(keys);
    assertThat(leader(ACCEPTED).toMap().keySet()).containsExactlyElementsOf(keys);
  }

  @Test
  @DisplayName(
      "before the first decision: no demand, no scheduler, no decision, no target, no error, every count 0")
  void beforeTheFirstDecision() {
    Map<String, Object> s = standby().toMap();
    assertThat(s)
        .containsEntry("instance", "b")
        .containsEntry("role", "STANDBY")
        .containsEntry("acting", false)
        .containsEntry("epoch", -1L)
        .containsEntry("zooKeeperConnected", true)
        .containsEntry("lastTickMs", 1_000L)
        .containsEntry("ticks", 3L)
        .containsEntry("demand", Map.of())
        .containsEntry("scheduler", null)
        .containsEntry("decision", null)
        .containsEntry("lastTarget", null)
        .containsEntry("lastError", null)
        .containsEntry("lastErrorMs", null);
    assertThat((Map<?, ?>) s.get("counters"))
        .allSatisfy((k, v) -> assertThat(v).as("%s", k).isEqualTo(0L));
  }

  @Test
  @DisplayName(
      "a leader shows the scheduler as last seen, the decision, the target sent and its answer, the counters"
          + " and the last error")
  void leaderParts() {
    Map<String, Object> s = leader(ACCEPTED).toMap();
    assertThat(s)
        .containsEntry("epoch", 4L)
        .containsEntry("lastError", "target refused (503): recovering")
        .containsEntry("lastErrorMs", 1_500L);
    assertThat(s.get("demand"))
        .isEqualTo(new DemandReading(150, false, Map.of("replay", 150.0)).toStatus());
    Map<String, Object> target = new LinkedHashMap<>();
    target.put("epoch", 4L);
    target.put("controller", "a");
    target.put("maxOnLoan", 2);
    target.put("returnByMs", 9_000L);
    target.put("onLoan", 2);
    target.put("receivedMs", 1_910L);
    target.put("reason", "lowered");
    assertInOrder(
        s.get("scheduler"),
        "atMs",
        2_000L,
        "reachable",
        true,
        "recovering",
        false,
        "address",
        "http://rm1:8088",
        "inferenceNodes",
        4,
        "onLoan",
        3,
        "target",
        target);
    assertInOrder(
        s.get("decision"),
        "atMs",
        2_000L,
        "needed",
        2,
        "change",
        "LOWERED",
        "maxOnLoan",
        2,
        "returnByMs",
        9_000L,
        "reason",
        "lowered from 3 to 2",
        "rate",
        150.0,
        "forecastRate",
        180.0,
        "timeToServe",
        Map.of(
            "usedMs",
            4_800L,
            "reclaim",
            Map.of("usedMs", 2_300L, "measured", 3, "lastMs", 4_100L),
            "startup",
            Map.of("usedMs", 2_500L, "measured", 4, "lastMs", 2_700L)));
    assertInOrder(
        s.get("lastTarget"),
        "atMs",
        2_000L,
        "epoch",
        4L,
        "maxOnLoan",
        2,
        "returnByMs",
        9_000L,
        "answer",
        "ACCEPTED",
        "detail",
        null,
        "inForce",
        target,
        "inferenceNodes",
        4,
        "recovering",
        false);
    assertInOrder(
        s.get("counters"),
        "decisions",
        40L,
        "raised",
        2L,
        "lowered",
        1L,
        "targetsSent",
        38L,
        "targetsAccepted",
        36L,
        "targetsRefused",
        1L,
        "targetsStale",
        0L,
        "sendFailures",
        1L,
        "epochsClaimed",
        2L,
        "standDowns",
        0L);
  }

  @Test
  @DisplayName(
      "no replica's start-up measured (a source that sees no replicas): the start-up shows 0 on 0"
          + " measures, the lead is the reclaim")
  void startupNotMeasured() {
    Map<?, ?> decision =
        (Map<?, ?>)
            leader(
                    ACCEPTED,
                    new LeadPlanner.Plan(
                        150,
                        150,
                        new LeadPlanner.Part(30_000, 0, -1),
                        new LeadPlanner.Part(0, 0, -1)))
                .toMap()
                .get("decision");
    assertInOrder(
        decision.get("timeToServe"),
        "usedMs",
        30_000L,
        "reclaim",
        part(30_000L, 0, null),
        "startup",
        part(0L, 0, null));
  }

  /** One part of the lead as the status shows it. */
  private static Map<String, Object> part(long usedMs, int measured, Long lastMs) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("usedMs", usedMs);
    m.put("measured", measured);
    m.put("lastMs", lastMs);
    return m;
  }

  @Test
  @DisplayName("a target not accepted shows why, and no answer of the scheduler's")
  void refusedTarget() {
    Sent stale =
        new Sent(2_000, 4, 2, 0, Answer.STALE, null, -1, false, "a newer epoch is in force");
    assertInOrder(
        leader(stale).toMap().get("lastTarget"),
        "atMs",
        2_000L,
        "epoch",
        4L,
        "maxOnLoan",
        2,
        "returnByMs",
        0L,
        "answer",
        "STALE",
        "detail",
        "a newer epoch is in force",
        "inForce",
        null,
        "inferenceNodes",
        null,
        "recovering",
        null);
  }

  @Test
  @DisplayName("an unreachable scheduler shows reachable false and nothing it would have said")
  void unreachableScheduler() {
    ControllerStatus s =
        new ControllerStatus(
            "a",
            LoanController.Role.LEADER,
            true,
            4,
            true,
            2_000,
            40,
            null,
            new SchedulerSeen(2_000, "", null),
            null,
            null,
            COUNTERS,
            null);
    assertInOrder(
        s.toMap().get("scheduler"),
        "atMs",
        2_000L,
        "reachable",
        false,
        "recovering",
        false,
        "address",
        "",
        "inferenceNodes",
        null,
        "onLoan",
        null,
        "target",
        null);
  }

  /** {@code actual} is a map of the keys and values {@code kv}, in that order. */
  private static void assertInOrder(Object actual, Object... kv) {
    Map<String, Object> expected = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      expected.put((String) kv[i], kv[i + 1]);
    }
    assertThat(actual)
        .asInstanceOf(InstanceOfAssertFactories.map(String.class, Object.class))
        .containsExactlyEntriesOf(expected);
  }
}
