package io.aryl.yarn.round;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.Plan;
import io.aryl.core.victim.VictimOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which live worker containers a plan takes away: on each node, the job's workers beyond its target
 * there, newest first ({@link VictimOrder#newestFirst}: the newest are the flexible workers a job
 * gained last; its base workers are its oldest).
 */
public final class ShrinkChooser {
  private ShrinkChooser() {}

  public static List<ContainerView> choose(RoundInput input, Plan plan) {
    List<ContainerView> out = new ArrayList<>();
    for (Map.Entry<String, Map<String, List<ContainerView>>> app : input.workers().entrySet()) {
      Allocation target = plan.target(app.getKey());
      for (Map.Entry<String, List<ContainerView>> node : app.getValue().entrySet()) {
        int excess = node.getValue().size() - target.workersOn(node.getKey());
        if (excess <= 0) {
          continue;
        }
        out.addAll(VictimOrder.newestFirst(node.getValue(), ContainerView::seq, excess));
      }
    }
    return out;
  }
}
