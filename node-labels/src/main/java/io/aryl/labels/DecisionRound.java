package io.aryl.labels;

import io.aryl.api.loan.LoanDemand;
import io.aryl.api.loan.LoanTarget;
import io.aryl.api.loan.LoanTargetAccepted;
import io.aryl.labels.ControllerStatus.Answer;
import io.aryl.labels.ControllerStatus.SchedulerSeen;
import io.aryl.labels.ControllerStatus.Sent;
import io.aryl.labels.ControllerStatus.Taken;
import io.aryl.labels.EpochZnode.Epoch;
import io.aryl.labels.LoanDecider.Change;
import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanDecider.Memory;
import io.aryl.labels.LoanDecider.Observation;
import io.aryl.labels.LoanDecider.SchedulerState;
import io.aryl.labels.LoanDecider.Target;
import io.aryl.labels.SchedulerLink.SchedulerView;
import io.aryl.labels.SchedulerLink.StaleTargetException;
import io.aryl.labels.SchedulerLink.TargetRefusedException;
import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One decision of the leader, in order: the scheduler's status, demand, the target ({@link
 * LoanDecider}), and the target sent to the scheduler with the leader's epoch. What the round last
 * saw and sent is kept for the status; the decider's memory is the leader's, and a new leader
 * starts it afresh (it starts from the target in force).
 *
 * <p>Runs on the controller's decision thread; the getters may be read from any.
 */
final class DecisionRound {
  // The controller's logger: its log lines keep the name deployments already filter on.
  private static final Logger LOG = LoggerFactory.getLogger(LoanController.class);

  private final String instanceId;
  private final List<DemandSource> demand;
  private final SchedulerLink scheduler;
  private final Leadership leadership;
  private final LoanDecider decider;
  private final LeadPlanner lead;
  private final LongSupplier clock;
  private final LoanCounters counters;
  private final Consumer<String> errors;

  private Memory memory = Memory.NONE;

  /**
   * Why the last decision found the scheduler unsettled ("" when settled): logged when it changes.
   */
  private String lastUnsettled = "";

  private volatile DemandReading lastDemand;
  private volatile SchedulerSeen schedulerSeen;
  private volatile Taken lastDecision;
  private volatile Sent lastSent;

  /**
   * @param errors where an error the status shows is recorded
   */
  DecisionRound(
      String instanceId,
      List<DemandSource> demand,
      SchedulerLink scheduler,
      Leadership leadership,
      LoanDecider decider,
      LeadPlanner lead,
      LongSupplier clock,
      LoanCounters counters,
      Consumer<String> errors) {
    this.instanceId = instanceId;
    this.demand = demand;
    this.scheduler = scheduler;
    this.leadership = leadership;
    this.decider = decider;
    this.lead = lead;
    this.clock = clock;
    this.counters = counters;
    this.errors = errors;
  }

  /**
   * One decision under epoch {@code e}.
   *
   * @throws StaleTargetException the scheduler refused the target: a newer epoch is in force
   * @throws Leadership.NotActingException leadership was lost during the decision: nothing was sent
   */
  void run(Epoch e) throws StaleTargetException, Leadership.NotActingException {
    long now = clock.getAsLong();
    SchedulerView view = null;
    String unsettled = "";
    try {
      view = scheduler.view();
      if (view.recovering()) {
        unsettled =
            "the scheduler is recovering (nodes re-registering after a restart or failover)";
      }
    } catch (IOException ex) {
      unsettled = "the scheduler cannot be reached: " + ex.getMessage();
      errors.accept(unsettled);
    }
    SchedulerSeen seen = new SchedulerSeen(now, scheduler.address(), view);
    if (!unsettled.equals(lastUnsettled)) {
      if (unsettled.isEmpty()) {
        LOG.info("loan controller {}: the scheduler is settled again", instanceId);
      } else {
        LOG.warn("loan controller {}: the target is not raised while {}", instanceId, unsettled);
      }
      lastUnsettled = unsettled;
    }

    DemandReading d = DemandReading.read(demand);
    lastDemand = d;
    d.replicaStartupsMs().forEach(lead::replicaStarted);
    lead.seen(now, view);
    LeadPlanner.Plan plan = lead.plan(now, d.rate());

    SchedulerState state =
        view == null
            ? SchedulerState.UNREACHABLE
            : view.recovering() ? SchedulerState.RECOVERING : SchedulerState.SETTLED;
    Target inForce =
        view == null || view.target() == null
            ? null
            : new Target(view.target().maxOnLoan(), view.target().returnByMs());
    Observation o =
        new Observation(
            now,
            d.rate(),
            d.complete(),
            state,
            view == null ? 0 : view.inferenceNodes(),
            view == null ? 0 : view.onLoan(),
            inForce,
            plan.forecastRate());
    Decision decision = decider.decide(o, memory);
    memory = decision.memory();
    lastDecision = new Taken(decision, now, plan);
    // After the decision: a reader that sees this view sees the decision taken on it.
    schedulerSeen = seen;
    counters.decisions.incrementAndGet();
    if (decision.change() == Change.RAISED || decision.change() == Change.LOWERED) {
      LOG.info("loan controller {} (epoch {}): {}", instanceId, e.version(), decision.reason());
    }
    if (decision.target() != null) {
      send(e, decision, plan, now, o.onLoan());
    }
  }

  private void send(Epoch e, Decision decision, LeadPlanner.Plan plan, long now, int onLoan)
      throws StaleTargetException, Leadership.NotActingException {
    leadership.requireActing(e); // the connection may have gone while demand was read
    Target t = decision.target();
    String reason = decision.reason();
    if (reason.length() > LoanTarget.MAX_REASON_CHARS) {
      reason = reason.substring(0, LoanTarget.MAX_REASON_CHARS);
    }
    LoanTarget target =
        new LoanTarget(
            e.version(),
            instanceId,
            t.maxOnLoan(),
            t.returnByMs(),
            now,
            reason,
            demandSent(decision, plan));
    counters.targetsSent.incrementAndGet();
    try {
      LoanTargetAccepted a = scheduler.send(target);
      counters.targetsAccepted.incrementAndGet();
      if (decision.change() == Change.LOWERED) {
        lead.lowered(now, t.maxOnLoan(), onLoan);
      }
      if (decision.change() == Change.RAISED) {
        counters.raised.incrementAndGet();
      } else if (decision.change() == Change.LOWERED) {
        counters.lowered.incrementAndGet();
      }
      lastSent =
          new Sent(
              now,
              e.version(),
              t.maxOnLoan(),
              t.returnByMs(),
              Answer.ACCEPTED,
              a.target(),
              a.inferenceNodes(),
              a.recovering(),
              null);
    } catch (StaleTargetException ex) {
      counters.targetsStale.incrementAndGet();
      lastSent =
          new Sent(
              now,
              e.version(),
              t.maxOnLoan(),
              t.returnByMs(),
              Answer.STALE,
              null,
              -1,
              false,
              ex.getMessage());
      throw ex;
    } catch (TargetRefusedException ex) {
      counters.targetsRefused.incrementAndGet();
      lastSent =
          new Sent(
              now,
              e.version(),
              t.maxOnLoan(),
              t.returnByMs(),
              Answer.REFUSED,
              null,
              -1,
              false,
              ex.status() + ": " + ex.getMessage());
      errors.accept("target refused (" + ex.status() + "): " + ex.getMessage());
    } catch (IOException ex) {
      counters.sendFailures.incrementAndGet();
      lastSent =
          new Sent(
              now,
              e.version(),
              t.maxOnLoan(),
              t.returnByMs(),
              Answer.FAILED,
              null,
              -1,
              false,
              ex.getMessage());
      errors.accept("target not sent: " + ex.getMessage());
    }
  }

  /**
   * The demand the target is decided on, as the scheduler shows it beside the nodes on loan; null
   * when demand is unknown (the target then stands on what came before) or out of the contract's
   * range.
   */
  static LoanDemand demandSent(Decision decision, LeadPlanner.Plan plan) {
    if (Double.isNaN(plan.rate()) || decision.needed() < 0) {
      return null;
    }
    double forecast = Math.max(plan.rate(), plan.forecastRate());
    if (forecast > LoanDemand.MAX_RPS
        || decision.needed() > LoanDemand.MAX_SERVERS
        || plan.leadMs() > LoanDemand.MAX_TIME_TO_SERVE_MS) {
      return null;
    }
    return new LoanDemand(
        plan.rate(),
        forecast,
        decision.needed(),
        plan.leadMs(),
        plan.startup().measured() == 0 ? null : plan.startup().usedMs());
  }

  /**
   * Starts afresh for a new leader: no hold under way, nothing lowered, no target of its own yet.
   */
  void forget() {
    memory = Memory.NONE;
    lead.forgetPending();
  }

  /** The last demand reading, or null before the first. */
  DemandReading lastDemand() {
    return lastDemand;
  }

  /** The scheduler as the last decision found it, or null before the first. */
  SchedulerSeen schedulerSeen() {
    return schedulerSeen;
  }

  /** The last decision, or null before the first. */
  Taken lastDecision() {
    return lastDecision;
  }

  /** The last target sent and its answer, or null before the first. */
  Sent lastSent() {
    return lastSent;
  }
}
