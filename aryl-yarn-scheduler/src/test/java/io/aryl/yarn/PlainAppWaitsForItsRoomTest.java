package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.aryl.core.job.JobShape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plain application (no Aryl tags, e.g. Spark's GPU executors) whose room an elastic job's
 * draining workers still hold is a starting gang: its promise stands until the drains end. Every
 * round in between threw a NullPointerException (the GPUs per worker of a starting gang were looked
 * up among the elastic applications only), so no round got as far as killing the drained workers at
 * the grace, and the plain application waited for the elastic job's own ApplicationMaster to let
 * go.
 */
@DisplayName("a plain application waits for its room like a gang, and the rounds go on meanwhile")
class PlainAppWaitsForItsRoomTest {
  private static final String NODE = "127.1.0.1";

  @TempDir Path dir;
  private MockArylRm rm;
  private MockNM own;

  @BeforeEach
  void start() throws Exception {
    rm = new MockArylRm(dir);
    own = rm.gpuNode(NODE, MockArylRm.TRAINING);
  }

  @AfterEach
  void stop() {
    if (rm != null) {
      rm.close();
    }
  }

  @Test
  @DisplayName(
      "rounds run while a plain application's room is drained, and it gets its containers once the room is"
          + " free")
  void roundsRunWhileAPlainApplicationWaitsForDrains() throws Exception {
    MockAM elastic = rm.submit("elastic", new JobShape(2, 4, 2, 600, ""));
    rm.ask(elastic, 4, 2);
    rm.round();
    elastic.allocate(List.of(), List.of()); // takes the grant
    rm.heartbeat(own);
    assertThat(elastic.allocate(List.of(), List.of()).getAllocatedContainers())
        .as("the elastic job's workers")
        .hasSize(4);

    MockAM plain = submitPlain("plain-gpu-app");
    plain.allocate(List.of(MockArylRm.workers(2, 2)), List.of());
    rm.round();
    assertThat(rm.targetByNode(elastic))
        .as("the elastic job's target: its extras make room")
        .isEqualTo(Map.of(NODE, 2));
    List<ContainerId> drained = preempted(elastic.allocate(List.of(), List.of()));
    assertThat(drained).as("the elastic job's workers asked back").hasSize(2);

    // The elastic job keeps its two drained workers for now: the plain application's room is still
    // held.
    assertThatCode(rm.aryl.aryl()::runRound)
        .as("a round while the plain application waits for its room")
        .doesNotThrowAnyException();
    assertThatCode(rm.aryl.aryl()::runRound).as("and the next one").doesNotThrowAnyException();
    assertThat(rm.aryl.aryl().metrics().planningRoundsFailed())
        .as("planning rounds failed, on the planning thread too")
        .isZero();

    elastic.allocate(List.of(), drained);
    rm.heartbeat(own);
    List<Container> got =
        new ArrayList<>(plain.allocate(List.of(), List.of()).getAllocatedContainers());
    rm.heartbeat(own);
    got.addAll(plain.allocate(List.of(), List.of()).getAllocatedContainers());
    assertThat(MockArylRm.byNode(got))
        .as("the plain application's containers once its room is free")
        .isEqualTo(Map.of(NODE, 2));
    assertThat(rm.aryl.aryl().metrics().planningRoundsFailed()).isZero();
  }

  /**
   * YARN's asks are totals the ApplicationMaster counts before it sees the answer: an ask sent in
   * the heartbeat whose answer hands it a container still counts that container, and the Capacity
   * Scheduler holds it as pending until the next ask. Spark's second executor, allocated between
   * two of its heartbeats, was such a phantom for three seconds, and a round shrank the elastic job
   * for it: a worker drained and killed, then replaced once the phantom was gone.
   */
  @Test
  @DisplayName(
      "a plain application's ask that counts a container handed over in its own answer takes no room for"
          + " it again")
  void askCountingAContainerItWasHandedTakesNoRoom() throws Exception {
    MockAM elastic = rm.submit("elastic", new JobShape(1, 4, 2, 600, ""));
    rm.ask(elastic, 4, 2);
    rm.round();
    elastic.allocate(List.of(), List.of()); // takes the grant
    rm.heartbeat(own);
    assertThat(elastic.allocate(List.of(), List.of()).getAllocatedContainers()).hasSize(4);

    MockAM plain = submitPlain("plain-gpu-app");
    plain.allocate(List.of(MockArylRm.workers(1, 2)), List.of());
    rm.round();
    assertThat(rm.targetByNode(elastic)).isEqualTo(Map.of(NODE, 3));
    elastic.allocate(List.of(), preempted(elastic.allocate(List.of(), List.of())));
    for (int i = 0; i < 5 && liveContainers(plain) < 2; i++) {
      rm.heartbeat(own); // the drained worker goes, then the plain application's container comes
    }
    assertThat(liveContainers(plain))
        .as("the plain application's ApplicationMaster and its first container")
        .isEqualTo(2);

    // It wants a second container, and asks for 2 in all: it has not seen the first, which the
    // answer to this very ask hands it.
    assertThat(
            plain.allocate(List.of(MockArylRm.workers(2, 2)), List.of()).getAllocatedContainers())
        .hasSize(1);
    rm.round();
    assertThat(rm.aryl.aryl().status().plainDemand())
        .as("plain demand: its second container, not the first again")
        .singleElement()
        .satisfies(d -> assertThat(d.pendingContainers()).isEqualTo(1));
    assertThat(rm.targetByNode(elastic))
        .as("the elastic job's target: room for one more plain container, not two")
        .isEqualTo(Map.of(NODE, 2));

    // Its next ask counts what it was handed: one more, as before.
    plain.allocate(List.of(MockArylRm.workers(1, 2)), List.of());
    rm.round();
    assertThat(rm.aryl.aryl().status().plainDemand())
        .singleElement()
        .satisfies(d -> assertThat(d.pendingContainers()).isEqualTo(1));
    assertThat(rm.targetByNode(elastic)).isEqualTo(Map.of(NODE, 2));
  }

  private int liveContainers(MockAM am) {
    return rm.aryl.getApplicationAttempt(am.getApplicationAttemptId()).getLiveContainers().size();
  }

  /**
   * An application without Aryl's tags in the training queue, its ApplicationMaster on the AM node.
   */
  private MockAM submitPlain(String name) throws Exception {
    RMApp app =
        MockRMAppSubmitter.submit(
            rm.rm,
            MockRMAppSubmissionData.Builder.createWithResource(Resource.newInstance(1024, 1), rm.rm)
                .withAppName(name)
                .withQueue(MockArylRm.TRAINING)
                .withAppNodeLabel("")
                .withMaxAppAttempts(1)
                .withWaitForAppAcceptedState(false)
                .build());
    MockAM am = rm.launchAndRegister(app);
    rm.rm.drainEvents();
    return am;
  }

  private static List<ContainerId> preempted(AllocateResponse r) {
    List<ContainerId> out = new ArrayList<>();
    if (r.getPreemptionMessage() != null && r.getPreemptionMessage().getContract() != null) {
      for (PreemptionContainer c : r.getPreemptionMessage().getContract().getContainers()) {
        out.add(c.getId());
      }
    }
    return out;
  }
}
