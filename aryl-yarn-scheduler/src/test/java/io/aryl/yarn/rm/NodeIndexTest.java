package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.MockNodes;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("NodeIndex: the nodes by name, as of one read")
class NodeIndexTest {
  private static FiCaSchedulerNode node(int host) {
    return new FiCaSchedulerNode(
        MockNodes.newNodeInfo(0, Resource.newInstance(8192, 8), host), false);
  }

  @Test
  @DisplayName(
      "each node's rack and id by its name, and its name by its id; nothing for a node not read")
  void indexesTheNodesRead() {
    FiCaSchedulerNode a = node(1);
    FiCaSchedulerNode b = node(2);
    NodeIndex index = NodeIndex.of(List.of(a, b));

    assertThat(index.rackOf(a.getNodeName())).isEqualTo(a.getRackName());
    assertThat(index.idOf(b.getNodeName())).isEqualTo(b.getNodeID());
    assertThat(index.nameOf(a.getNodeID())).isEqualTo(a.getNodeName());
    FiCaSchedulerNode later = node(3);
    assertThat(index.rackOf(later.getNodeName())).isNull();
    assertThat(index.idOf(later.getNodeName())).isNull();
    assertThat(index.nameOf(later.getNodeID())).isNull();
    assertThat(NodeIndex.EMPTY.idOf(a.getNodeName())).isNull();
  }
}
