package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.job.JobShape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node on which the plan promised nothing is offered only to applications outside the plan; while
 * none of them asks, an attempt to allocate there (a heartbeat's, a step of the asynchronous
 * thread's walk) is passed over before the queues are walked. Passing over must never keep a
 * container from anyone who asked.
 */
@DisplayName("a node no application would be offered is passed over")
class NoOneToOfferTest {
  private static final String PROMISED = "127.1.0.1";
  private static final String OTHER = "127.1.0.2";

  @TempDir Path dir;
  private MockArylRm rm;
  private MockNM promised;
  private MockNM other;

  @BeforeEach
  void start() throws Exception {
    rm = new MockArylRm(dir);
    promised = rm.gpuNode(PROMISED, MockArylRm.TRAINING);
    other = rm.gpuNode(OTHER, MockArylRm.TRAINING);
  }

  @AfterEach
  void stop() {
    if (rm != null) {
      rm.close();
    }
  }

  private FiCaSchedulerNode node(MockNM nm) {
    return rm.aryl.getNode(nm.getNodeId());
  }

  private void waitPassedOver(MockNM nm) throws Exception {
    GenericTestUtils.waitFor(() -> rm.aryl.noOneToOffer(node(nm)), 5, 10_000);
  }

  @Test
  @DisplayName("with no application at all, every node")
  void noApplications() throws Exception {
    waitPassedOver(promised);
    assertThat(rm.aryl.noOneToOffer(node(other))).isTrue();
  }

  @Test
  @DisplayName(
      "a plain application's ask is offered every node at once, and passed over again once it holds all")
  void plainApplicationAsks() throws Exception {
    waitPassedOver(other);
    RMApp app =
        MockRMAppSubmitter.submit(
            rm.rm,
            MockRMAppSubmissionData.Builder.createWithResource(Resource.newInstance(1024, 1), rm.rm)
                .withAppName("plain")
                .withQueue(MockArylRm.TRAINING)
                .withAppNodeLabel("")
                .withMaxAppAttempts(1)
                .withWaitForAppAcceptedState(false)
                .build());
    MockAM am = rm.launchAndRegister(app); // its master's container: on a node promised nothing
    waitPassedOver(other);

    am.allocate(List.of(MockArylRm.workers(2, 4)), List.of());
    assertThat(rm.aryl.noOneToOffer(node(other)))
        .as("right after the ask, before any scan")
        .isFalse();
    rm.heartbeat(other);
    List<Container> got =
        new ArrayList<>(am.allocate(List.of(), List.of()).getAllocatedContainers());
    rm.heartbeat(other);
    got.addAll(am.allocate(List.of(), List.of()).getAllocatedContainers());
    assertThat(MockArylRm.byNode(got))
        .as("its workers, on a node promised nothing")
        .containsEntry(OTHER, 2);

    waitPassedOver(other);
  }

  @Test
  @DisplayName(
      "a node promised to an elastic job is never passed over; its workers are allocated there")
  void promisedNode() throws Exception {
    MockAM job = rm.submit("e", new JobShape(1, 1, 8, 600, ""));
    rm.ask(job, 1, 8);
    rm.round();
    String planned = rm.targetByNode(job).keySet().iterator().next();
    MockNM there = planned.equals(PROMISED) ? promised : other;
    MockNM elsewhere = there == promised ? other : promised;
    waitPassedOver(elsewhere);
    assertThat(rm.aryl.noOneToOffer(node(there))).as("the promised node").isFalse();

    job.allocate(List.of(), List.of()); // takes the grant
    rm.heartbeat(there);
    assertThat(job.allocate(List.of(), List.of()).getAllocatedContainers())
        .as("its worker")
        .hasSize(1);
  }
}
