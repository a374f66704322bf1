package io.aryl.labels;

import io.aryl.labels.LoanLedger.DeleteIntent;
import io.aryl.labels.LoanLedger.Versioned;
import io.aryl.labels.LoanLedger.Write;
import io.aryl.labels.Pools.SchedulerReclaim;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What becomes of a reclaim request whose answer was never recorded (its leader died between asking and recording):
 * the scheduler's reclaim that answered it is adopted rather than asked for twice; a request that can no longer reach
 * the scheduler is forgotten; otherwise it waits, and the decision with it.
 */
final class IntentAdoption {
  /** How long an unanswered reclaim request may still reach the scheduler: its HTTP timeout plus slack. */
  static final long IN_TRANSIT_MS = 15_000;

  private IntentAdoption() {}

  sealed interface Outcome permits Adopt, Forget, InTransit {}

  /** {@code reclaim} answered the request; {@code writes} record it and delete the request. */
  record Adopt(SchedulerReclaim reclaim, List<Write> writes) implements Outcome {}

  /** The request never reached the scheduler; {@code writes} delete it. */
  record Forget(List<Write> writes) implements Outcome {}

  /** The request may still reach the scheduler: nothing adopted or forgotten yet. */
  record InTransit() implements Outcome {}

  /**
   * @param intent the unanswered request, with its znode version
   * @param entries the ledger as read
   * @param reclaims the scheduler's reclaims
   * @param epoch epoch the writes are made under
   * @param mayForget false while the scheduler recovers: a request it does not list yet may still be among what it
   *     recovers
   */
  static Outcome of(Versioned<ReclaimIntent> intent, Map<String, Versioned<LoanEntry>> entries,
      List<SchedulerReclaim> reclaims, long epoch, long now, boolean mayForget) {
    ReclaimIntent i = intent.value();
    // The scheduler's reclaim that answered it: asked after the request was written, known to no ledger entry.
    Optional<SchedulerReclaim> match = reclaims.stream()
        .filter(r -> r.requestedMs() >= i.requestedMs() - 1000 && r.deadlineMs() == i.deadlineMs())
        .filter(r -> entries.values().stream().noneMatch(v -> v.value().reclaimId() == r.id()))
        .findFirst();
    if (match.isPresent()) {
      SchedulerReclaim r = match.get();
      return new Adopt(r, ReclaimAnswer.writes(epoch, entries, r, intent.version(), now,
          "adopted reclaim " + r.id() + " requested by epoch " + i.epoch()));
    }
    if (!mayForget || now - i.requestedMs() < IN_TRANSIT_MS) {
      return new InTransit();
    }
    return new Forget(List.of(new DeleteIntent(intent.version())));
  }
}
