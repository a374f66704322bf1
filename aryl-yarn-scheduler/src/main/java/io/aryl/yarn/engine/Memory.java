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
import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

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
 *   <tr><td>{@link #progress} each job's measured progress</td><td>{@link JobProgressMeter}</td><td>off the round,
 *   when workers moved or every few rounds ({@code jobs})</td></tr>
 * </table>
 *
 * <p>Not thread-safe: the engine uses it under its lock.
 */
final class Memory {
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
   * predecessor announced.
   */
  void commit(long now) throws IOException {
    savePool();
    state.save(Section.RECLAIMS, reclaims.toRecord());
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

  void saveTarget(LoanTargetRecord target) throws IOException {
    state.save(Section.LOAN_TARGET, target);
  }

  void saveReclaims() throws IOException {
    state.save(Section.RECLAIMS, reclaims.toRecord());
  }

  /**
   * The measurements' last failed save, or null: stored again at the next commit unless it was
   * fenced by another scheduler, which the caller must take as deposing this one.
   */
  IOException failedMeasurements() {
    IOException failed = measurements.failure();
    if (failed != null && !(failed instanceof io.aryl.yarn.state.StoreFencedException)) {
      progress.saveAgain();
    }
    return failed;
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
            pool.onLoan(reclaims.fencedNodes()));
  }
}
