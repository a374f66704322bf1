package io.aryl.core.reclaim;

import io.aryl.core.model.Checks;
import io.aryl.core.model.ClusterState;
import java.util.HashSet;
import java.util.List;

/**
 * Plans "return N loaned servers to inference now": which servers, and which jobs shrink or are
 * preempted. The cost of a choice is defined by {@link ReclaimCostModel}; the choice itself by a
 * {@link ServerChooser} ({@link ServerChooser#leastCost()} unless told otherwise).
 */
public final class ReclaimPlanner {
  private final ReclaimCostModel costs;
  private final ServerChooser chooser;

  public ReclaimPlanner(ReclaimCostModel costs, ServerChooser chooser) {
    this.costs = Checks.notNull("reclaim.costs", costs);
    this.chooser = Checks.notNull("reclaim.chooser", chooser);
  }

  public ReclaimPlanner(ReclaimCostModel costs) {
    this(costs, ServerChooser.leastCost());
  }

  public ReclaimPlan plan(ClusterState state, ReclaimRequest request) {
    ReclaimCandidates candidates = new ReclaimCandidates(state, request, costs);
    int available = candidates.eligible().size();
    if (available < request.servers()) {
      return ReclaimPlan.infeasible(
          "asked for "
              + request.servers()
              + " loaned server(s)"
              + (request.gpuType() == null ? "" : " of GPU type " + request.gpuType())
              + " but only "
              + available
              + " are loaned and not already being returned");
    }
    List<String> chosen = chooser.choose(candidates, request.servers());
    if (chosen.size() != request.servers() || new HashSet<>(chosen).size() != chosen.size()) {
      throw new IllegalStateException(
          "server chooser returned " + chosen + " for " + request.servers() + " servers");
    }
    ReclaimCandidates.Selection selection = candidates.select();
    chosen.forEach(selection::add);
    return ReclaimPlan.feasible(chosen, selection.impacts(state));
  }
}
