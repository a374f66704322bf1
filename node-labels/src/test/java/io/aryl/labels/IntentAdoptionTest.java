package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.labels.IntentAdoption.Adopt;
import io.aryl.labels.IntentAdoption.Forget;
import io.aryl.labels.IntentAdoption.InTransit;
import io.aryl.labels.IntentAdoption.Outcome;
import io.aryl.labels.LoanLedger.DeleteIntent;
import io.aryl.labels.LoanLedger.PutEntry;
import io.aryl.labels.LoanLedger.Versioned;
import io.aryl.labels.Pools.SchedulerReclaim;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("IntentAdoption: a reclaim request whose answer was never recorded is adopted, forgotten, or waits")
class IntentAdoptionTest {
  static final long REQUESTED_MS = 50_000;
  static final long DEADLINE_MS = 170_000;
  static final int INTENT_VERSION = 4;
  static final int EPOCH = 3;

  /** Asked for 2 nodes by epoch 2, at {@link #REQUESTED_MS}, due at {@link #DEADLINE_MS}. */
  private final Versioned<ReclaimIntent> intent =
      new Versioned<>(new ReclaimIntent(2, DEADLINE_MS, REQUESTED_MS, 2), INTENT_VERSION);
  private final FakePools pools = new FakePools();
  private final Map<String, Versioned<LoanEntry>> entries = new HashMap<>();

  IntentAdoptionTest() {
    for (int i = 0; i < 3; i++) {
      pools.node("inf-" + i + ":1", "training", 0);
      entries.put("inf-" + i + ":1", new Versioned<>(LoanEntry.loaned("inf-" + i + ":1", 2, 1, "loaned"), 10 + i));
    }
  }

  /** The scheduler accepts a reclaim of 2 nodes at {@code atMs}, due at {@code deadlineMs}. */
  private SchedulerReclaim schedulerAccepts(long atMs, long deadlineMs) throws Exception {
    pools.clock = () -> atMs;
    return pools.requestReclaim(2, deadlineMs);
  }

  enum Expect { ADOPT, FORGET, IN_TRANSIT }

  @ParameterizedTest(name = "[{index}] {6}")
  @CsvSource(delimiter = '|', textBlock = """
      # asked at | due at | in ledger | may forget | now    | outcome    | case
        50000    | 170000 | false     | true       |  51000 | ADOPT      | asked with the request's deadline, after it
        49000    | 170000 | false     | true       |  51000 | ADOPT      | asked up to 1 s before the request
        48999    | 170000 | false     | true       |  51000 | IN_TRANSIT | asked earlier: another reclaim
        50000    | 170001 | false     | true       |  51000 | IN_TRANSIT | another deadline: another reclaim
        50000    | 170000 | true      | true       |  51000 | IN_TRANSIT | recorded already: not adopted twice
        50000    | 170001 | false     | true       |  64999 | IN_TRANSIT | no answer yet, the request may still arrive
        50000    | 170001 | false     | true       |  65000 | FORGET     | no answer 15 s after: it never arrived
        50000    | 170000 | false     | false      |  51000 | ADOPT      | a recovering scheduler's answer is adopted
        50000    | 170001 | false     | false      | 999999 | IN_TRANSIT | a recovering scheduler's: never forgotten
      """)
  @DisplayName("the scheduler's reclaims, the ledger and the time decide what becomes of the request")
  void resolves(long askedAtMs, long dueAtMs, boolean known, boolean mayForget, long nowMs, Expect expected,
      String why) throws Exception {
    SchedulerReclaim r = schedulerAccepts(askedAtMs, dueAtMs);
    if (known) {
      entries.put("inf-0:1", new Versioned<>(
          LoanEntry.reclaiming("inf-0:1", 2, 1, "asked back", r.id(), r.deadlineMs()), 10));
    }

    Outcome o = IntentAdoption.of(intent, entries, pools.scheduler().reclaims(), EPOCH, nowMs, mayForget);

    switch (expected) {
      case ADOPT -> assertThat(o).as(why).isInstanceOfSatisfying(Adopt.class,
          a -> assertThat(a.reclaim()).isEqualTo(r));
      case FORGET -> assertThat(o).as(why).isInstanceOfSatisfying(Forget.class,
          f -> assertThat(f.writes()).containsExactly(new DeleteIntent(INTENT_VERSION)));
      case IN_TRANSIT -> assertThat(o).as(why).isInstanceOf(InTransit.class);
    }
  }

  @Test
  @DisplayName("adopting records the reclaim's nodes RECLAIMING over the entries read, and answers the request,"
      + " in one transaction")
  void adoptionRecordsTheReclaim() throws Exception {
    entries.remove("inf-1:1"); // loaned, but not in the ledger as read: its entry is created
    SchedulerReclaim answer = schedulerAccepts(REQUESTED_MS + 200, DEADLINE_MS);
    assertThat(answer.nodes()).containsExactly("inf-0:1", "inf-1:1");

    Outcome o = IntentAdoption.of(intent, entries, pools.scheduler().reclaims(), EPOCH, REQUESTED_MS + 500, true);

    String reason = "adopted reclaim " + answer.id() + " requested by epoch 2";
    assertThat(o).isInstanceOfSatisfying(Adopt.class, a -> assertThat(a.writes()).containsExactly(
        new PutEntry(LoanEntry.reclaiming("inf-0:1", EPOCH, REQUESTED_MS + 500, reason, answer.id(), DEADLINE_MS), 10),
        new PutEntry(LoanEntry.reclaiming("inf-1:1", EPOCH, REQUESTED_MS + 500, reason, answer.id(), DEADLINE_MS), -1),
        new DeleteIntent(INTENT_VERSION)));
  }

  @Test
  @DisplayName("with no reclaim at the scheduler, a fresh request waits")
  void nothingListed() {
    assertThat(IntentAdoption.of(intent, entries, List.of(), EPOCH, REQUESTED_MS, true)).isInstanceOf(InTransit.class);
  }
}
