package io.aryl.labels;

import io.aryl.labels.ControllerStatus.SchedulerSeen;
import io.aryl.labels.IntentAdoption.Adopt;
import io.aryl.labels.IntentAdoption.Forget;
import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanLedger.Epoch;
import io.aryl.labels.LoanLedger.Versioned;
import io.aryl.labels.Pools.PoolNode;
import io.aryl.labels.Pools.SchedulerView;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One decision of the leader, in order: the scheduler's word, a reclaim request left unanswered, the ledger brought in
 * line with the labels ({@link LedgerReconciler}), demand ({@link DemandReading}), the decision
 * ({@link LoanDecisions}), and what it says to do ({@link LoanActions}). What the round last saw is kept for the
 * status; what it remembers from one decision to the next is the leader's, and a new leader starts it afresh.
 *
 * <p>Runs on the controller's decision thread; the getters may be read from any.
 */
final class DecisionRound {
  // The controller's logger: its log lines keep the name deployments already filter on.
  private static final Logger LOG = LoggerFactory.getLogger(LoanController.class);

  private final LoanController.Config config;
  private final List<DemandSource> demand;
  private final Pools pools;
  private final LoanLedger ledger;
  private final Leadership leadership;
  private final LongSupplier clock;
  private final LoanCounters counters;
  private final Consumer<String> errors;
  private final LedgerReconciler reconciler;
  private final LoanDecisions decisions;
  private final LoanActions actions;

  private volatile DemandReading lastDemand;
  private volatile SchedulerSeen schedulerSeen;
  private volatile List<LoanEntry> lastLedger = List.of();
  private volatile ReclaimIntent lastIntent;
  /** Why the last decision could not be taken ("" when it could): logged when it changes, not every decision. */
  private String lastUnsettled = "";

  /** @param errors where an error the status shows is recorded */
  DecisionRound(LoanController.Config config, List<DemandSource> demand, Pools pools, LoanLedger ledger,
      Leadership leadership, LongSupplier clock, LoanCounters counters, Consumer<String> errors) {
    this.config = config;
    this.demand = demand;
    this.pools = pools;
    this.ledger = ledger;
    this.leadership = leadership;
    this.clock = clock;
    this.counters = counters;
    this.errors = errors;
    this.reconciler = new LedgerReconciler(config.inferenceLabel(), config.trainingLabel(),
        config.reclaimUnknownGraceMs());
    this.decisions = new LoanDecisions(new LoanDecider(config.decider()));
    this.actions = new LoanActions(leadership, pools, config, counters, errors);
  }

  /** One decision under epoch {@code e}. */
  void run(Epoch e) throws Exception {
    long now = clock.getAsLong();
    List<PoolNode> nodes;
    try {
      nodes = pools.nodes();
    } catch (IOException ex) {
      String why = "the ResourceManager is unreachable: " + ex.getMessage();
      errors.accept(why);
      decisions.none(now, Double.NaN, why);
      return;
    }

    // 0. The scheduler's word: what it does not list means something only when it is reachable and not recovering.
    SchedulerView view = null;
    String unsettled = "";
    try {
      view = pools.scheduler();
      if (view.recovering()) {
        unsettled = "the scheduler is recovering (NodeManagers re-registering after a restart or failover)";
      }
    } catch (IOException ex) {
      unsettled = "the scheduler is unreachable: " + ex.getMessage();
      errors.accept(unsettled);
    }
    schedulerSeen = new SchedulerSeen(now, view != null, view != null && view.recovering(), pools.schedulerAddress());
    boolean settled = unsettled.isEmpty();
    if (!unsettled.equals(lastUnsettled)) {
      if (settled) {
        LOG.info("loan controller {}: the scheduler is settled again: decisions resume", config.instanceId());
      } else {
        LOG.warn("loan controller {}: no decision while {}", config.instanceId(), unsettled);
      }
      lastUnsettled = unsettled;
    }

    // 1. A reclaim request whose answer was never recorded: adopt the scheduler's reclaim, or forget the request.
    // Without the scheduler's word it is neither; while the scheduler recovers it may be adopted, not forgotten.
    Optional<Versioned<ReclaimIntent>> intent = ledger.intent();
    Map<String, Versioned<LoanEntry>> entries = ledger.entries();
    boolean requestInTransit = false;
    if (intent.isPresent()) {
      requestInTransit = view == null || !resolve(e, intent.get(), entries, view.reclaims(), now, settled);
      entries = ledger.entries();
    }

    // 2. The ledger follows the labels.
    LedgerReconciler.Result r = reconciler.reconcile(nodes, entries, settled ? view : null, e.version(), now);
    counters.nodesReturned.addAndGet(r.returned());
    r.notes().forEach(note -> LOG.info("loan controller {}: {}", config.instanceId(), note));
    if (!r.writes().isEmpty()) {
      leadership.commit(e, r.writes());
      entries = ledger.entries();
    }
    lastLedger = entries.values().stream().map(Versioned::value).toList();
    lastIntent = ledger.intent().map(Versioned::value).orElse(null);

    // 3. Demand.
    DemandReading d = DemandReading.read(demand);
    lastDemand = d;

    // 4. Decide, only on the word of a settled scheduler.
    if (!settled) {
      decisions.none(now, d.rate(), unsettled);
      return;
    }
    PoolCensus census = PoolCensus.of(entries.values(), nodes, config.inferenceLabel());
    Decision decision = decisions.decide(census.observation(now, d.rate(), d.complete()), requestInTransit,
        actions.backoff());

    // 5. Act.
    if (decision.loan() > 0) {
      actions.loan(e, entries, census.idle().subList(0, decision.loan()), decision.reason(), now);
    } else if (decision.reclaim() > 0) {
      actions.reclaim(e, entries, decision.reclaim(), decision.reason(), now);
    }
  }

  /**
   * Adopts or forgets an unanswered reclaim request.
   *
   * @param mayForget false while the scheduler recovers
   * @return false while the request may still reach the scheduler (nothing adopted or forgotten yet)
   */
  private boolean resolve(Epoch e, Versioned<ReclaimIntent> intent, Map<String, Versioned<LoanEntry>> entries,
      List<Pools.SchedulerReclaim> reclaims, long now, boolean mayForget) throws Exception {
    IntentAdoption.Outcome outcome = IntentAdoption.of(intent, entries, reclaims, e.version(), now, mayForget);
    long askedUnder = intent.value().epoch();
    if (outcome instanceof Adopt a) {
      leadership.commit(e, a.writes());
      counters.reclaimsAdopted.incrementAndGet();
      LOG.info("loan controller {} (epoch {}): adopted reclaim {} of {} requested under epoch {}",
          config.instanceId(), e.version(), a.reclaim().id(), a.reclaim().nodes(), askedUnder);
      return true;
    }
    if (outcome instanceof Forget f) {
      leadership.commit(e, f.writes());
      LOG.info("loan controller {}: reclaim request of epoch {} never reached the scheduler: forgotten",
          config.instanceId(), askedUnder);
      return true;
    }
    return false;
  }

  /** Shows the ledger as it is now, without acting: what a standby instance does at each decision. */
  void readLedger() {
    try {
      lastLedger = ledger.entries().values().stream().map(Versioned::value).toList();
      lastIntent = ledger.intent().map(Versioned::value).orElse(null);
    } catch (Exception e) {
      errors.accept("reading the ledger: " + e);
    }
  }

  /** Starts afresh for a new leader: the decisions' memory, the unlisted reclaims, the refusal backoff. */
  void forget() {
    decisions.forget();
    reconciler.forget();
    actions.forgetBackoff();
  }

  /** The last demand reading, or null before the first. */
  DemandReading lastDemand() {
    return lastDemand;
  }

  /** The scheduler as the last decision found it, or null before the first. */
  SchedulerSeen schedulerSeen() {
    return schedulerSeen;
  }

  LoanDecisions.Taken lastDecision() {
    return decisions.last();
  }

  /** The ledger as last read. */
  List<LoanEntry> lastLedger() {
    return lastLedger;
  }

  /** The reclaim request on its way as last read, or null. */
  ReclaimIntent lastIntent() {
    return lastIntent;
  }

  Map<String, LedgerReconciler.Unlisted> unlisted() {
    return reconciler.unlisted();
  }

  ReclaimBackoff backoff() {
    return actions.backoff();
  }
}
