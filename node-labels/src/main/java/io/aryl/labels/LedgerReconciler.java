package io.aryl.labels;

import io.aryl.labels.LoanLedger.PutEntry;
import io.aryl.labels.LoanLedger.Versioned;
import io.aryl.labels.LoanLedger.Write;
import io.aryl.labels.Pools.PoolNode;
import io.aryl.labels.Pools.SchedulerView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Brings the ledger in line with the nodes' labels: a node labelled inference is HOME, a node the ledger knows that is
 * labelled training is LOANED or RECLAIMING; nodes of the training pool itself never enter the ledger.
 *
 * <p>A RECLAIMING node goes back to LOANED (to be asked for anew) only once a settled scheduler has not listed its
 * reclaim for {@code unknownGraceMs} without a break, and only after the reclaim's deadline: a new scheduler may not
 * know a reclaim at first, and undoing one it still drains would ask for the same nodes twice. The reconciler
 * remembers since when each such node has gone unlisted; that memory is the leader's, and a new leader starts it
 * afresh ({@link #forget()}).
 *
 * <p>Reconciles on one thread; {@link #unlisted()} may be read from any.
 */
final class LedgerReconciler {
  /** Since when a settled scheduler has not listed reclaim {@code reclaimId} of a RECLAIMING node. */
  record Unlisted(long reclaimId, long sinceMs) {}

  /**
   * What one reconciliation found.
   *
   * @param writes the ledger writes to commit, all in one transaction
   * @param returned nodes that came home from a loan or a reclaim
   * @param notes what changed, one line per node, for the log
   */
  record Result(List<Write> writes, int returned, List<String> notes) {
    Result {
      writes = List.copyOf(writes);
      notes = List.copyOf(notes);
    }
  }

  private final String inferenceLabel;
  private final String trainingLabel;
  private final long unknownGraceMs;
  private volatile Map<String, Unlisted> unlisted = Map.of();

  LedgerReconciler(String inferenceLabel, String trainingLabel, long unknownGraceMs) {
    this.inferenceLabel = inferenceLabel;
    this.trainingLabel = trainingLabel;
    this.unknownGraceMs = unknownGraceMs;
  }

  /**
   * @param nodes the running nodes and their labels
   * @param entries the ledger as read
   * @param settled the scheduler's view when it is reachable and not recovering, else null: what it does not list
   *     means something only then
   * @param epoch epoch the writes are made under
   */
  Result reconcile(List<PoolNode> nodes, Map<String, Versioned<LoanEntry>> entries, SchedulerView settled, long epoch,
      long now) {
    List<Write> writes = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    int returned = 0;
    Map<String, Unlisted> stillUnlisted = new HashMap<>();
    for (PoolNode n : nodes) {
      Versioned<LoanEntry> v = entries.get(n.name());
      LoanEntry entry = v == null ? null : v.value();
      int version = v == null ? -1 : v.version();
      if (n.labelled(inferenceLabel)) {
        if (entry == null) {
          writes.add(new PutEntry(LoanEntry.home(n.name(), epoch, now, "seen in the inference pool"), -1));
        } else if (entry.state() != LoanState.HOME) {
          String why = entry.state() == LoanState.RECLAIMING
              ? "returned by reclaim " + entry.reclaimId() + (now > entry.deadlineMs() ? " after" : " before")
                  + " its deadline"
              : "relabelled inference while on loan";
          writes.add(new PutEntry(LoanEntry.home(n.name(), epoch, now, why), version));
          returned++;
          notes.add(n.name() + " is home: " + why);
        }
      } else if (n.labelled(trainingLabel) && entry != null) {
        if (entry.state() == LoanState.HOME) {
          writes.add(new PutEntry(LoanEntry.loaned(n.name(), epoch, now, "found labelled " + trainingLabel),
              version));
        } else if (entry.state() == LoanState.RECLAIMING && settled != null
            && !settled.lists(entry.reclaimId(), n.name())) {
          long id = entry.reclaimId();
          Unlisted u = unlisted.get(n.name());
          if (u == null || u.reclaimId() != id) {
            u = new Unlisted(id, now);
          }
          if (onLoanAgain(u, entry, now)) {
            String why = "reclaim " + id + " unknown to the scheduler for " + (now - u.sinceMs()) + " ms, past its"
                + " deadline: on loan again";
            writes.add(new PutEntry(LoanEntry.loaned(n.name(), epoch, now, why), version));
            notes.add(n.name() + ": " + why);
          } else {
            stillUnlisted.put(n.name(), u);
          }
        }
      }
    }
    // A node listed again, not seen, or seen while the scheduler was not settled starts its period afresh.
    unlisted = Map.copyOf(stillUnlisted);
    return new Result(writes, returned, notes);
  }

  /** RECLAIMING nodes whose reclaim the scheduler did not list at the last reconciliation, by node. */
  Map<String, Unlisted> unlisted() {
    return unlisted;
  }

  /** Starts afresh: for a new leader, no node has gone unlisted yet. */
  void forget() {
    unlisted = Map.of();
  }

  /** True when a RECLAIMING node the scheduler does not list counts as on loan again. */
  private boolean onLoanAgain(Unlisted u, LoanEntry entry, long now) {
    return now - u.sinceMs() >= unknownGraceMs && now > entry.deadlineMs();
  }
}
