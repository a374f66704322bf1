package io.aryl.yarn.rm;

import io.aryl.yarn.round.NodeView;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import org.apache.hadoop.yarn.api.records.NodeAttribute;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * Every node's view for a round, sorted by name, built afresh only for the nodes that changed since
 * the last read: a node whose partition, size, attributes and running containers (the same
 * containers, of the same size and kind) are as they were keeps its view. At thousands of nodes,
 * building every view each round (container ids as strings, GPU types resolved) was most of what
 * reading the cluster cost, for nodes of which few change between two rounds.
 *
 * <p>A node's containers are read only when the scheduler counted a change on it ({@link
 * NodeChangeCounts}), when it had none and may have some now, or when its turn in a sweep comes:
 * each read checks the next 1/{@code sweepRounds} of the nodes in full ({@value #SWEEP_ROUNDS} in
 * the scheduler), so that a change no hook counted (a container resized, say) is seen within that
 * many rounds, and is counted itself ({@link #unsignalled}). Partition, size and attributes are
 * compared on those nodes, and on every node once the scheduler counted a change of labels, sizes
 * or attributes ({@link NodeChangeCounts#nodesChanged}). The nodes are sorted and indexed again
 * only when one joins or leaves.
 *
 * <p>Not thread-safe: the planning loop reads it under its lock.
 */
final class NodeViews {
  /**
   * What a node's view was built from. The containers are kept as arrays: one of these is read for
   * each of thousands of nodes every round.
   */
  private static final class Source {
    private final String partition;
    private final Resource total;
    private final Set<NodeAttribute> attributes;
    private final RMContainer[] containers;
    private final Resource[] sizes;
    private final boolean[] am;

    private Source(FiCaSchedulerNode n, List<RMContainer> cs) {
      this.containers = cs.toArray(new RMContainer[0]);
      this.sizes = new Resource[containers.length];
      this.am = new boolean[containers.length];
      for (int i = 0; i < containers.length; i++) {
        sizes[i] = RmReader.size(containers[i]);
        am[i] = containers[i].isAMContainer();
      }
      this.partition = n.getPartition();
      this.total = n.getTotalResource();
      this.attributes = n.getNodeAttributes();
    }

    /**
     * True if the node has the same partition, size and attributes as when this was read. By
     * identity first, deliberately: the node hands out the very objects it holds until they change,
     * so identity answers for almost every node without comparing values.
     */
    @SuppressWarnings("ReferenceEquality")
    boolean sameNode(FiCaSchedulerNode n) {
      String p = n.getPartition();
      Resource t = n.getTotalResource();
      Set<NodeAttribute> a = n.getNodeAttributes();
      return (p == partition || partition.equals(p))
          && (t == total || total.equals(t))
          && (a == attributes || Objects.equals(attributes, a));
    }

    boolean sameContainers(List<RMContainer> cs) {
      if (containers.length != cs.size()) {
        return false;
      }
      for (int i = 0; i < containers.length; i++) {
        RMContainer c = cs.get(i);
        // The same containers, met in the same order: the node's map of them did not change.
        if (c != containers[i]
            || c.isAMContainer() != am[i]
            || !RmReader.size(c).equals(sizes[i])) {
          return false;
        }
      }
      return true;
    }

    int containerCount() {
      return containers.length;
    }
  }

  /** Rounds in which a sweep checks every node's containers once. */
  static final int SWEEP_ROUNDS = 16;

  /** A node, what its view was built from, and the view. */
  private static final class Entry {
    final FiCaSchedulerNode node;
    Source source;
    NodeView view;

    /**
     * The scheduler's count of the node's changes, and its value when the containers were last
     * read.
     */
    final AtomicLong changes;

    long seen = -1;

    Entry(FiCaSchedulerNode node, AtomicLong changes) {
      this.node = node;
      this.changes = changes;
    }
  }

  private final BiFunction<FiCaSchedulerNode, List<RMContainer>, NodeView> build;
  private final NodeChangeCounts changes;
  private final int sweepRounds;

  /** By the node object itself: the scheduler keeps one per node for as long as it is there. */
  private IdentityHashMap<FiCaSchedulerNode, Entry> entries = new IdentityHashMap<>();

  /** The entries by node name. */
  private Entry[] sorted = new Entry[0];

  private Map<String, Integer> positions = Map.of();
  private long nodesChangedSeen = -1;

  /** Where the next sweep starts. */
  private int sweepFrom;

  private long membership;
  private long rebuilt;
  private long unsignalled;

  /**
   * @param build a node's view from the node and its running containers
   * @param changes the scheduler's counts of each node's changes
   * @param sweepRounds reads in which every node's containers are read once whatever the counts
   *     say; 0: never
   */
  NodeViews(
      BiFunction<FiCaSchedulerNode, List<RMContainer>, NodeView> build,
      NodeChangeCounts changes,
      int sweepRounds) {
    this.build = build;
    this.changes = changes;
    this.sweepRounds = sweepRounds;
  }

  /**
   * The views of {@code nodes}, sorted by node name; a list whose elements may be replaced (not
   * added or removed).
   */
  List<NodeView> of(Collection<FiCaSchedulerNode> nodes) {
    if (joinedOrLeft(nodes)) {
      index(nodes);
      membership++;
    }
    long nodesChanged =
        changes.nodesChangedCount(); // before the nodes: a change counted after is seen next time
    boolean checkNodes = nodesChanged != nodesChangedSeen;
    nodesChangedSeen = nodesChanged;
    int n = sorted.length;
    int sweep = n == 0 || sweepRounds == 0 ? 0 : Math.min(n, (n + sweepRounds - 1) / sweepRounds);
    int from = n == 0 ? 0 : sweepFrom % n;
    sweepFrom = from + sweep;
    NodeView[] out = new NodeView[n];
    for (int i = 0; i < n; i++) {
      out[i] = refreshed(sorted[i], Math.floorMod(i - from, n) < sweep, checkNodes);
    }
    return Arrays.asList(out);
  }

  private boolean joinedOrLeft(Collection<FiCaSchedulerNode> nodes) {
    if (nodes.size() != entries.size()) {
      return true;
    }
    for (FiCaSchedulerNode n : nodes) {
      if (!entries.containsKey(n)) {
        return true;
      }
    }
    return false;
  }

  /** Sorts and indexes the nodes again, keeping what was read of those that stayed. */
  private void index(Collection<FiCaSchedulerNode> nodes) {
    IdentityHashMap<FiCaSchedulerNode, Entry> now = new IdentityHashMap<>(nodes.size() * 2);
    for (FiCaSchedulerNode n : nodes) {
      Entry e = entries.get(n);
      now.put(n, e == null ? new Entry(n, changes.of(n.getNodeID())) : e);
    }
    Entry[] byName = now.values().toArray(new Entry[0]);
    Arrays.sort(byName, Comparator.comparing(e -> e.node.getNodeName()));
    Map<String, Integer> at = new HashMap<>(byName.length * 2);
    for (int i = 0; i < byName.length; i++) {
      at.put(byName[i].node.getNodeName(), i);
    }
    entries = now;
    sorted = byName;
    positions = at;
  }

  /**
   * The entry's view, built again if the node changed since it was built.
   *
   * @param sweep whether to read its containers even if no change was counted
   * @param checkNode whether a node's label, size or attributes may have changed since the last
   *     read
   */
  private NodeView refreshed(Entry e, boolean sweep, boolean checkNode) {
    FiCaSchedulerNode n = e.node;
    Source before = e.source;
    long count =
        e.changes.get(); // before the containers: a change counted after this is read next time
    boolean marked = count != e.seen;
    e.seen = count;
    // Label, size and attributes are compared when a change was counted on the node or on all of
    // them, and in its
    // sweep: otherwise three reads, one of them under the node's lock, of each of thousands of
    // nodes every round.
    boolean sameNode = before != null && (!(checkNode || marked || sweep) || before.sameNode(n));
    if (sameNode && !marked && !sweep && before.containerCount() > 0) {
      return e.view; // containers, no change reported: the same ones
    }
    if (sameNode && before.containerCount() == 0 && n.getNumContainers() == 0) {
      return e.view; // empty then, empty now: no list to copy and compare
    }
    List<RMContainer> cs = n.getCopiedListOfRunningContainers();
    if (!sameNode || !before.sameContainers(cs)) {
      if (sameNode && !marked && before.containerCount() > 0) {
        unsignalled++;
      }
      // What it is built from is read first: a container flagged an ApplicationMaster's in between
      // is then seen as
      // changed next time, and its view built again, rather than kept unflagged.
      e.source = new Source(n, cs);
      e.view = build.apply(n, cs);
      rebuilt++;
    }
    return e.view;
  }

  /**
   * The position of the node of this name in the last list {@link #of} returned; -1 if it was not
   * there.
   */
  int indexOf(String nodeName) {
    Integer i = positions.get(nodeName);
    return i == null ? -1 : i;
  }

  /** Changes whenever a read finds nodes joined or gone since the read before. */
  long membership() {
    return membership;
  }

  /** Views built (rather than kept) so far. */
  long rebuilt() {
    return rebuilt;
  }

  /**
   * Nodes whose containers a sweep found changed though no change was counted: a hook that is
   * missing.
   */
  long unsignalled() {
    return unsignalled;
  }
}
