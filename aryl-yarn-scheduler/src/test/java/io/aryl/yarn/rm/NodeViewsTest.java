package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.round.NodeView;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.NodeAttribute;
import org.apache.hadoop.yarn.api.records.NodeAttributeType;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.MockNodes;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("NodeViews: a node's view is built again only once the node changed")
class NodeViewsTest {
  private static FiCaSchedulerNode node(int host) {
    return new FiCaSchedulerNode(
        MockNodes.newNodeInfo(0, Resource.newInstance(8192, 8), host), false);
  }

  private final NodeChangeCounts counts = new NodeChangeCounts();

  private NodeViews views() {
    return new NodeViews(
        (n, cs) -> new NodeView(n.getNodeName(), n.getPartition(), 8, List.of()), counts, 0);
  }

  @Test
  @DisplayName(
      "an unchanged node keeps its view; a relabelled, resized or re-attributed one gets a new one once the"
          + " scheduler counted such a change")
  void rebuildsChangedNodesOnly() {
    FiCaSchedulerNode a = node(1);
    FiCaSchedulerNode b = node(2);
    NodeViews views = views();
    List<NodeView> first = views.of(List.of(a, b));
    List<NodeView> second = views.of(List.of(a, b));
    assertThat(second.get(0)).isSameAs(first.get(0));
    assertThat(second.get(1)).isSameAs(first.get(1));
    assertThat(views.rebuilt()).isEqualTo(2);

    a.updateLabels(Set.of("training"));
    assertThat(views.of(List.of(a, b)).get(0).label()).as("not counted yet").isEmpty();
    counts.nodesChanged();
    List<NodeView> relabelled = views.of(List.of(a, b));
    assertThat(relabelled.get(0).label()).isEqualTo("training");
    assertThat(relabelled.get(1)).isSameAs(first.get(1));

    b.updateTotalResource(Resource.newInstance(4096, 4));
    counts.nodesChanged();
    views.of(List.of(a, b));
    a.updateNodeAttributes(
        Set.of(NodeAttribute.newInstance("gpu-type", NodeAttributeType.STRING, "a100")));
    counts.changed(a.getNodeID()); // counted on the node alone: it is compared all the same
    views.of(List.of(a, b));
    assertThat(views.rebuilt()).isEqualTo(5);
  }

  @Test
  @DisplayName("membership changes when a node joins, leaves or registers anew, and only then")
  void membership() {
    FiCaSchedulerNode a = node(1);
    FiCaSchedulerNode b = node(2);
    NodeViews views = views();
    views.of(List.of(a));
    long m = views.membership();
    views.of(List.of(a));
    assertThat(views.membership()).isEqualTo(m);
    views.of(List.of(a, b));
    assertThat(views.membership()).isEqualTo(m + 1);
    views.of(List.of(b));
    assertThat(views.membership()).isEqualTo(m + 2);
    views.of(List.of(node(2))); // the same name, registered again
    assertThat(views.membership()).isEqualTo(m + 3);
  }

  @Test
  @DisplayName("the views come sorted by node name, each found by name at its place in the list")
  void sortedByName() {
    FiCaSchedulerNode a = node(3);
    FiCaSchedulerNode b = node(1);
    FiCaSchedulerNode c = node(2);
    NodeViews views = views();

    List<NodeView> out = views.of(List.of(a, b, c));

    assertThat(out).extracting(NodeView::id).isSorted().hasSize(3);
    for (FiCaSchedulerNode n : List.of(a, b, c)) {
      assertThat(out.get(views.indexOf(n.getNodeName())).id()).isEqualTo(n.getNodeName());
    }
    assertThat(views.indexOf("no-such-node")).isEqualTo(-1);
    assertThat(views.of(List.of(c, a, b))).isEqualTo(out);
  }
}
