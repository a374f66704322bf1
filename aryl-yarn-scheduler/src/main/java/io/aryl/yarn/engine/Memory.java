package io.aryl.yarn.engine;

import io.aryl.api.status.LoanTargetStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.reclaim.ReclaimTracker;
import io.aryl.yarn.state.BackgroundSaves;
import io.aryl.yarn.state.CorruptStateException;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.InferenceNodes;
import io.aryl.yarn.state.LoanTargetRecord;
import io.aryl.yarn.state.Section;
import io.aryl.yarn.state.StoreFencedException;
import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Aryl remembers from one round to the next, each part with its one writer, read back from the
 * durable state when a scheduler becomes active and stored before anything relies on it:
 *
 * <table>
 *   <caption>What is remembered, who writes it, and when it is stored</caption>
 *   <tr><th>part</th><th>written by</th><th>stored (section)</th></tr>
 *   <tr><td>{@link #pool} where each inference node is</td><td>{@link InferencePool}, through {@link LoanSteps} and
 *   {@link ReclaimSteps}</td><td>before a node is relabelled ({@code pools})</td></tr>
 *   <tr><td>{@link #targets} the loan target in force</td><td>{@link LoanTargets}</td><td>before it is acknowledged
 *   ({@code loan-target})</td></tr>
 *   <tr><td>{@link #reclaims} reclaims in flight and done</td><td>{@link ReclaimSteps}</td><td>before a node is
 *   fenced or drained ({@code reclaims})</td></tr>
 *   <tr><td>{@link #drains} containers asked back</td><td>{@link Shrinks}, {@link ReclaimSteps}</td><td>before an
 *   ApplicationMaster is told ({@code drains})</td></tr>
 *   <tr><td>{@link #progress} each job's measured progress, and its preemptions</td><td>{@link JobProgressMeter}
 *   (stops counted for {@link Shrinks} and {@link ReclaimSteps})</td><td>a count before the stop it counts is told;
 *   the measurements off the round, when workers moved or every few rounds ({@code jobs})</td></tr>
 * </table>
 *
 * <p>Not thread-safe: the engine uses it under its lock.
 */
final class Memory {
  /** The engine's lines, under {@link RoundEngine}'s name, which operators set its log level by. */
  private static final Logger LOG = LoggerFactory.getLogger(RoundEngine.class);

  final InferencePool pool;
  final LoanTargets targets = new LoanTargets();
  final ReclaimTracker reclaims = new ReclaimTracker();
  final Drains drains = new Drains();
  final JobProgressMeter progress = new JobProgressMeter();
  private final DurableState state;

  /** The jobs' measurements are stored off the round: no action waits on them. */
  private final BackgroundSaves measurements;

  /**
   * @throws CorruptStateException when a stored section contradicts itself
   */
  Memory(ArylSettings settings, DurableState state, BackgroundSaves measurements)
      throws CorruptStateException {
    this.state = state;
    this.measurements = measurements;
    this.pool =
        new InferencePool(
            settings.inferenceLabel(), settings.trainingLabel(), settings.inferenceNodes());
    boolean placesFromLabels =
        state.formatRead() == 1; // format 1 kept inference nodes without their places
    restore(Section.POOLS, stored -> pool.restore(stored, placesFromLabels));
    restore(Section.LOAN_TARGET, targets::restore);
    restore(Section.RECLAIMS, reclaims::restore);
    restore(Section.DRAINS, drains::restore);
    restore(Section.JOBS, progress::restore);
  }

  private <T> void restore(Section<T> section, Consumer<T> into) throws CorruptStateException {
    try {
      into.accept(state.get(section));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw state.corrupt(section, String.valueOf(e.getMessage()));
    }
  }

  /**
   * Where what is remembered was read from and what it holds, for the log of a scheduler that
   * resumes from it.
   */
  String storedSummary() {
    return state.store().kind()
        + " "
        + state.store().location()
        + " (epoch "
        + state.epoch()
        + "): "
        + state.get(Section.POOLS).nodes().size()
        + " inference node(s), "
        + reclaims.inFlight().size()
        + " reclaim(s) in flight, "
        + drains.size()
        + " draining container(s), "
        + state.get(Section.JOBS).jobs().size()
        + " job(s)";
  }

  /**
   * Nodes a newly active scheduler waits for: where jobs' workers ran, and those being returned or
   * drained.
   */
  Set<String> nodesToWaitFor() {
    Set<String> expected = new HashSet<>(progress.nodesWithWorkers());
    expected.addAll(reclaims.fencedNodes());
    expected.addAll(drains.nodes());
    return expected;
  }

  /** Nodes that take no new container: those a reclaim returns, and those being lent. */
  Set<String> fenced() {
    Set<String> out = reclaims.fencedNodes();
    out.addAll(pool.in(InferenceNodes.Place.LENDING));
    return out;
  }

  /**
   * Stores what a round or a request decided, before anything relies on it: a container is asked
   * back only once its drain is durable, so a newly active scheduler kills exactly what its
   * predecessor announced, and a job is told it is stopped only once the stop is counted.
   */
  void commit(long now) throws IOException {
    savePool();
    state.save(Section.RECLAIMS, reclaims.toRecord());
    if (progress.countsUnsaved()) {
      // Before the drains that carry the stops out: a scheduler that stops in between counts a
      // stop its successor does not resume (the budget binds a stop early) rather than resume one
      // it never counted (the budget let through once more).
      measurements.saveNow(Section.JOBS, progress.toRecord());
      progress.saved(now);
    }
    state.save(Section.DRAINS, drains.toRecord());
    if (progress.saveDue(now)) {
      measurements.save(Section.JOBS, progress.toRecord());
      progress.saved(now);
    }
  }

  /**
   * Stores the inference nodes' places when they changed: nothing relies on a place before it is
   * stored.
   */
  void savePool() throws IOException {
    if (pool.unsaved()) {
      state.save(Section.POOLS, pool.toRecord());
      pool.saved();
    }
  }

  /**
   * How to start the loan controller's epochs again, for a target refused as stale: if the
   * controller's ZooKeeper path was deleted, its epochs start again from 1.
   */
  String loanTargetResetHint() {
    return "if the loan controller's ZooKeeper path was deleted, its epochs start again from 1: stop the"
        + " ResourceManagers, run `"
        + state.store().deleteCommand(Section.LOAN_TARGET.name())
        + "`, and start them again";
  }

  void saveTarget(LoanTargetRecord target) throws IOException {
    state.save(Section.LOAN_TARGET, target);
  }

  void saveReclaims() throws IOException {
    state.save(Section.RECLAIMS, reclaims.toRecord());
  }

  /**
   * Whether the measurements' last save failed because another scheduler claimed the store, which
   * the caller must take as deposing this one; any other failure is logged, and they are stored
   * again at the next commit.
   *
   * @return that claim, or null
   */
  StoreFencedException measurementsFenced() {
    IOException failed = measurements.failure();
    if (failed instanceof StoreFencedException fenced) {
      return fenced;
    }
    if (failed != null) {
      progress.saveAgain();
      LOG.warn(
          "Aryl could not store the jobs' measurements; they are stored again: {}",
          failed.toString());
    }
    return null;
  }

  /**
   * Where each inference node is, as the status shows it (a lent node a reclaim returns is
   * RETURNING).
   */
  Map<String, NodeStatus.Place> places() {
    Set<String> returning = reclaims.fencedNodes();
    Map<String, NodeStatus.Place> out = new TreeMap<>();
    pool.toRecord()
        .nodes()
        .forEach(
            (node, place) ->
                out.put(
                    node,
                    returning.contains(node)
                        ? NodeStatus.Place.RETURNING
                        : NodeStatus.Place.valueOf(place.name())));
    return out;
  }

  /**
   * The target in force and what is on loan, as the status shows it; null before a target was set.
   */
  LoanTargetStatus loanTarget() {
    LoanTargetRecord t = targets.current();
    return !t.set()
        ? null
        : new LoanTargetStatus(
            t.epoch(),
            t.controller(),
            t.maxOnLoan(),
            t.returnByMs(),
            t.decidedMs(),
            t.reason(),
            t.receivedMs(),
            pool.onLoan(reclaims.fencedNodes()),
            targets.demand());
  }
}
