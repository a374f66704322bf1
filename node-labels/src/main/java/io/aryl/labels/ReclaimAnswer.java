package io.aryl.labels;

import io.aryl.labels.LoanLedger.DeleteIntent;
import io.aryl.labels.LoanLedger.PutEntry;
import io.aryl.labels.LoanLedger.Versioned;
import io.aryl.labels.LoanLedger.Write;
import io.aryl.labels.Pools.SchedulerReclaim;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The ledger writes that record the scheduler's answer to a reclaim request, whether the leader that asked records it
 * or a successor adopts it: the reclaim's nodes RECLAIMING, the request answered.
 */
final class ReclaimAnswer {
  private ReclaimAnswer() {}

  /**
   * @param epoch epoch the writes are made under
   * @param entries the ledger as read: the versions the writes replace
   * @param answer the scheduler's reclaim
   * @param intentVersion version of the request's intent znode, deleted in the same transaction
   */
  static List<Write> writes(long epoch, Map<String, Versioned<LoanEntry>> entries, SchedulerReclaim answer,
      int intentVersion, long now, String reason) {
    List<Write> writes = new ArrayList<>();
    for (String node : answer.nodes()) {
      Versioned<LoanEntry> v = entries.get(node);
      writes.add(new PutEntry(LoanEntry.reclaiming(node, epoch, now, reason, answer.id(), answer.deadlineMs()),
          v == null ? -1 : v.version()));
    }
    writes.add(new DeleteIntent(intentVersion));
    return writes;
  }
}
