package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.NodeScopedCapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.SingleNodeProposal;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "NodeScopedCapacityScheduler: every attempt to allocate on one node passes its hook, with that node")
class NodeScopedCapacitySchedulerTest {
  /** Records the node of every allocation attempt. */
  public static class Recording extends NodeScopedCapacityScheduler {
    static final List<String> NODES = new CopyOnWriteArrayList<>();

    @Override
    protected <T> T allocatingOn(FiCaSchedulerNode node, Supplier<T> allocation) {
      NODES.add(node.getNodeName());
      return allocation.get();
    }
  }

  /**
   * Records as {@link Recording} does, and slows its asynchronous walk while nothing is pending.
   */
  public static class PausingRecording extends Recording {
    @Override
    protected boolean pausesIdleWalk() {
      return true;
    }
  }

  private static MockRM start(boolean async) {
    return start(async, Recording.class);
  }

  private static MockRM start(boolean async, Class<?> scheduler) {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RM_SCHEDULER, scheduler.getName());
    conf.setBoolean(CapacitySchedulerConfiguration.SCHEDULE_ASYNCHRONOUSLY_ENABLE, async);
    MockRM rm = new MockRM(conf);
    rm.start();
    return rm;
  }

  @Test
  @DisplayName("a node heartbeat's, and one Aryl makes itself on a node it chose")
  void heartbeatAndProposal() throws Exception {
    Recording.NODES.clear();
    MockRM rm = start(false);
    try {
      MockNM nm = rm.registerNode("127.3.0.1:8041", Resource.newInstance(8192, 8));
      nm.nodeHeartbeat(true);
      rm.drainEvents();
      assertThat(Recording.NODES).contains("127.3.0.1");

      Recording.NODES.clear();
      Recording scheduler = (Recording) rm.getResourceScheduler();
      SingleNodeProposal.proposeOn(scheduler, scheduler.getNode(nm.getNodeId()));
      assertThat(Recording.NODES).containsExactly("127.3.0.1");
    } finally {
      rm.stop();
    }
  }

  @Test
  @DisplayName("each step of the asynchronous scheduling thread's walk of the nodes")
  void asynchronousWalk() throws Exception {
    Recording.NODES.clear();
    MockRM rm = start(true);
    try {
      rm.registerNode("127.3.0.2:8041", Resource.newInstance(8192, 8));
      rm.drainEvents();
      long deadline = System.currentTimeMillis() + 10_000;
      while (!Recording.NODES.contains("127.3.0.2") && System.currentTimeMillis() < deadline) {
        Thread.sleep(10);
      }
      assertThat(Recording.NODES).contains("127.3.0.2");
    } finally {
      rm.stop();
    }
  }

  @Test
  @DisplayName(
      "an idle walk: no step reaches the queues while nothing is pending, and an ask is served at once")
  void idleWalk() throws Exception {
    Recording.NODES.clear();
    MockRM rm = start(true, PausingRecording.class);
    try {
      List<MockNM> nms = new ArrayList<>();
      for (int i = 1; i <= 20; i++) {
        nms.add(rm.registerNode("127.3.1." + i + ":8041", Resource.newInstance(8192, 8)));
      }
      rm.drainEvents();
      Thread.sleep(1_000); // unpaused, the walk steps through these 20 nodes every ~5 ms
      assertThat(Recording.NODES)
          .as("steps that reached the queues with nothing pending")
          .isEmpty();

      for (MockNM nm : nms) {
        nm.nodeHeartbeat(true); // the walk passes over nodes whose last heartbeat is old
      }
      // Not submitWithMemory: it waits for the attempt to be SCHEDULED, a state an ask served at
      // once may leave
      // before the wait looks.
      RMApp app =
          MockRMAppSubmitter.submit(
              rm,
              MockRMAppSubmissionData.Builder.createWithMemory(1024, rm)
                  .withWaitForAppAcceptedState(false)
                  .build());
      rm.waitForState(app.getApplicationId(), RMAppState.ACCEPTED);
      long deadline = System.currentTimeMillis() + 10_000;
      while ((app.getCurrentAppAttempt() == null
              || app.getCurrentAppAttempt().getMasterContainer() == null)
          && System.currentTimeMillis() < deadline) {
        Thread.sleep(10);
      }
      assertThat(app.getCurrentAppAttempt().getMasterContainer())
          .as("the ApplicationMaster's container")
          .isNotNull();
    } finally {
      rm.stop();
    }
  }
}
