package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.ReclaimStatus.Phase;
import io.aryl.labels.LedgerReconciler.Result;
import io.aryl.labels.LedgerReconciler.Unlisted;
import io.aryl.labels.LoanLedger.PutEntry;
import io.aryl.labels.LoanLedger.Versioned;
import io.aryl.labels.Pools.PoolNode;
import io.aryl.labels.Pools.SchedulerReclaim;
import io.aryl.labels.Pools.SchedulerView;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("LedgerReconciler: the ledger brought in line with the labels, and reclaims the scheduler does not list")
class LedgerReconcilerTest {
  static final String NODE = "inf-0:1";
  static final long RECLAIM = 7;
  static final long DEADLINE_MS = 100_000;
  static final long GRACE_MS = 10_000;
  static final int EPOCH = 3;
  static final int VERSION = 5;

  private final LedgerReconciler reconciler = new LedgerReconciler("inference", "training", GRACE_MS);
  private final FakePools pools = new FakePools();

  /** What the scheduler says at one reconciliation. */
  enum Says { LISTS, FORGOT, UNSETTLED }

  /** {@link #NODE}'s entry in {@code state}, written by an earlier leader; null for none. */
  private static LoanEntry entry(LoanState state) {
    if (state == null) {
      return null;
    }
    return switch (state) {
      case HOME -> LoanEntry.home(NODE, 1, 1, "seen in the inference pool");
      case LOANED -> LoanEntry.loaned(NODE, 1, 1, "loaned");
      case RECLAIMING -> LoanEntry.reclaiming(NODE, 1, 1, "asked back", RECLAIM, DEADLINE_MS);
    };
  }

  private static Map<String, Versioned<LoanEntry>> ledger(LoanEntry... entries) {
    Map<String, Versioned<LoanEntry>> out = new HashMap<>();
    for (LoanEntry e : entries) {
      out.put(e.node(), new Versioned<>(e, VERSION));
    }
    return out;
  }

  /**
   * The scheduler's view as the controller hands it on: null unless settled. A scheduler that lists the reclaim
   * drains it; a forgetful one is a new scheduler after a restart or failover.
   */
  private SchedulerView settledView(Says says) throws IOException {
    pools.reclaims.clear();
    pools.reclaims.add(new SchedulerReclaim(RECLAIM, Phase.DRAINING, List.of(NODE), 1, DEADLINE_MS));
    pools.forgetsReclaims = says == Says.FORGOT;
    pools.recovering = says == Says.UNSETTLED;
    SchedulerView view = pools.scheduler();
    return view.recovering() ? null : view;
  }

  private Result reconcile(Map<String, Versioned<LoanEntry>> entries, Says says, long now) throws IOException {
    return reconciler.reconcile(pools.nodes(), entries, settledView(says), EPOCH, now);
  }

  /**
   * Reclaim 7 of {@link #NODE} is due at 100000 and the grace is 10000 ms. {@code from}: an earlier reconciliation
   * found the reclaim unlisted at that time; {@code since}: since when it counts as unlisted afterwards.
   */
  @ParameterizedTest(name = "[{index}] {7}")
  @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      # label   | entry      | says      | from   | now    | written | since  | case
      inference | -          | LISTS     | -      | 1000   | HOME    | -      | a new inference node is home
      inference | HOME       | LISTS     | -      | 1000   | -       | -      | a node at home stays so
      inference | LOANED     | LISTS     | -      | 1000   | HOME    | -      | relabelled inference while on loan
      inference | RECLAIMING | FORGOT    | -      | 1000   | HOME    | -      | a reclaimed node, listed or not
      training  | -          | LISTS     | -      | 1000   | -       | -      | a node of the training pool itself
      training  | HOME       | LISTS     | -      | 1000   | LOANED  | -      | at home, found labelled training
      training  | LOANED     | FORGOT    | -      | 1000   | -       | -      | on loan stays on loan
      training  | RECLAIMING | LISTS     | -      | 900000 | -       | -      | listed, long past its deadline
      training  | RECLAIMING | FORGOT    | -      | 900000 | -       | 900000 | first found unlisted: grace starts
      training  | RECLAIMING | FORGOT    | 100001 | 110000 | -       | 100001 | unlisted for less than the grace
      training  | RECLAIMING | FORGOT    | 100001 | 110001 | LOANED  | -      | the grace is over, past the deadline
      training  | RECLAIMING | FORGOT    | 1000   | 100000 | -       | 1000   | the grace is over, at the deadline
      training  | RECLAIMING | FORGOT    | 1000   | 100001 | LOANED  | -      | the grace is over, past the deadline
      training  | RECLAIMING | LISTS     | 100001 | 900000 | -       | -      | listed again: the period ends
      training  | RECLAIMING | UNSETTLED | 100001 | 900000 | -       | -      | recovering: the period ends
      """)
  @DisplayName("a node's label, its ledger entry and the scheduler's word decide what is written")
  void reconciles(String label, LoanState state, Says says, Long unlistedFromMs, long nowMs, LoanState written,
      Long unlistedSinceMs, String why) throws IOException {
    pools.node(NODE, label, 0);
    LoanEntry before = entry(state);
    Map<String, Versioned<LoanEntry>> entries = before == null ? ledger() : ledger(before);
    if (unlistedFromMs != null) {
      assertThat(reconcile(entries, Says.FORGOT, unlistedFromMs).writes()).as("nothing written yet").isEmpty();
    }

    Result r = reconcile(entries, says, nowMs);

    if (written == null) {
      assertThat(r.writes()).as(why).isEmpty();
    } else {
      assertThat(r.writes()).as(why).singleElement().isInstanceOfSatisfying(PutEntry.class, p -> {
        assertThat(p.entry().node()).isEqualTo(NODE);
        assertThat(p.entry().state()).isEqualTo(written);
        assertThat(p.entry().epoch()).isEqualTo(EPOCH);
        assertThat(p.entry().sinceMs()).isEqualTo(nowMs);
        assertThat(p.version()).as("replaces the entry read, or creates it").isEqualTo(before == null ? -1 : VERSION);
      });
    }
    if (unlistedSinceMs == null) {
      assertThat(reconciler.unlisted()).as(why).isEmpty();
    } else {
      assertThat(reconciler.unlisted()).as(why)
          .containsExactly(Map.entry(NODE, new Unlisted(RECLAIM, unlistedSinceMs)));
    }
  }

  @Test
  @DisplayName("nodes that come home are counted and told in the log, with whether their reclaim was late")
  void returnsAreCountedAndTold() throws IOException {
    pools.node("inf-0:1", "inference", 0);
    pools.node("inf-1:1", "inference", 0);
    pools.node("inf-2:1", "inference", 0);
    Map<String, Versioned<LoanEntry>> entries = ledger(
        LoanEntry.reclaiming("inf-0:1", 1, 1, "asked back", RECLAIM, DEADLINE_MS),
        LoanEntry.loaned("inf-1:1", 1, 1, "loaned"),
        LoanEntry.home("inf-2:1", 1, 1, "seen"));

    Result r = reconcile(entries, Says.LISTS, DEADLINE_MS + 1);

    assertThat(r.returned()).isEqualTo(2);
    assertThat(r.notes()).containsExactly(
        "inf-0:1 is home: returned by reclaim 7 after its deadline",
        "inf-1:1 is home: relabelled inference while on loan");
    assertThat(r.writes()).map(w -> ((PutEntry) w).entry().reason()).containsExactly(
        "returned by reclaim 7 after its deadline", "relabelled inference while on loan");
  }

  @Test
  @DisplayName("a node back on loan after the grace is told in the log with how long its reclaim went unlisted")
  void onLoanAgainIsTold() throws IOException {
    pools.node(NODE, "training", 0);
    Map<String, Versioned<LoanEntry>> entries = ledger(entry(LoanState.RECLAIMING));
    reconcile(entries, Says.FORGOT, DEADLINE_MS);

    Result r = reconcile(entries, Says.FORGOT, DEADLINE_MS + GRACE_MS + 5);

    assertThat(r.returned()).as("on loan again is not home").isZero();
    assertThat(r.notes()).containsExactly(NODE + ": reclaim 7 unknown to the scheduler for 10005 ms, past its"
        + " deadline: on loan again");
  }

  @Test
  @DisplayName("a node asked back under another reclaim starts its period afresh")
  void aNewReclaimStartsAfresh() throws IOException {
    pools.node(NODE, "training", 0);
    reconcile(ledger(entry(LoanState.RECLAIMING)), Says.FORGOT, DEADLINE_MS + 1);

    Map<String, Versioned<LoanEntry>> askedAgain = ledger(
        LoanEntry.reclaiming(NODE, 1, 1, "asked back anew", RECLAIM + 1, DEADLINE_MS));
    Result r = reconcile(askedAgain, Says.FORGOT, DEADLINE_MS + GRACE_MS + 1);

    assertThat(r.writes()).as("reclaim 8 has gone unlisted only now").isEmpty();
    assertThat(reconciler.unlisted()).containsExactly(
        Map.entry(NODE, new Unlisted(RECLAIM + 1, DEADLINE_MS + GRACE_MS + 1)));
  }

  @Test
  @DisplayName("a node not running at one decision, or a new leader, starts its period afresh")
  void notSeenOrANewLeaderStartsAfresh() throws IOException {
    Map<String, Versioned<LoanEntry>> entries = ledger(entry(LoanState.RECLAIMING));
    pools.node(NODE, "training", 0);
    reconcile(entries, Says.FORGOT, DEADLINE_MS + 1);
    pools.labels.clear();
    pools.containers.clear();
    reconcile(entries, Says.FORGOT, DEADLINE_MS + 2);
    assertThat(reconciler.unlisted()).as("not running").isEmpty();

    pools.node(NODE, "training", 0);
    reconcile(entries, Says.FORGOT, DEADLINE_MS + 3);
    assertThat(reconciler.unlisted()).hasSize(1);
    reconciler.forget();
    assertThat(reconciler.unlisted()).as("a new leader").isEmpty();
    assertThat(reconcile(entries, Says.FORGOT, DEADLINE_MS + 3 + GRACE_MS).writes()).isEmpty();
  }

  @Test
  @DisplayName("with no grace, a reclaim the settled scheduler does not list is on loan again once past its deadline")
  void noGrace() {
    LedgerReconciler none = new LedgerReconciler("inference", "training", 0);
    List<PoolNode> nodes = List.of(new PoolNode(NODE, Set.of("training"), 0));
    SchedulerView forgot = new SchedulerView(List.of(), false);
    Map<String, Versioned<LoanEntry>> entries = ledger(entry(LoanState.RECLAIMING));

    assertThat(none.reconcile(nodes, entries, forgot, EPOCH, DEADLINE_MS).writes()).isEmpty();
    assertThat(none.reconcile(nodes, entries, forgot, EPOCH, DEADLINE_MS + 1).writes()).singleElement()
        .satisfies(w -> assertThat(((PutEntry) w).entry().state()).isEqualTo(LoanState.LOANED));
  }
}
