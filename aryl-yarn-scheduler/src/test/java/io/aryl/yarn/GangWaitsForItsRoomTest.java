package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.job.JobShape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gang admitted into room that a shrinking job's workers still hold starts whole, once all of
 * that room is free: it took no worker while the room came free one container at a time. It did
 * (ElasticAmIT, "a job shrinks on preemption", failing now and then under load): Q's gang of 2 was
 * planned into the 4 GPUs of P's 2 drained workers; P's ApplicationMaster released the first, a
 * node heartbeat gave Q one worker there, and the round before P released the second found Q a
 * partial gang with no room to complete it. It gave Q up, called P's second drain off, and Q,
 * holding one worker and asking for one, was never planned again.
 */
@DisplayName("a gang waits for all of its room")
class GangWaitsForItsRoomTest {
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
      "a gang planned into room being drained takes no worker until all of it is free, then starts whole")
  void gangStartsWholeAfterTheDrains() throws Exception {
    MockAM p = rm.submit("p", new JobShape(2, 4, 2, 600, ""));
    rm.ask(p, 4, 2);
    rm.round();
    p.allocate(List.of(), List.of()); // takes the grant
    rm.heartbeat(own);
    List<Container> pWorkers = p.allocate(List.of(), List.of()).getAllocatedContainers();
    assertThat(pWorkers).as("P's workers").hasSize(4);

    MockAM q = rm.submit("q", new JobShape(2, 2, 2, 60, ""));
    rm.ask(q, 2, 2);
    rm.round();
    assertThat(rm.targetByNode(q)).as("Q's target").isEqualTo(Map.of(NODE, 2));
    assertThat(rm.targetByNode(p)).as("P's target").isEqualTo(Map.of(NODE, 2));
    List<ContainerId> drained = preempted(p.allocate(List.of(), List.of()));
    assertThat(drained).as("P's workers asked back").hasSize(2);
    assertThat(q.allocate(List.of(), List.of()).getAllocatedContainers())
        .isEmpty(); // takes the grant

    // P gives its first drained worker back: 2 GPUs free, Q's gang needs 4.
    p.allocate(List.of(), List.of(drained.get(0)));
    rm.heartbeat(own);
    assertThat(q.allocate(List.of(), List.of()).getAllocatedContainers())
        .as("Q's workers with half its room free")
        .isEmpty();
    rm.round();
    assertThat(rm.targetByNode(q))
        .as("Q's target after a round in between")
        .isEqualTo(Map.of(NODE, 2));
    assertThat(rm.targetByNode(p))
        .as("P's target after a round in between")
        .isEqualTo(Map.of(NODE, 2));

    p.allocate(List.of(), List.of(drained.get(1)));
    rm.heartbeat(own);
    List<Container> qWorkers =
        new ArrayList<>(q.allocate(List.of(), List.of()).getAllocatedContainers());
    rm.heartbeat(own);
    qWorkers.addAll(q.allocate(List.of(), List.of()).getAllocatedContainers());
    assertThat(MockArylRm.byNode(qWorkers))
        .as("Q's workers once its room is free")
        .isEqualTo(Map.of(NODE, 2));
  }

  private static List<ContainerId> preempted(AllocateResponse r) {
    List<ContainerId> out = new ArrayList<>();
    if (r.getPreemptionMessage() != null && r.getPreemptionMessage().getContract() != null) {
      for (PreemptionContainer c : r.getPreemptionMessage().getContract().getContainers()) {
        out.add(c.getId());
      }
    }
    if (r.getPreemptionMessage() != null && r.getPreemptionMessage().getStrictContract() != null) {
      r.getPreemptionMessage().getStrictContract().getContainers().forEach(c -> out.add(c.getId()));
    }
    return out;
  }
}
