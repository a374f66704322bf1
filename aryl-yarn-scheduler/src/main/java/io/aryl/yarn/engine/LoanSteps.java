package io.aryl.yarn.engine;

import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.state.InferenceNodes.Place;
import io.aryl.yarn.state.LoanTargetRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lends inference nodes and asks them back to meet the loan controller's target, or an operator's
 * request: a node is lent only when nothing runs on it, is fenced from the moment it is chosen
 * (recorded, and stored, as being lent), and is relabelled {@code training} once that is stored.
 * Nodes above the target are asked back by a reclaim, least cost first; nodes still being lent are
 * simply kept home.
 */
final class LoanSteps {
  private static final Logger LOG = LoggerFactory.getLogger(LoanSteps.class);

  private final ArylSettings settings;
  private final InferencePool pool;
  private final LoanTargets targets;

  LoanSteps(ArylSettings settings, InferencePool pool, LoanTargets targets) {
    this.settings = settings;
    this.pool = pool;
    this.targets = targets;
  }

  /**
   * What the target asks of this round: the nodes to lend now (already recorded as being lent), and
   * how many lent nodes a reclaim must return, by when.
   *
   * @param returning nodes a reclaim in flight returns already
   */
  Decision decide(List<NodeView> nodes, Set<String> returning, long nowMs) {
    LoanTargetRecord target = targets.current();
    if (!target.set()) {
      return Decision.NONE;
    }
    int onLoan = pool.onLoan(returning);
    if (onLoan > target.maxOnLoan()) {
      int excess = onLoan - target.maxOnLoan();
      for (String node : pool.in(Place.LENDING)) {
        if (excess == 0) {
          break;
        }
        pool.keepHome(node); // not relabelled yet: nothing to drain
        excess--;
      }
      // A lent node whose NodeManager is gone can be neither drained nor relabelled: it stays lent,
      // and is asked back
      // once it re-registers. Asking for it now would have every reclaim refused, and nothing would
      // come home.
      excess = Math.min(excess, reclaimable(nodes, returning));
      if (excess == 0) {
        return Decision.NONE;
      }
      long deadline =
          target.returnByMs() > nowMs ? target.returnByMs() : nowMs + settings.reclaimDeadlineMs();
      return new Decision(List.of(), excess, deadline);
    }
    List<String> lend = new ArrayList<>();
    Map<String, NodeView> byId = null;
    for (String node : pool.in(Place.HOME)) {
      if (onLoan + lend.size() >= target.maxOnLoan()) {
        break;
      }
      if (byId == null) {
        byId = byId(nodes);
      }
      NodeView v = byId.get(node);
      if (v != null && v.isEmpty() && settings.inferenceLabel().equals(v.label())) {
        pool.lend(node);
        lend.add(node);
      }
    }
    if (!lend.isEmpty()) {
      LOG.info(
          "Aryl lends {} to training: the loan target (epoch {}, {}) allows {} on loan",
          lend,
          target.epoch(),
          target.controller(),
          target.maxOnLoan());
    }
    return new Decision(lend, 0, 0);
  }

  /**
   * Lent nodes that are registered and not returned by a reclaim already: what a reclaim can take.
   */
  private int reclaimable(List<NodeView> nodes, Set<String> returning) {
    Map<String, NodeView> byId = byId(nodes);
    int n = 0;
    for (String node : pool.in(Place.LENT)) {
      if (byId.containsKey(node) && !returning.contains(node)) {
        n++;
      }
    }
    return n;
  }

  /**
   * What a round asks of the target.
   *
   * @param lend nodes chosen to be lent, recorded as being lent
   * @param reclaim how many lent nodes a reclaim must return
   * @param deadlineMs by when, epoch ms
   */
  record Decision(List<String> lend, int reclaim, long deadlineMs) {
    static final Decision NONE = new Decision(List.of(), 0, 0);
  }

  /**
   * Records the named nodes as being lent, as an operator asked: each must be an inference node at
   * home, registered, with nothing running on it. All or none.
   *
   * @throws IllegalArgumentException naming the first node that cannot be lent, and why
   * @throws IllegalStateException while a loan controller's target decides what is lent
   */
  void lendByHand(List<String> names, List<NodeView> nodes) {
    LoanTargetRecord target = targets.current();
    if (target.set()) {
      throw new IllegalStateException(
          "the loan controller "
              + target.controller()
              + " (epoch "
              + target.epoch()
              + ") decides how many nodes are lent (at most "
              + target.maxOnLoan()
              + " now): nodes are not lent by hand"
              + " while it does");
    }
    if (names.isEmpty()) {
      throw new IllegalArgumentException("nodes must name at least one node, was empty");
    }
    Map<String, NodeView> byId = byId(nodes);
    for (String name : names) {
      NodeView v = byId.get(name);
      String why =
          v == null
              ? "it is not registered with the ResourceManager"
              : !pool.owns(name)
                  ? "it is not an inference node"
                  : pool.place(name) != Place.HOME
                      ? "it is "
                          + pool.place(name).name().toLowerCase(java.util.Locale.ROOT)
                          + " already"
                      : !v.isEmpty()
                          ? "containers run on it (" + v.containers().size() + ")"
                          : null;
      if (why != null) {
        throw new IllegalArgumentException("node " + name + " cannot be lent: " + why);
      }
    }
    if (names.stream().distinct().count() != names.size()) {
      throw new IllegalArgumentException("nodes must name each node once, was " + names);
    }
    names.forEach(pool::lend);
    LOG.info("Aryl lends {} to training, as asked by hand", names);
  }

  /**
   * The relabels still owed to nodes being lent (their place is stored): each empty one is
   * relabelled {@code training}; one that something started on since it was chosen stays home.
   */
  List<Action> relabelsOwed(List<NodeView> nodes) {
    List<String> lending = pool.in(Place.LENDING);
    if (lending.isEmpty()) {
      return List.of();
    }
    Map<String, NodeView> byId = byId(nodes);
    List<Action> out = new ArrayList<>();
    for (String node : lending) {
      NodeView v = byId.get(node);
      if (v != null && v.isEmpty()) {
        out.add(new Action.Relabel(node, settings.trainingLabel()));
      } else {
        LOG.info(
            "Aryl keeps {} home: {}",
            node,
            v == null ? "it left the cluster" : "a container started on it");
        pool.keepHome(node);
      }
    }
    return out;
  }

  private static Map<String, NodeView> byId(List<NodeView> nodes) {
    Map<String, NodeView> out = new HashMap<>();
    nodes.forEach(n -> out.put(n.id(), n));
    return out;
  }
}
