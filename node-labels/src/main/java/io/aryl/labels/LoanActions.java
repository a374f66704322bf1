package io.aryl.labels;

import io.aryl.labels.LoanLedger.DeleteIntent;
import io.aryl.labels.LoanLedger.Epoch;
import io.aryl.labels.LoanLedger.PutEntry;
import io.aryl.labels.LoanLedger.PutIntent;
import io.aryl.labels.LoanLedger.Versioned;
import io.aryl.labels.Pools.ReclaimRefusedException;
import io.aryl.labels.Pools.SchedulerReclaim;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the leader does once it has decided. A loan is written to the ledger before the node is relabelled, so that
 * without ZooKeeper nothing new is loaned. A reclaim is written as an intent before it is asked of the scheduler, so
 * that a successor can adopt an answer never recorded; a reclaim the scheduler refuses is asked for again only after a
 * {@link ReclaimBackoff}, kept here from one decision to the next.
 */
final class LoanActions {
  // The controller's logger: its log lines keep the name deployments already filter on.
  private static final Logger LOG = LoggerFactory.getLogger(LoanController.class);

  private final Leadership leadership;
  private final Pools pools;
  private final LoanController.Config config;
  private final LoanCounters counters;
  private final Consumer<String> errors;
  private volatile ReclaimBackoff backoff = ReclaimBackoff.NONE;

  /** @param errors where an error the status shows is recorded */
  LoanActions(Leadership leadership, Pools pools, LoanController.Config config, LoanCounters counters,
      Consumer<String> errors) {
    this.leadership = leadership;
    this.pools = pools;
    this.config = config;
    this.counters = counters;
    this.errors = errors;
  }

  /** Loans {@code nodes}, in order; stops at the first that cannot be relabelled. */
  void loan(Epoch e, Map<String, Versioned<LoanEntry>> entries, List<String> nodes, String reason, long now)
      throws Exception {
    for (String node : nodes) {
      Versioned<LoanEntry> v = entries.get(node);
      leadership.commit(e, List.of(new PutEntry(LoanEntry.loaned(node, e.version(), now, reason), v.version())));
      leadership.requireActing(e);
      try {
        pools.relabel(node, config.trainingLabel());
        counters.nodesLoaned.incrementAndGet();
        LOG.info("loan controller {} (epoch {}): loaned {}: {}", config.instanceId(), e.version(), node, reason);
      } catch (Exception ex) {
        // Not relabelled: the next reconciliation brings the entry home again (labelled inference).
        errors.accept("loaning " + node + ": " + ex.getMessage());
        LOG.warn("loan controller {}: relabelling {} failed: {}", config.instanceId(), node, ex.toString());
        return;
      }
    }
  }

  /** Asks the scheduler for {@code count} loaned nodes back and records the ones it chose as RECLAIMING. */
  void reclaim(Epoch e, Map<String, Versioned<LoanEntry>> entries, int count, String reason, long now)
      throws Exception {
    long deadline = now + config.reclaimDeadlineMs();
    ReclaimIntent intent = new ReclaimIntent(count, deadline, now, e.version());
    leadership.commit(e, List.of(new PutIntent(intent, -1)));
    leadership.requireActing(e);
    SchedulerReclaim answer;
    try {
      answer = pools.requestReclaim(count, deadline);
    } catch (ReclaimRefusedException ex) {
      counters.reclaimsRefused.incrementAndGet();
      String refusal = Objects.toString(ex.getMessage(), "no reason given");
      backoff = backoff.refused(now, config.intervalMs(), refusal);
      String why = "reclaim of " + count + " refused (" + backoff.refusals() + " in a row): " + refusal
          + "; next attempt in " + (backoff.nextAttemptMs() - now) + " ms";
      errors.accept(why);
      LOG.warn("loan controller {}: {}", config.instanceId(), why);
      leadership.commit(e, List.of(new DeleteIntent(0)));
      return;
    }
    backoff = ReclaimBackoff.NONE;
    counters.reclaimsRequested.incrementAndGet();
    LOG.info("loan controller {} (epoch {}): reclaim {} of {} node(s) {} by {}: {}", config.instanceId(), e.version(),
        answer.id(), count, answer.nodes(), deadline, reason);
    leadership.commit(e, ReclaimAnswer.writes(e.version(), entries, answer, 0, now, reason));
  }

  /** The scheduler's refusals in a row; {@link ReclaimBackoff#NONE} when the last reclaim was accepted. */
  ReclaimBackoff backoff() {
    return backoff;
  }

  /** Starts afresh for a new leader: it has not been refused yet. */
  void forgetBackoff() {
    backoff = ReclaimBackoff.NONE;
  }
}
