package io.aryl.yarn.engine;

import io.aryl.api.loan.LoanDemand;
import io.aryl.core.RoundPlanner;
import io.aryl.core.model.Plan;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.reclaim.ReclaimTracker;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.state.BackgroundSaves;
import io.aryl.yarn.state.CorruptStateException;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.LoanTargetRecord;
import io.aryl.yarn.state.StoreFencedException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aryl's round as a function of (what the ResourceManager shows, what Aryl remembers, now): it
 * plans with aryl-core, decides what to take back and what to return to inference, stores what it
 * decided, and returns the promises and the actions for the adapter to carry out. It never touches
 * the ResourceManager: every fact it keeps has this one writer, and whatever an action relies on is
 * stored before the action is returned. After the scheduler becomes active it acts on nothing until
 * the cluster came back ({@link RecoveryGate}); once another scheduler claimed the store it is
 * deposed and acts no more.
 *
 * <p>Rounds, reclaim requests and the adapter's reports run one at a time (the methods are
 * synchronized); the promises it returns are immutable and may be read from any thread.
 */
public final class RoundEngine {
  private static final Logger LOG = LoggerFactory.getLogger(RoundEngine.class);

  private final ArylSettings settings;

  /** What Aryl remembers; its parts, short-named, as every step uses them. */
  private final Memory memory;

  private final InferencePool pool;
  private final ReclaimTracker reclaims;
  private final Drains drains;
  private final JobProgressMeter progress;
  private final LoanSteps loans;
  private final RoundSnapshot snapshot;
  private final RoundPlanner planner;
  private final ReclaimSteps reclaimSteps;
  private final Shrinks shrinks;
  private final WaitingMessages waiting;
  private final BelowMaxLog belowMax = new BelowMaxLog();
  private final Tenure tenure;
  private final PromisesInForce promises;

  private long rounds;
  private Plan lastPlan;
  private RoundInput lastInput;

  /**
   * @param lifecycle this scheduler's lifecycle: the engine moves it from RECOVERING to ACTIVE, and
   *     to DEPOSED; it acts only in those states
   * @param state the durable state as this scheduler found it when it became active
   * @param measurements where the jobs' measurements are stored, off the round
   * @throws CorruptStateException when a stored section contradicts itself
   */
  public RoundEngine(
      ArylSettings settings,
      Lifecycle lifecycle,
      DurableState state,
      BackgroundSaves measurements,
      long nowMs)
      throws CorruptStateException {
    this.settings = settings;
    this.memory = new Memory(settings, state, measurements);
    this.pool = memory.pool;
    this.reclaims = memory.reclaims;
    this.drains = memory.drains;
    this.progress = memory.progress;
    this.loans = new LoanSteps(settings, pool, memory.targets);
    this.snapshot = new RoundSnapshot(settings, memory, state.originMs());
    this.planner = new RoundPlanner(settings.policy());
    this.reclaimSteps = new ReclaimSteps(settings, reclaims, drains, progress, pool::returned);
    this.shrinks = new Shrinks(settings, drains, progress, reclaimSteps::stillReturning);
    this.waiting = new WaitingMessages(settings.trainingLabel(), settings.policy());
    Set<String> expected = memory.nodesToWaitFor();
    this.tenure =
        new Tenure(lifecycle, new RecoveryGate(nowMs, settings.recoveryMaxWaitMs(), expected));
    this.promises = new PromisesInForce(memory);
    if (state.recovered()) {
      LOG.info(
          "Aryl resumes from {}; waiting for {} node(s) to re-register (at most {} ms)",
          memory.storedSummary(),
          expected.size(),
          settings.recoveryMaxWaitMs());
    }
  }

  /** What the allocation path enforces now. */
  public Promises promises() {
    return promises.current();
  }

  /**
   * Why this engine no longer acts (another scheduler claimed the store), or null while it is not
   * deposed.
   */
  public String deposedBecause() {
    return tenure.deposedBecause();
  }

  /**
   * One round: plans on {@code view}, records what the plan takes back and what reclaims do next,
   * stores it, and returns the promises and actions. Nothing unstored is acted on: when the store
   * fails, the drains decided now wait for the next round, which stores and announces them.
   */
  public synchronized Outcome round(RmView view) {
    Tally tally = new Tally();
    forget(view.finished());
    StoreFencedException fenced = tenure.running() ? memory.measurementsFenced() : null;
    if (fenced != null) {
      depose(fenced);
    }
    if (!tenure.running()) {
      return outcome(List.of(), tally);
    }
    long now = view.nowMs();
    List<NodeView> nodes = view.nodes();
    pool.observe(nodes);
    List<Action> actions = new ArrayList<>();
    try {
      memory.savePool();
      if (!tenure.recovered(view)) {
        return outcome(actions, tally);
      }
      progress.update(view.elastic(), nodes, now);
      // A set of every container's id, only when there is a drain to check against it.
      if (drains.size() > 0) {
        drains.retainOnly(NodeView.containerIds(nodes));
      }
      RoundInput input = snapshot.translate(view, promises.book());
      Plan plan = planner.plan(input.state());
      Set<String> changed = promises.plan(input, plan, rounds + 1);
      // A plain application's asks are its own.
      changed.removeIf(id -> !view.elastic().containsKey(id));
      changed.stream().sorted().forEach(id -> actions.add(new Action.Grant(id)));
      lastPlan = plan;
      lastInput = input;

      shrinks.drainWhatThePlanTakes(input, plan, nodes, now, tally);
      LoanSteps.Decision loan = loans.decide(nodes, reclaims.fencedNodes(), now);
      if (loan.reclaim() > 0) {
        reclaimSteps.startForLoanTarget(
            loan.reclaim(), loan.deadlineMs(), input.state(), now, tally);
      }
      // A reclaim was stored when it started: its relabels need nothing new stored.
      actions.addAll(
          reclaimSteps.advance(
              nodes, input.state(), view::minWorkers, view::checkpoint, now, tally));
      memory.commit(now);
      actions.addAll(loans.relabelsOwed(nodes)); // the nodes being lent are stored as such now
      actions.addAll(shrinks.announceStored(now, tally));
      // Moves stored: their new workers are granted now rather than at each ApplicationMaster's
      // next heartbeat.
      drains.moving().keySet().stream().sorted().forEach(id -> actions.add(new Action.Grant(id)));
      promises.publish();
      actions.addAll(shrinks.killDue(input, nodes, promises.book(), view::minWorkers, now));
      actions.addAll(waiting.publish(view.elastic(), input, plan));
      belowMax.log(view.elastic(), input, plan);
      rounds++;
    } catch (StoreFencedException e) {
      depose(e);
      return outcome(List.of(), tally);
    } catch (IOException e) {
      // Nothing unstored was acted on: drains stay unannounced, and the next round stores them
      // again.
      LOG.warn(
          "Aryl could not store its state; this round's drains wait for the next one: {}",
          e.toString());
      rounds++;
    }
    return outcome(actions, tally);
  }

  private Outcome outcome(List<Action> actions, Tally tally) {
    if (!tenure.running()) {
      promises.withdraw();
    }
    return new Outcome(
        promises.current(),
        actions,
        tally,
        new Outcome.Gauges(
            pool.lentNodes(),
            pool.lentGpus(),
            reclaims.inFlight().size(),
            tenure.recovering(),
            tenure.recoveryWaitedMs()));
  }

  /**
   * Starts returning {@code servers} loaned nodes to inference by {@code deadlineMs} (0 = the
   * default deadline). The reclaim is stored before any of its nodes is drained.
   *
   * @throws IllegalArgumentException when not enough nodes are on loan, or the GPU type is not
   *     declared
   * @throws ArylUnavailableException while recovering, or when the reclaim cannot be stored
   */
  public synchronized Started reclaim(RmView view, int servers, String gpuType, long deadlineMs) {
    forget(view.finished());
    tenure.requireActive();
    reclaimSteps.requireDeclared(gpuType);
    long now = view.nowMs();
    Tally tally = new Tally();
    pool.observe(view.nodes());
    RoundInput input = snapshot.translate(view, promises.book());
    Reclaim r = reclaimSteps.start(servers, gpuType, deadlineMs, input.state(), now, tally);
    LoanTargetRecord lowered = memory.targets.loweredTo(pool.onLoan(reclaims.fencedNodes()));
    storeOrRefuse(
        "reclaim not started: Aryl could not store it",
        () -> {
          memory.savePool();
          memory.saveReclaims();
          memory.saveTarget(lowered);
        },
        () -> reclaims.abandon(r));
    memory.targets.accepted(lowered, memory.targets.demand()); // what the controller saw stands
    promises.publish();
    List<Action> actions =
        new ArrayList<>(
            reclaimSteps.advance(
                view.nodes(), input.state(), view::minWorkers, view::checkpoint, now, tally));
    try {
      memory.commit(now);
      actions.addAll(shrinks.announceStored(now, tally));
    } catch (StoreFencedException e) {
      depose(e);
      actions.clear();
    } catch (IOException e) {
      LOG.warn(
          "Aryl reclaim {}: drains not stored yet, the next round stores and announces them: {}",
          r.id(),
          e.toString());
    }
    return new Started(r, outcome(actions, tally));
  }

  /** A reclaim just started, and what starting it decided. */
  public record Started(Reclaim reclaim, Outcome outcome) {}

  /**
   * The adapter relabelled the node, as a {@link Action.Relabel} asked: a node being lent is lent;
   * a node a reclaim returns is recorded returned. Either record is stored with the next round's
   * state: the relabel comes first and its record after, and a scheduler that stops in between
   * finds the node's label and records it then.
   */
  public synchronized Tally relabelled(String node, String label, long nowMs) {
    Tally tally = new Tally();
    if (label.equals(settings.trainingLabel())) {
      if (pool.place(node) == io.aryl.yarn.state.InferenceNodes.Place.LENDING) {
        pool.lent(node);
      }
    } else {
      reclaimSteps.relabelled(node, nowMs, tally);
    }
    promises.fencesChanged();
    return tally;
  }

  /**
   * Lends the named inference nodes to training now, as an operator asked: recorded (and stored) as
   * being lent, then relabelled by the returned actions.
   *
   * @throws IllegalArgumentException naming a node that is not an idle inference node at home
   * @throws IllegalStateException while a loan controller's target decides what is lent
   * @throws ArylUnavailableException while recovering, or when the loan cannot be stored
   */
  public synchronized Outcome lend(RmView view, List<String> nodes) {
    tenure.requireActive();
    pool.observe(view.nodes());
    loans.lendByHand(nodes, view.nodes());
    storeOrRefuse(
        "nothing lent: Aryl could not store the loan",
        memory::savePool,
        () -> nodes.forEach(pool::keepHome));
    promises.fencesChanged();
    return outcome(loans.relabelsOwed(view.nodes()), new Tally());
  }

  /**
   * Puts the loan controller's target in force, once stored: how many inference nodes may be on
   * loan, and by when the ones above must be back. The rounds lend and reclaim to meet it. The
   * inference demand the controller decided the target on is kept beside it for the status (not
   * stored).
   *
   * @param demand the demand; null when the controller did not say
   * @throws io.aryl.yarn.engine.StaleEpochException when a controller of a newer epoch set the
   *     target in force
   * @throws IllegalArgumentException for a value out of range, naming it
   * @throws ArylUnavailableException when the target cannot be stored
   */
  public synchronized LoanTargetRecord acceptLoanTarget(
      RmView view,
      long epoch,
      String controller,
      int maxOnLoan,
      long returnByMs,
      long decidedMs,
      String reason,
      LoanDemand demand) {
    tenure.requireRunning();
    long nowMs = view.nowMs();
    pool.observe(view.nodes()); // the answer counts the inference nodes there are now
    LoanTargetRecord next =
        memory.targets.check(
            epoch,
            controller,
            maxOnLoan,
            returnByMs,
            decidedMs,
            reason,
            nowMs,
            memory.loanTargetResetHint());
    storeOrRefuse(
        "loan target not accepted: Aryl could not store it",
        () -> memory.saveTarget(next),
        () -> {});
    memory.targets.accepted(next, demand);
    return next;
  }

  /** The loan target in force; {@link LoanTargetRecord#NONE} before a controller set one. */
  public synchronized LoanTargetRecord loanTarget() {
    return memory.targets.current();
  }

  /** Nodes on loan now (lent, or being lent), but for those a reclaim returns. */
  public synchronized int onLoan() {
    return pool.onLoan(reclaims.fencedNodes());
  }

  /**
   * Stores what a request decided before it is answered; when that fails, undoes it and refuses the
   * request, nothing changed (and this engine deposed, if another scheduler claimed the store).
   *
   * @param refusal what the refusal says, before the store's reason
   * @throws ArylUnavailableException when the store fails
   */
  private void storeOrRefuse(String refusal, Store store, Runnable undo) {
    try {
      store.save();
    } catch (IOException e) {
      undo.run();
      if (e instanceof StoreFencedException f) {
        depose(f);
      }
      throw new ArylUnavailableException(refusal + " (" + e.getMessage() + ")", e);
    }
  }

  /** Stores a request's decision. */
  @FunctionalInterface
  private interface Store {
    void save() throws IOException;
  }

  private void depose(StoreFencedException e) {
    tenure.depose(e);
    promises.clear();
  }

  private void forget(List<RmView.Finished> finished) {
    for (RmView.Finished f : finished) {
      var p = progress.remove(f.id());
      shrinks.jobFinished(f.id());
      belowMax.jobFinished(f.id());
      if (f.succeeded() && p != null && f.kind() != null) {
        snapshot.finished(f.kind(), p.attainedBaseS());
      }
    }
  }

  /** What the status shows of what the engine remembers, read under its lock. */
  public synchronized EngineStatus status() {
    return new EngineStatus(
        rounds,
        pool::owns,
        memory.fenced(),
        promises.book(),
        lastInput,
        lastPlan,
        reclaims.inFlight(),
        reclaims.finished(),
        drains.size(),
        tenure.recoveryStatus(),
        tenure.deposedBecause(),
        memory.places(),
        memory.loanTarget(),
        progress.preemptions());
  }
}
