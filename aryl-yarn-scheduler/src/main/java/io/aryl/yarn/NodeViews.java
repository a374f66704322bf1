package io.aryl.yarn;

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
import java.util.function.BiFunction;
import org.apache.hadoop.yarn.api.records.NodeAttribute;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * Every node's view for a round, sorted by name, built afresh only for the nodes that changed since the last read: a
 * node whose partition, size, attributes and running containers (the same containers, of the same size and kind) are
 * as they were keeps its view. At thousands of nodes, building every view each round (container ids as strings, GPU
 * types resolved) was most of what reading the cluster cost, for nodes of which few change between two rounds.
 *
 * <p>A node that had no container and still has none is recognised without copying its (empty) list of containers;
 * the nodes are sorted and indexed again only when one joins or leaves.
 *
 * <p>Not thread-safe: the planning loop reads it under its lock.
 */
final class NodeViews {
  /** What a node's view was built from. */
  private record Source(String partition, Resource total, Set<NodeAttribute> attributes, RMContainer[] containers,
      Resource[] sizes, boolean[] am) {
    static Source of(FiCaSchedulerNode n, List<RMContainer> cs) {
      RMContainer[] containers = cs.toArray(new RMContainer[0]);
      Resource[] sizes = new Resource[containers.length];
      boolean[] am = new boolean[containers.length];
      for (int i = 0; i < containers.length; i++) {
        sizes[i] = containers[i].getAllocatedResource();
        am[i] = containers[i].isAMContainer();
      }
      return new Source(n.getPartition(), n.getTotalResource(), n.getNodeAttributes(), containers, sizes, am);
    }

    /** True if the node has the same partition, size and attributes as when this was read. */
    boolean sameNode(FiCaSchedulerNode n) {
      // By identity first: the node hands out the very objects it holds until they change.
      String p = n.getPartition();
      Resource t = n.getTotalResource();
      Set<NodeAttribute> a = n.getNodeAttributes();
      return (p == partition || partition.equals(p)) && (t == total || total.equals(t))
          && (a == attributes || Objects.equals(attributes, a));
    }

    boolean sameContainers(List<RMContainer> cs) {
      if (containers.length != cs.size()) {
        return false;
      }
      for (int i = 0; i < containers.length; i++) {
        RMContainer c = cs.get(i);
        // The same containers, met in the same order: the node's map of them did not change.
        if (c != containers[i] || c.isAMContainer() != am[i] || !c.getAllocatedResource().equals(sizes[i])) {
          return false;
        }
      }
      return true;
    }
  }

  /** A node, what its view was built from, and the view. */
  private static final class Entry {
    final FiCaSchedulerNode node;
    Source source;
    NodeView view;

    Entry(FiCaSchedulerNode node) {
      this.node = node;
    }
  }

  private final BiFunction<FiCaSchedulerNode, List<RMContainer>, NodeView> build;
  private Map<FiCaSchedulerNode, Entry> entries = new IdentityHashMap<>();
  /** The entries by node name. */
  private Entry[] sorted = new Entry[0];
  private Map<String, Integer> positions = Map.of();
  private long membership;
  private long rebuilt;

  /** @param build a node's view from the node and its running containers */
  NodeViews(BiFunction<FiCaSchedulerNode, List<RMContainer>, NodeView> build) {
    this.build = build;
  }

  /** The views of {@code nodes}, sorted by node name; a list whose elements may be replaced (not added or removed). */
  List<NodeView> of(Collection<FiCaSchedulerNode> nodes) {
    if (joinedOrLeft(nodes)) {
      index(nodes);
      membership++;
    }
    NodeView[] out = new NodeView[sorted.length];
    for (int i = 0; i < sorted.length; i++) {
      out[i] = refreshed(sorted[i]);
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
    Map<FiCaSchedulerNode, Entry> now = new IdentityHashMap<>(nodes.size() * 2);
    for (FiCaSchedulerNode n : nodes) {
      Entry e = entries.get(n);
      now.put(n, e == null ? new Entry(n) : e);
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

  /** The entry's view, built again if the node changed since it was built. */
  private NodeView refreshed(Entry e) {
    FiCaSchedulerNode n = e.node;
    Source before = e.source;
    if (before != null && before.containers().length == 0 && n.getNumContainers() == 0 && before.sameNode(n)) {
      return e.view; // empty then, empty now: no list to copy and compare
    }
    List<RMContainer> cs = n.getCopiedListOfRunningContainers();
    if (before == null || !before.sameNode(n) || !before.sameContainers(cs)) {
      // What it is built from is read first: a container flagged an ApplicationMaster's in between is then seen as
      // changed next time, and its view built again, rather than kept unflagged.
      e.source = Source.of(n, cs);
      e.view = build.apply(n, cs);
      rebuilt++;
    }
    return e.view;
  }

  /** The position of the node of this name in the last list {@link #of} returned; -1 if it was not there. */
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
}
