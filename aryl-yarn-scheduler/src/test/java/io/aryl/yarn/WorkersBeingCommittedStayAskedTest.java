package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.ApplicationStatus;
import io.aryl.core.job.JobShape;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ResourceCommitRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker is taken out of its ApplicationMaster's ask before its commit and reaches its node only
 * with it; a round reads the asks, then the nodes. A round reading across a commit saw the worker
 * in neither: the job asked for one worker fewer, was planned that width, and then found its last
 * worker not worth a re-scale (LoanControllerIT, "training fills its node and both loaned ones",
 * failing under load: 23 workers of 24, one GPU idle, one worker asked for).
 *
 * <p>On {@link MockArylRm}, with a scheduler that runs a round in the middle of a worker's commit.
 */
@DisplayName("a worker being committed still counts as asked for")
class WorkersBeingCommittedStayAskedTest {
  @TempDir Path dir;
  private MockArylRm rm;
  private MockNM own;

  /**
   * ArylScheduler, running {@link #duringCommit} once inside the next commit of a container the
   * gate passed.
   */
  public static final class RoundDuringCommit extends ArylScheduler {
    static final AtomicReference<Runnable> duringCommit = new AtomicReference<>();

    @Override
    @SuppressWarnings("rawtypes")
    protected boolean commit(Resource cluster, ResourceCommitRequest r, boolean updatePending) {
      Runnable hook = r.getContainersToAllocate().isEmpty() ? null : duringCommit.getAndSet(null);
      if (hook != null) {
        hook.run();
      }
      return super.commit(cluster, r, updatePending);
    }
  }

  @BeforeEach
  void start() throws Exception {
    rm = new MockArylRm(dir, RoundDuringCommit.class);
    own = rm.gpuNode("127.1.0.1", MockArylRm.TRAINING);
  }

  @AfterEach
  void stop() {
    RoundDuringCommit.duringCommit.set(null);
    if (rm != null) {
      rm.close();
    }
  }

  @Test
  @DisplayName(
      "a round in the middle of the first worker's commit plans the job all 8 it asked for, and it gets them")
  void roundDuringACommit() throws Exception {
    // 600 s predicted: an eighth worker saves 600/7 - 600/8 = 11 s, less than the 30 s a re-scale
    // pauses the job, so a
    // job once planned at 7 stays at 7.
    MockAM e = rm.submit("e", new JobShape(1, 8, 1, 600, ""));
    rm.ask(e, 8, 1);
    rm.round();
    assertThat(e.allocate(List.of(), List.of()).getAllocatedContainers())
        .isEmpty(); // takes the grant
    assertThat(rm.targetByNode(e)).isEqualTo(Map.of("127.1.0.1", 8));

    AtomicReference<ApplicationStatus> seen = new AtomicReference<>();
    RoundDuringCommit.duringCommit.set(
        () -> {
          // On the dispatcher's own thread: a round, and no wait for the dispatcher to drain.
          rm.aryl.aryl().runRound();
          seen.set(rm.application(e));
        });
    rm.heartbeat(own);
    assertThat(seen.get()).as("the round during the commit ran").isNotNull();
    assertThat(seen.get().targetWorkers()).as("its target for the job").isEqualTo(8);

    int handed = e.allocate(List.of(), List.of()).getAllocatedContainers().size();
    rm.round();
    rm.heartbeat(own);
    handed += e.allocate(List.of(), List.of()).getAllocatedContainers().size();
    assertThat(handed).as("workers handed to the job").isEqualTo(8);
    assertThat(rm.application(e).targetWorkers()).isEqualTo(8);
    assertThat(rm.application(e).askedWorkers()).isEqualTo(0);
  }
}
