package io.aryl.yarn.rm;

import io.aryl.api.loan.LendAnswer;
import io.aryl.api.loan.LoanTarget;
import io.aryl.api.loan.LoanTargetAccepted;
import io.aryl.api.reclaim.ReclaimRequest;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.yarn.conf.ArylConf;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.engine.ArylUnavailableException;
import io.aryl.yarn.engine.Lifecycle;
import io.aryl.yarn.engine.StaleEpochException;
import io.aryl.yarn.state.DurableState;
import java.util.List;

/**
 * What the REST resource, operators and tests may ask of Aryl in a ResourceManager: its status and
 * history, reclaims, loans, the loan controller's target. Answers reflect the one lifecycle: with
 * Aryl off the status is {@link SchedulerStatus#disabled()} and every request is refused; before
 * this ResourceManager becomes active, likewise.
 */
public final class ArylOperations {
  /** A scheduler that may run Aryl: ArylScheduler, whichever Aryl does in it now. */
  public interface Provider {
    ArylOperations aryl();
  }

  private final ArylRuntime runtime;
  private final Lifecycle lifecycle;

  ArylOperations(ArylRuntime runtime) {
    this.runtime = runtime;
    this.lifecycle = runtime.lifecycle();
  }

  private ArylOperations(Lifecycle lifecycle) {
    this.runtime = null;
    this.lifecycle = lifecycle;
  }

  /** Aryl off (or not initialised yet) in a scheduler whose lifecycle is {@code lifecycle}. */
  public static ArylOperations without(Lifecycle lifecycle) {
    return new ArylOperations(lifecycle);
  }

  /** Where Aryl stands in this ResourceManager. */
  public Lifecycle.State lifecycle() {
    return lifecycle.get();
  }

  /** Whether Aryl runs here now: active, or recovering after it became active. */
  public boolean running() {
    return lifecycle.running();
  }

  /** The settings in force; the defaults with Aryl off. */
  public ArylSettings settings() {
    return runtime == null ? ArylSettings.defaults() : runtime.settings();
  }

  /** The metrics source, or null when Aryl is off. */
  public ArylMetrics metrics() {
    return runtime == null ? null : runtime.metrics();
  }

  /** Aryl's durable state, or null before this ResourceManager became active. */
  public DurableState durableState() {
    return runtime == null ? null : runtime.state();
  }

  /** The charts' samples: the last hours, one a minute; empty with Aryl off. */
  public StatusHistory history() {
    return runtime == null ? new StatusHistory() : runtime.history();
  }

  /**
   * {@code GET /ws/v1/cluster/aryl}: pools and loans, the target in force, applications' target
   * against actual workers, the plan, reclaims; {@link SchedulerStatus#disabled()} while Aryl does
   * not run here.
   */
  public SchedulerStatus status() {
    RoundRunner r = runtime == null ? null : runtime.runner();
    if (r == null) {
      return SchedulerStatus.disabled();
    }
    return StatusReport.of(
        r.statusInputs(), runtime.settings(), runtime.store(), runtime.state().epoch());
  }

  /** Runs one planning round now (rounds also run on their own). */
  public void runRound() {
    runner().round();
  }

  /**
   * Returns {@code nodes} loaned nodes to inference: the least-cost ones are fenced, drained, and
   * relabelled.
   *
   * @return the reclaim (id, nodes, jobs affected), as the status lists it
   * @throws IllegalArgumentException if fewer nodes are on loan, or the GPU type is not declared
   * @throws ArylUnavailableException while Aryl recovers after becoming active, or cannot store the
   *     reclaim
   */
  public ReclaimStatus reclaim(ReclaimRequest request) {
    return StatusReport.reclaim(
        runner().requestReclaim(request.nodes(), request.gpuType(), request.deadlineMs()));
  }

  /**
   * Lends the named inference nodes to training now, as an operator asked: each must be at home
   * with nothing running on it; they are stored as being lent, then relabelled.
   *
   * @throws IllegalArgumentException naming a node that cannot be lent, and why
   * @throws IllegalStateException while a loan controller's target decides what is lent
   * @throws ArylUnavailableException while recovering, or when the loan cannot be stored
   */
  public LendAnswer lend(List<String> nodes) {
    return runner().lend(nodes);
  }

  /**
   * Puts the loan controller's target in force once stored: how many inference nodes may be on
   * loan, by when the ones above must be back. Rounds lend idle inference nodes and reclaim lent
   * ones to meet it.
   *
   * @throws StaleEpochException when a controller of a newer epoch set the target in force
   * @throws IllegalArgumentException for a value out of range, naming it
   * @throws ArylUnavailableException when it cannot be stored
   */
  public LoanTargetAccepted acceptLoanTarget(LoanTarget target) {
    RoundRunner r = runner();
    r.acceptLoanTarget(target);
    var status = r.engine().status();
    return new LoanTargetAccepted(
        status.loanTarget(), status.places().size(), lifecycle.get() == Lifecycle.State.RECOVERING);
  }

  private RoundRunner runner() {
    RoundRunner r = runtime == null ? null : runtime.runner();
    return switch (lifecycle.get()) {
      case OFF ->
          throw new IllegalStateException("Aryl is off (" + ArylConf.ENABLED.key() + "=false)");
      case NEW, STANDBY, STOPPED ->
          throw new IllegalStateException("Aryl is not active in this ResourceManager");
      case RECOVERING, ACTIVE, DEPOSED -> r;
    };
  }
}
