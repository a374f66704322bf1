package io.aryl.yarn.engine;

import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.state.InferenceNodes;
import io.aryl.yarn.state.InferenceNodes.Place;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inference pool's nodes and where each one is: at home, being lent, or lent. The scheduler is
 * the one writer of this fact: it lends nodes and takes them back, records each move (stored before
 * the node is relabelled) and is the one place that says which node is whose. A node is inference's
 * once it was seen labelled {@code inference} (the operator's bootstrap put it there) or its name
 * matches {@code aryl.scheduler.inference.nodes}.
 *
 * <p>The label a node carries follows the place recorded here: a node being lent is relabelled
 * {@code training} once nothing runs on it, and a returned node is HOME once the reclaim that
 * drained it relabelled it. A label changed by anyone else (an operator's {@code yarn rmadmin
 * -replaceLabelsOnNode}) is taken as it is, and logged: the containers on the node stay where they
 * are.
 *
 * <p>Not thread-safe but for {@link #owns}, which reads an immutable copy: the engine changes it
 * under its lock.
 */
final class InferencePool {
  private static final Logger LOG = LoggerFactory.getLogger(InferencePool.class);

  private final String inferenceLabel;
  private final String trainingLabel;
  private final Pattern configured;

  /**
   * Every inference node and its place; replaced whole on each change, so {@link #owns} may read it
   * from any thread.
   */
  private volatile Map<String, Place> places = Map.of();

  /**
   * Whether each node's name matches {@code configured}: asked for every node each round, matched
   * once.
   */
  private final Map<String, Boolean> matchesConfigured = new HashMap<>();

  /**
   * The views of the last {@link #observe}: only views that changed since (another object) are
   * looked at again.
   */
  private NodeView[] seen = new NodeView[0];

  private boolean unsaved;

  /**
   * Moves whenever an answer of {@link #owns} may have changed. Written by the engine's thread only
   * (the class is not thread-safe but for {@link #owns}); volatile so that other threads see it
   * move.
   */
  private volatile long changes;

  /**
   * Whether the places were upgraded from a format that did not record them (all HOME): the first
   * round takes them from the labels without calling that a change made outside Aryl.
   */
  private boolean placesFromLabels;

  /**
   * Lent nodes (labelled training) and their GPUs, counted again only when a view or a place
   * changed.
   */
  private int lentNodes;

  private int lentGpus;
  private long countedAt = -1;

  InferencePool(String inferenceLabel, String trainingLabel, Pattern configured) {
    this.inferenceLabel = inferenceLabel;
    this.trainingLabel = trainingLabel;
    this.configured = configured;
  }

  /** Whether the node is the inference pool's, wherever it is now. */
  boolean owns(String node) {
    Map<String, Place> p = places;
    if (p.containsKey(node)) {
      return true;
    }
    return configured != null && configured.matcher(node).matches();
  }

  /** The node's place; null if it is not inference's (or not seen yet). */
  Place place(String node) {
    return places.get(node);
  }

  /** A count that moves whenever an answer of {@link #owns} may have changed. */
  long changes() {
    return changes;
  }

  /**
   * Takes in a round's nodes: a node newly seen labelled {@code inference}, or named by the
   * configured pattern, joins the pool; a label changed outside Aryl is taken as it is. Views the
   * last call saw (the same objects) are not looked at again: at thousands of nodes a lookup of
   * every node's name each round showed in the planning thread's profile.
   */
  void observe(List<NodeView> nodes) {
    NodeView[] now = nodes.toArray(new NodeView[0]);
    Map<String, Place> next = null;
    boolean viewsChanged = now.length != seen.length;
    for (int i = 0; i < now.length; i++) {
      // The same object as last time: the RM hands out a new view when a node changes.
      if (i < seen.length && isSameView(now[i], seen[i])) {
        continue;
      }
      viewsChanged = true;
      NodeView v = now[i];
      Place was = places.get(v.id());
      Place is = placeByLabel(v, was);
      if (is != was) {
        if (next == null) {
          next = new TreeMap<>(places);
        }
        next.put(v.id(), is);
      }
    }
    seen = now;
    placesFromLabels = false;
    if (next != null) {
      set(next);
    }
    if (viewsChanged || countedAt != changes) {
      int n = 0;
      int gpus = 0;
      for (NodeView v : now) {
        if (trainingLabel.equals(v.label()) && owns(v.id())) {
          n++;
          gpus += v.gpus();
        }
      }
      lentNodes = n;
      lentGpus = gpus;
      countedAt = changes;
    }
  }

  /** Where the node's label puts it, given where it was recorded. */
  private Place placeByLabel(NodeView v, Place was) {
    boolean inference = inferenceLabel.equals(v.label());
    boolean training = trainingLabel.equals(v.label());
    if (was == null) {
      if (inference) {
        return Place.HOME;
      }
      boolean named =
          configured != null
              && matchesConfigured.computeIfAbsent(v.id(), n -> configured.matcher(n).matches());
      return named && training ? Place.LENT : named ? Place.HOME : null;
    }
    if (was == Place.LENDING) {
      return training
          ? Place.LENT
          : Place.LENDING; // relabelled as asked; else still to be relabelled
    }
    if (was == Place.HOME && training) {
      if (!placesFromLabels) {
        LOG.warn(
            "Aryl: inference node {} was labelled {} outside Aryl; it counts as lent",
            v.id(),
            trainingLabel);
      }
      return Place.LENT;
    }
    if (was == Place.LENT && inference) {
      LOG.warn(
          "Aryl: lent node {} was labelled {} outside Aryl; it counts as home (what runs there stays)",
          v.id(),
          inferenceLabel);
      return Place.HOME;
    }
    return was;
  }

  /** The node is to be lent: it takes no new container until it is relabelled {@code training}. */
  void lend(String node) {
    move(node, Place.HOME, Place.LENDING);
  }

  /** A node being lent was not relabelled after all (something started on it): it stays home. */
  void keepHome(String node) {
    move(node, Place.LENDING, Place.HOME);
  }

  /** The node was relabelled {@code training}, as lending it asked. */
  void lent(String node) {
    move(node, Place.LENDING, Place.LENT);
  }

  /** A reclaim returned the node: it is home. */
  void returned(String node) {
    if (places.get(node) == Place.LENT) {
      move(node, Place.LENT, Place.HOME);
    }
  }

  private void move(String node, Place from, Place to) {
    if (places.get(node) != from) {
      throw new IllegalStateException("node " + node + " is " + places.get(node) + ", not " + from);
    }
    Map<String, Place> next = new TreeMap<>(places);
    next.put(node, to);
    set(next);
  }

  @SuppressWarnings("NonAtomicVolatileUpdate") // one writer, the engine's thread
  private void set(Map<String, Place> next) {
    places = Map.copyOf(next);
    unsaved = true;
    changes++;
  }

  /** Nodes in the place, sorted by name. */
  List<String> in(Place place) {
    List<String> out = new ArrayList<>();
    new TreeMap<>(places)
        .forEach(
            (node, p) -> {
              if (p == place) {
                out.add(node);
              }
            });
    return out;
  }

  /** Nodes on loan (lent, or being lent), but for those in {@code returning}. */
  int onLoan(Set<String> returning) {
    int n = 0;
    for (Map.Entry<String, Place> e : places.entrySet()) {
      if (e.getValue() != Place.HOME && !returning.contains(e.getKey())) {
        n++;
      }
    }
    return n;
  }

  /** Inference nodes labelled training, as of the last {@link #observe}. */
  int lentNodes() {
    return lentNodes;
  }

  /** Their GPUs. */
  int lentGpus() {
    return lentGpus;
  }

  boolean unsaved() {
    return unsaved;
  }

  InferenceNodes toRecord() {
    return new InferenceNodes(places);
  }

  void saved() {
    unsaved = false;
  }

  /**
   * Takes over the stored places.
   *
   * @param fromLabels true when the stored format did not record places (all HOME): the first round
   *     takes them from the labels without calling it a change made outside Aryl
   */
  @SuppressWarnings("NonAtomicVolatileUpdate") // one writer, the engine's thread
  void restore(InferenceNodes stored, boolean fromLabels) {
    stored
        .nodes()
        .forEach(
            (node, place) -> {
              if (node == null || node.isBlank() || place == null) {
                throw new IllegalArgumentException("an inference node's name or place is blank");
              }
            });
    places = Map.copyOf(stored.nodes());
    placesFromLabels = fromLabels;
    seen = new NodeView[0];
    changes++;
  }

  @SuppressWarnings("ReferenceEquality") // identity is the point: an unchanged view is skipped
  private static boolean isSameView(NodeView a, NodeView b) {
    return a == b;
  }
}
