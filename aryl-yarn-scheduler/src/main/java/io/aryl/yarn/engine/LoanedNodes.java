package io.aryl.yarn.engine;

import io.aryl.yarn.round.NodeView;
import java.util.List;

/**
 * What each round learns of the inference pool from the node views, and the loans it counts: every node seen in the
 * inference pool is remembered as inference's ({@link InferenceOwners#observe}), and a node of inference's in the
 * training pool is on loan. Views kept since the last round (the same objects, {@link NodeViews}) were seen then:
 * only new views are observed, and the loans are counted again only when a view or the owners changed. At 5,000
 * nodes, a lookup of every node's name twice a round showed in the planning thread's profile.
 *
 * <p>Not thread-safe: the planning loop updates it under its lock.
 */
final class LoanedNodes {
  private final String trainingLabel;
  private final InferenceOwners owners;
  private NodeView[] seen = new NodeView[0];
  private long ownersAsOf = -1;
  private int nodes;
  private int gpus;

  LoanedNodes(String trainingLabel, InferenceOwners owners) {
    this.trainingLabel = trainingLabel;
    this.owners = owners;
  }

  /** Observes the views that are new since the last call and counts the loans again if anything changed. */
  void update(List<NodeView> views) {
    boolean changed = views.size() != seen.length;
    NodeView[] now = views.toArray(new NodeView[0]);
    for (int i = 0; i < now.length; i++) {
      if (i >= seen.length || now[i] != seen[i]) {
        owners.observe(now[i].id(), now[i].label());
        changed = true;
      }
    }
    seen = now;
    long asOf = owners.changes(); // after observing: what this round learnt is counted now
    if (changed || asOf != ownersAsOf) {
      int n = 0;
      int g = 0;
      for (NodeView v : now) {
        if (trainingLabel.equals(v.label()) && owners.owns(v.id())) {
          n++;
          g += v.gpus();
        }
      }
      nodes = n;
      gpus = g;
      ownersAsOf = asOf;
    }
  }

  /** Nodes of the inference pool lent to training, as of the last update. */
  int nodes() {
    return nodes;
  }

  /** Their GPUs. */
  int gpus() {
    return gpus;
  }
}
