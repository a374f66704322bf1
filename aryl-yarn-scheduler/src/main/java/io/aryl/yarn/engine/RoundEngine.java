package io.aryl.yarn.engine;

import io.aryl.core.RoundPlanner;
import io.aryl.core.model.Plan;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.yarn.conf.ArylConf;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.reclaim.ReclaimTracker;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.state.BackgroundSaves;
import io.aryl.yarn.state.CorruptStateException;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.LoanTargetRecord;
import io.aryl.yarn.state.Section;
import io.aryl.yarn.state.StoreFencedException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
  private final DurableState state;

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

  private final RecoveryGate recovery;
  private final Lifecycle lifecycle;

  private PlanBook book = PlanBook.EMPTY;
  private volatile Promises promises;

  /**
   * Why another scheduler's claim of the state store deposed this one; null while it is not
   * deposed.
   */
  private volatile String deposedBecause;

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
    this.lifecycle = lifecycle;
    this.state = state;
    this.memory = new Memory(settings, state, measurements);
    this.pool = memory.pool;
    this.reclaims = memory.reclaims;
    this.drains = memory.drains;
    this.progress = memory.progress;
    this.loans = new LoanSteps(settings, pool, memory.targets);
    this.snapshot = new RoundSnapshot(settings, pool::owns, pool::changes, state.originMs());
    this.planner = new RoundPlanner(settings.policy());
    ReclaimCostModel costs =
        new ReclaimCostModel(
            ReclaimCostModel.defaults().restartOverheadS(), settings.policy().rescaleOverheadS());
    this.reclaimSteps =
        new ReclaimSteps(settings, reclaims, drains, progress, costs, pool::returned);
    this.shrinks = new Shrinks(settings, drains, reclaimSteps::stillReturning);
    this.waiting = new WaitingMessages(settings.trainingLabel(), settings.policy());
    Set<String> expected = memory.nodesToWaitFor();
    this.recovery = new RecoveryGate(nowMs, settings.recoveryMaxWaitMs(), expected);
    this.promises = new Promises(PlanBook.EMPTY, memory.fenced(), drains.moving());
    if (state.recovered()) {
      LOG.info(
          "Aryl resumes from {} {} (epoch {}): {} inference node(s), {} reclaim(s) in flight, {} draining"
              + " container(s), {} job(s); waiting for {} node(s) to re-register (at most {} ms)",
          state.store().kind(),
          state.store().location(),
          state.epoch(),
          state.get(Section.POOLS).nodes().size(),
          reclaims.inFlight().size(),
          drains.size(),
          state.get(Section.JOBS).jobs().size(),
          expected.size(),
          settings.recoveryMaxWaitMs());
    }
  }

  /** What the allocation path enforces now. */
  public Promises promises() {
    return promises;
  }

  /**
   * Why this engine no longer acts (another scheduler claimed the store), or null while it is not
   * deposed.
   */
  public String deposedBecause() {
    return deposedBecause;
  }

  /**
   * One round: plans on {@code view}, records what the plan takes back and what reclaims do next,
   * stores it, and returns the promises and actions. Nothing unstored is acted on: when the store
   * fails, the drains decided now wait for the next round, which stores and announces them.
   */
  public synchronized Outcome round(RmView view) {
    Tally tally = new Tally();
    forget(view.finished());
    IOException failed = lifecycle.running() ? memory.failedMeasurements() : null;
    if (failed instanceof StoreFencedException f) {
      depose(f);
    } else if (failed != null) {
      LOG.warn(
          "Aryl could not store the jobs' measurements; they are stored again: {}",
          failed.toString());
    }
    if (!lifecycle.running()) {
      return outcome(List.of(), tally);
    }
    long now = view.nowMs();
    List<NodeView> nodes = view.nodes();
    pool.observe(nodes);
    List<Action> actions = new ArrayList<>();
    try {
      memory.savePool();
      if (!recovered(view)) {
        return outcome(actions, tally);
      }
      progress.update(view.elastic(), nodes, now);
      if (drains.size()
          > 0) { // a set of every container's id, only when there is a drain to check against it
        drains.retainOnly(NodeView.containerIds(nodes));
      }
      RoundInput input = translate(view);
      Plan plan = planner.plan(input.state());
      PlanBook previous = book;
      book = book(input, plan);
      Set<String> changed = book.changedSince(previous);
      changed.removeIf(
          id -> !view.elastic().containsKey(id)); // a plain application's asks are its own
      changed.stream().sorted().forEach(id -> actions.add(new Action.Grant(id)));
      lastPlan = plan;
      lastInput = input;
      // The promises change before anything is stored: allocations follow the plan, which needs
      // nothing stored.
      promises = new Promises(book, memory.fenced(), drains.moving());

      shrinks.drainWhatThePlanTakes(input, plan, nodes, now, tally);
      LoanSteps.Decision loan = loans.decide(nodes, reclaims.fencedNodes(), now);
      if (loan.reclaim() > 0) {
        startReclaimForTheTarget(loan, input, now, tally);
      }
      List<Action> relabels =
          reclaimSteps.advance(
              nodes, input.state(), view::minWorkers, view::checkpoint, now, tally);
      actions.addAll(
          relabels); // a reclaim was stored when it started: its relabels need nothing new stored
      memory.commit(now);
      actions.addAll(loans.relabelsOwed(nodes)); // the nodes being lent are stored as such now
      actions.addAll(shrinks.announceStored(now, tally));
      // Moves stored: their new workers are granted now rather than at each ApplicationMaster's
      // next heartbeat.
      drains.moving().keySet().stream().sorted().forEach(id -> actions.add(new Action.Grant(id)));
      promises = new Promises(book, memory.fenced(), drains.moving());
      actions.addAll(shrinks.killDue(input, nodes, book, view::minWorkers, now));
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

  /**
   * The one target set: the plan's, whose snapshot counts gangs waiting for their room as started.
   */
  private PlanBook book(RoundInput input, Plan plan) {
    Map<String, Integer> gpusPerWorker = new HashMap<>();
    input.state().jobs().forEach(j -> gpusPerWorker.put(j.id(), j.gpusPerWorker()));
    return new PlanBook(plan.targets(), gpusPerWorker, rounds + 1);
  }

  /**
   * The loan target is below what is on loan: a reclaim returns the difference, least cost first.
   */
  private void startReclaimForTheTarget(
      LoanSteps.Decision loan, RoundInput input, long now, Tally tally) {
    try {
      reclaimSteps.start(loan.reclaim(), null, loan.deadlineMs(), input.state(), now, tally);
    } catch (IllegalArgumentException e) {
      // Lent nodes this round cannot plan on (gone, or of no known GPU type) wait until it can.
      LOG.warn("Aryl cannot start the reclaim the loan target asks for yet: {}", e.getMessage());
    }
  }

  private Outcome outcome(List<Action> actions, Tally tally) {
    Promises now = lifecycle.running() ? promises : Promises.NONE;
    promises = now;
    return new Outcome(
        now,
        actions,
        tally,
        new Outcome.Gauges(
            pool.lentNodes(),
            pool.lentGpus(),
            reclaims.inFlight().size(),
            lifecycle.get() == Lifecycle.State.RECOVERING,
            recovery.waitedMs()));
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
    requireActive();
    if (gpuType != null && settings.gpus().type(gpuType).isEmpty()) {
      throw new IllegalArgumentException(
          "gpuType '"
              + gpuType
              + "' is not one of "
              + ArylConf.GPU_TYPES.key()
              + " "
              + settings.gpus().types().keySet());
    }
    long now = view.nowMs();
    Tally tally = new Tally();
    pool.observe(view.nodes());
    RoundInput input = translate(view);
    Reclaim r = reclaimSteps.start(servers, gpuType, deadlineMs, input.state(), now, tally);
    LoanTargetRecord lowered = memory.targets.loweredTo(pool.onLoan(reclaims.fencedNodes()));
    try {
      memory.savePool();
      memory.saveReclaims();
      memory.saveTarget(lowered);
    } catch (IOException e) {
      reclaims.abandon(r);
      if (e instanceof StoreFencedException f) {
        depose(f);
      }
      throw new ArylUnavailableException(
          "reclaim not started: Aryl could not store it (" + e.getMessage() + ")", e);
    }
    memory.targets.accepted(lowered);
    promises = new Promises(book, memory.fenced(), drains.moving());
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
    promises = new Promises(promises.book(), memory.fenced(), promises.moving());
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
    requireActive();
    pool.observe(view.nodes());
    loans.lendByHand(nodes, view.nodes());
    try {
      memory.savePool();
    } catch (IOException e) {
      nodes.forEach(pool::keepHome);
      if (e instanceof StoreFencedException f) {
        depose(f);
      }
      throw new ArylUnavailableException(
          "nothing lent: Aryl could not store the loan (" + e.getMessage() + ")", e);
    }
    promises = new Promises(promises.book(), memory.fenced(), promises.moving());
    return outcome(loans.relabelsOwed(view.nodes()), new Tally());
  }

  /**
   * Puts the loan controller's target in force, once stored: how many inference nodes may be on
   * loan, and by when the ones above must be back. The rounds lend and reclaim to meet it.
   *
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
      String reason) {
    if (!lifecycle.running()) {
      throw new ArylUnavailableException("this scheduler is not active (" + lifecycle + ")");
    }
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
            "if the loan controller's ZooKeeper path was deleted, its epochs start again from 1: stop the"
                + " ResourceManagers, run `"
                + state.store().deleteCommand(Section.LOAN_TARGET.name())
                + "`, and start them again");
    try {
      memory.saveTarget(next);
    } catch (IOException e) {
      if (e instanceof StoreFencedException f) {
        depose(f);
      }
      throw new ArylUnavailableException(
          "loan target not accepted: Aryl could not store it (" + e.getMessage() + ")", e);
    }
    memory.targets.accepted(next);
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

  private void requireActive() {
    if (!lifecycle.running()) {
      throw new ArylUnavailableException(
          "this scheduler is no longer active"
              + (deposedBecause == null ? " (" + lifecycle + ")" : ": " + deposedBecause));
    }
    if (lifecycle.get() == Lifecycle.State.RECOVERING) {
      throw new ArylUnavailableException(
          "Aryl is recovering after the ResourceManager became active: waiting for "
              + recovery.waitingFor()
              + "; ask again shortly");
    }
  }

  /**
   * True once the cluster came back after this scheduler became active (RECOVERING, then ACTIVE for
   * good).
   */
  private boolean recovered(RmView view) {
    if (lifecycle.get() == Lifecycle.State.ACTIVE) {
      return true;
    }
    Set<String> registered = new HashSet<>();
    view.nodes().forEach(n -> registered.add(n.id()));
    if (!recovery.ready(registered, view.rmReady(), view.nowMs())
        || !lifecycle.move(Lifecycle.State.RECOVERING, Lifecycle.State.ACTIVE)) {
      return false;
    }
    LOG.info("Aryl recovery done after {} ms: {}", recovery.waitedMs(), recovery.how());
    return true;
  }

  private void depose(StoreFencedException e) {
    deposedBecause = e.getMessage();
    if (!lifecycle.move(Lifecycle.State.ACTIVE, Lifecycle.State.DEPOSED)) {
      lifecycle.move(Lifecycle.State.RECOVERING, Lifecycle.State.DEPOSED);
    }
    book = PlanBook.EMPTY;
    promises = Promises.NONE;
    LOG.error("Aryl stops acting: {}", e.getMessage());
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

  private RoundInput translate(RmView view) {
    return snapshot.translate(
        view, book, drains.moving(), drains.ids(), reclaims.fencedNodes(), progress.all());
  }

  /** What the status shows of what the engine remembers, read under its lock. */
  public synchronized EngineStatus status() {
    return new EngineStatus(
        rounds,
        pool::owns,
        memory.fenced(),
        book,
        lastInput,
        lastPlan,
        reclaims.inFlight(),
        reclaims.finished(),
        drains.size(),
        recovery.status(),
        deposedBecause,
        memory.places(),
        memory.loanTarget());
  }
}
