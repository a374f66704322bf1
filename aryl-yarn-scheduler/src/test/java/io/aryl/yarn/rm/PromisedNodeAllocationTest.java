package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.Allocation;
import io.aryl.yarn.round.PlanBook;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.MockNodes;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("PromisedNodeAllocation: the nodes a round promised workers on are offered at once")
class PromisedNodeAllocationTest {
  private static FiCaSchedulerNode node(int host) {
    return new FiCaSchedulerNode(
        MockNodes.newNodeInfo(0, Resource.newInstance(8192, 8), host), false);
  }

  @Test
  @DisplayName(
      "each node of a target: one proposal per worker promised there, fewer once one proposes nothing")
  void proposesPerPromisedWorker() throws Exception {
    FiCaSchedulerNode a = node(1);
    FiCaSchedulerNode b = node(2);
    Map<String, FiCaSchedulerNode> nodes = Map.of(a.getNodeName(), a, b.getNodeName(), b);
    PlanBook book =
        new PlanBook(
            Map.of(
                "job",
                    Allocation.of(Map.of(a.getNodeName(), 3, b.getNodeName(), 2, "gone-node", 1)),
                "other", Allocation.of(Map.of(a.getNodeName(), 1))),
            1);
    // Node a has room for two containers, b for all its promised ones.
    Map<String, Integer> room =
        new ConcurrentHashMap<>(Map.of(a.getNodeName(), 2, b.getNodeName(), 10));
    Map<String, Integer> calls = new ConcurrentHashMap<>();
    Map<String, Map<String, Integer>> offeredTo = new ConcurrentHashMap<>();
    CountDownLatch done = new CountDownLatch(2);
    try (PromisedNodeAllocation allocation =
        new PromisedNodeAllocation(
            nodes::get,
            () -> book,
            (n, promised) -> {
              offeredTo.put(n.getNodeName(), promised);
              int call = calls.merge(n.getNodeName(), 1, Integer::sum);
              boolean proposed = room.merge(n.getNodeName(), -1, Integer::sum) >= 0;
              int expected =
                  n.getNodeName().equals(a.getNodeName())
                      ? 3
                      : 2; // a: two proposals, then one that proposes nothing; b: its two workers
              if (call == expected) {
                done.countDown();
              }
              return proposed;
            })) {
      allocation.offerTargetsOf(List.of("job"));
      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
      Thread.sleep(100); // no call beyond those
      assertThat(calls)
          .containsExactlyInAnyOrderEntriesOf(Map.of(a.getNodeName(), 3, b.getNodeName(), 2));
      assertThat(offeredTo.get(a.getNodeName())).isEqualTo(Map.of("job", 3, "other", 1));
    }
  }
}
