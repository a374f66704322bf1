package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.job.JobShape;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker the scheduler allocates leaves its ApplicationMaster's ask at once, as it leaves the
 * Capacity Scheduler's own pending ask: a round between the allocation and the ApplicationMaster's
 * next ask must not see the job asking for it still. It did (ReclaimIT, "F lands whole on one
 * loaned node", failing about one run in three): E held its 8 workers on the training node and its
 * last ask still said 8; the nodes just loaned to training had a round promise E 8 more there and
 * push the grant to the Capacity Scheduler at once; a loaned node's heartbeat allocated some of
 * them before E's next ask (0) arrived; E handed them back, but F's gang, planned meanwhile, went
 * around them onto both loaned nodes, and kept that split.
 *
 * <p>On {@link MockArylRm}: a real ResourceManager with Aryl, driven step by step.
 */
@DisplayName("an allocated worker leaves its ApplicationMaster's ask at once")
class AllocatedWorkersLeaveTheAskTest {
  @TempDir Path dir;
  private MockArylRm rm;
  private MockNM own;
  private MockNM loanedA;
  private MockNM loanedB;

  @BeforeEach
  void start() throws Exception {
    rm = new MockArylRm(dir);
    own = rm.gpuNode("127.1.0.1", MockArylRm.TRAINING);
    loanedA = rm.gpuNode("127.1.0.2", MockArylRm.INFERENCE);
    loanedB = rm.gpuNode("127.1.0.3", MockArylRm.INFERENCE);
  }

  @AfterEach
  void stop() {
    if (rm != null) {
      rm.close();
    }
  }

  @Test
  @DisplayName(
      "a round before the ApplicationMaster's next ask plans and gives the job nothing more, and the next"
          + " gang lands whole")
  void roundBeforeTheNextAsk() throws Exception {
    MockAM e = rm.submit("e", new JobShape(1, 16, 1, 36_000, ""));
    rm.ask(e, 8, 1);
    round(e);
    rm.heartbeat(own);
    // The ApplicationMaster is handed its 8 workers. As AMRMClient does, it sends its decremented
    // ask (0) only with
    // its next heartbeat.
    assertThat(MockArylRm.byNode(e.allocate(List.of(), List.of()).getAllocatedContainers()))
        .isEqualTo(Map.of("127.1.0.1", 8));

    // Both inference nodes are lent to training, and a round runs before E's next heartbeat.
    loan();
    rm.round();
    assertThat(rm.application(e).askedWorkers()).isEqualTo(0);
    assertThat(rm.application(e).targetByNode()).as("E's target").isEqualTo(Map.of("127.1.0.1", 8));
    rm.heartbeat(loanedA);
    rm.heartbeat(loanedB);
    assertThat(e.allocate(List.of(MockArylRm.workers(0, 1)), List.of()).getAllocatedContainers())
        .as("workers E's ApplicationMaster never asked for")
        .isEmpty();

    MockAM f = rm.submit("f", new JobShape(8, 8, 1, 600, ""));
    rm.ask(f, 8, 1);
    round(f);
    Map<String, Integer> fTarget = rm.targetByNode(f);
    assertThat(fTarget).as("F's target").hasSize(1);
    rm.heartbeat(loanedA);
    rm.heartbeat(loanedB);
    Map<String, Integer> fWorkers =
        MockArylRm.byNode(f.allocate(List.of(), List.of()).getAllocatedContainers());
    assertThat(fWorkers).as("F's workers").isEqualTo(fTarget);
  }

  @Test
  @DisplayName(
      "an ask sent before the ApplicationMaster was handed its workers does not count them again")
  void askSentBeforeTheHandover() throws Exception {
    loan();
    MockAM e = rm.submit("e", new JobShape(1, 16, 1, 36_000, ""));
    rm.ask(e, 8, 1);
    round(e);
    Map<String, Integer> first = rm.targetByNode(e);
    for (MockNM nm : List.of(own, loanedA, loanedB)) {
      rm.heartbeat(nm);
    }
    // The ApplicationMaster asks for one worker more (9 in all, by YARN's absolute asks) in the
    // very heartbeat that
    // hands it the 8: it had not seen them when it counted.
    assertThat(MockArylRm.byNode(rm.ask(e, 9, 1))).isEqualTo(first);
    rm.round();
    assertThat(rm.application(e).askedWorkers()).isEqualTo(1);
    assertThat(rm.application(e).targetWorkers()).isEqualTo(9);
    assertThat(e.allocate(List.of(), List.of()).getAllocatedContainers())
        .isEmpty(); // takes the grant
    for (MockNM nm : List.of(own, loanedA, loanedB)) {
      rm.heartbeat(nm);
    }
    assertThat(e.allocate(List.of(), List.of()).getAllocatedContainers()).hasSize(1);
    rm.round();
    assertThat(rm.application(e).askedWorkers()).isEqualTo(0);
  }

  /**
   * A round, then a heartbeat of each ApplicationMaster, which takes the round's grants: a round an
   * ask started on the planning thread may push its grants while the ask's own heartbeat still
   * passes the grants of the round before.
   */
  private void round(MockAM... ams) throws Exception {
    rm.round();
    for (MockAM am : ams) {
      assertThat(am.allocate(List.of(), List.of()).getAllocatedContainers()).isEmpty();
    }
  }

  private void loan() throws Exception {
    rm.relabel(MockArylRm.TRAINING, "127.1.0.2", "127.1.0.3");
  }
}
