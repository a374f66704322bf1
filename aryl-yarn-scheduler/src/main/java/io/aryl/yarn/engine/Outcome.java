package io.aryl.yarn.engine;

import java.util.List;

/**
 * What a round (or a reclaim request) decided: the promises the allocation path holds proposals to
 * from now on, the actions for the ResourceManager in the order they are to be carried out, what
 * operators count, and the gauges. Whatever an action relies on was stored before the outcome was
 * returned.
 *
 * @param promises what the allocation path enforces from now on; publish it before carrying out the
 *     actions
 * @param actions in order
 * @param tally counts for the scheduler's metrics
 * @param gauges levels for the scheduler's metrics
 */
public record Outcome(Promises promises, List<Action> actions, Tally tally, Gauges gauges) {
  public Outcome {
    actions = List.copyOf(actions);
  }

  /**
   * Levels after the round.
   *
   * @param loanedNodes inference nodes lent to training
   * @param loanedGpus their GPUs
   * @param reclaimsInFlight reclaims not done yet
   * @param recovering whether the engine still waits for the cluster to come back after becoming
   *     active
   * @param recoveryWaitMs how long that wait took once over; -1 before
   */
  public record Gauges(
      int loanedNodes,
      int loanedGpus,
      int reclaimsInFlight,
      boolean recovering,
      long recoveryWaitMs) {}

  /** The actions of one kind, in order. */
  public <A extends Action> List<A> actions(Class<A> kind) {
    return actions.stream().filter(kind::isInstance).map(kind::cast).toList();
  }
}
