package io.aryl.sim.engine;

import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Plan;

/**
 * What decides a round: aryl-core's {@code RoundPlanner} for Aryl and its ablations, or a reimplemented published
 * scheduler for comparison. Same snapshot in, same kind of plan out, so the simulator treats them alike.
 */
@FunctionalInterface
public interface Planner {
  Plan plan(ClusterState state);
}
