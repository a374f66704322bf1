package io.aryl.sim.engine;

import io.aryl.core.RoundPlanner;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Plan;

/**
 * What decides a round: aryl-core's {@code RoundPlanner} for Aryl and its ablations, or a
 * reimplemented published scheduler for comparison. Same snapshot in, same kind of plan out, so the
 * simulator treats them alike.
 */
@FunctionalInterface
public interface Planner {
  Plan plan(ClusterState state);

  /**
   * Whether a round on a saturated snapshot (see {@code RoundPlanner#saturated}) is certain to
   * change nothing, so that the simulator may skip it. False unless the planner promises it.
   */
  default boolean changesNothingWhenSaturated() {
    return false;
  }

  /** aryl-core's round as a planner, with its promise about saturated snapshots. */
  static Planner of(RoundPlanner round) {
    return new Planner() {
      @Override
      public Plan plan(ClusterState state) {
        return round.plan(state);
      }

      @Override
      public boolean changesNothingWhenSaturated() {
        return round.changesNothingWhenSaturated();
      }
    };
  }
}
