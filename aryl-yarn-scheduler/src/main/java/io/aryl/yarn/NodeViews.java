package io.aryl.yarn;

import io.aryl.yarn.round.NodeView;
import java.util.ArrayList;
import java.util.Collection;
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
 * Every node's view for a round, built afresh only for the nodes that changed since the last read: a node whose
 * partition, size, attributes and running containers (the same containers, of the same size and kind) are as they
 * were keeps its view. At thousands of nodes, building every view each round (container ids as strings, GPU types
 * resolved) was most of what reading the cluster cost, for nodes of which few change between two rounds.
 *
 * <p>Not thread-safe: the planning loop reads it under its lock.
 */
final class NodeViews {
  /** What a node's view was built from. */
  private record Source(String partition, Resource total, Set<NodeAttribute> attributes, List<RMContainer> containers,
      List<Resource> sizes, List<Boolean> am) {
    static Source of(FiCaSchedulerNode n) {
      List<RMContainer> cs = n.getCopiedListOfRunningContainers();
      List<Resource> sizes = new ArrayList<>(cs.size());
      List<Boolean> am = new ArrayList<>(cs.size());
      for (RMContainer c : cs) {
        sizes.add(c.getAllocatedResource());
        am.add(c.isAMContainer());
      }
      return new Source(n.getPartition(), n.getTotalResource(), n.getNodeAttributes(), cs, sizes, am);
    }

    boolean sameAs(Source o) {
      if (containers.size() != o.containers.size()) {
        return false;
      }
      for (int i = 0; i < containers.size(); i++) {
        if (containers.get(i) != o.containers.get(i)) {
          return false; // the same containers, met in the same order: the node's map of them did not change
        }
      }
      return partition.equals(o.partition) && total.equals(o.total) && Objects.equals(attributes, o.attributes)
          && sizes.equals(o.sizes) && am.equals(o.am);
    }
  }

  private record Seen(Source source, NodeView view) {}

  private final BiFunction<FiCaSchedulerNode, List<RMContainer>, NodeView> build;
  private Map<FiCaSchedulerNode, Seen> last = new IdentityHashMap<>();
  private long membership;
  private long rebuilt;

  /** @param build a node's view from the node and its running containers */
  NodeViews(BiFunction<FiCaSchedulerNode, List<RMContainer>, NodeView> build) {
    this.build = build;
  }

  /** The views of {@code nodes}, in their order. */
  List<NodeView> of(Collection<FiCaSchedulerNode> nodes) {
    Map<FiCaSchedulerNode, Seen> now = new IdentityHashMap<>(nodes.size() * 2);
    List<NodeView> out = new ArrayList<>(nodes.size());
    boolean joinedOrLeft = nodes.size() != last.size();
    for (FiCaSchedulerNode n : nodes) {
      Source source = Source.of(n);
      Seen before = last.get(n);
      joinedOrLeft |= before == null;
      Seen seen = before != null && before.source().sameAs(source) ? before
          : new Seen(source, build.apply(n, source.containers()));
      if (seen != before) {
        rebuilt++;
      }
      now.put(n, seen);
      out.add(seen.view());
    }
    if (joinedOrLeft) {
      membership++;
    }
    last = now;
    return out;
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
