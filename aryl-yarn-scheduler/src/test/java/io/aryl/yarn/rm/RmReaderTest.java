package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.job.JobShape;
import io.aryl.yarn.MockArylRm;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("RmReader: a round's read of the ResourceManager's applications and nodes")
class RmReaderTest {
  private static final JobShape SHAPE = new JobShape(1, 2, 1, 600, "");

  @TempDir Path dir;
  private MockArylRm rm;
  private ElasticApps apps;
  private RmReader reader;

  @BeforeEach
  void start() throws Exception {
    rm = new MockArylRm(dir);
    apps = new ElasticApps();
    reader = reader(0); // no sweep: what a read sees, the scheduler's change counts made it read
  }

  @AfterEach
  void stop() {
    if (rm != null) {
      rm.close();
    }
  }

  @Test
  @DisplayName("the nodes come sorted by name, whatever order they registered in")
  void nodesByName() throws Exception {
    rm.gpuNode("127.1.0.3", MockArylRm.TRAINING);
    rm.gpuNode("127.1.0.1", MockArylRm.TRAINING);
    rm.gpuNode("127.1.0.2", MockArylRm.TRAINING);

    List<String> names = reader.nodes().stream().map(NodeView::id).toList();

    assertThat(names).isSorted().contains("127.1.0.1", "127.1.0.2", "127.1.0.3");
  }

  @Test
  @DisplayName(
      "a running application's ApplicationMaster container is read as one, flagged by the RM yet or not")
  void unflaggedApplicationMaster() throws Exception {
    MockAM am = rm.submit("a", SHAPE);
    ApplicationId appId = am.getApplicationAttemptId().getApplicationId();
    apps.register(appId.toString(), SHAPE, 0);
    ContainerId master =
        rm.rm
            .getRMContext()
            .getRMApps()
            .get(appId)
            .getCurrentAppAttempt()
            .getMasterContainer()
            .getId();
    RMContainerImpl container = (RMContainerImpl) rm.aryl.getRMContainer(master);
    // As the RM has it for a moment: the attempt has its master container, which is not flagged
    // yet.
    container.setAMContainer(false);

    RmReader.RunningApps running = reader.runningApps(0);
    assertThat(running.views()).containsKey(appId.toString());
    assertThat(running.unflaggedAm()).containsExactly(master);
    assertThat(amContainerView(running, master).amContainer()).isTrue();

    container.setAMContainer(true);
    running = reader.runningApps(0);
    assertThat(running.unflaggedAm()).isEmpty();
    assertThat(amContainerView(running, master).amContainer()).isTrue();
  }

  @Test
  @DisplayName(
      "with no sweep, the scheduler's change counts alone keep every node's view as a fresh read makes it:"
          + " workers allocated, handed back, completed, their application killed, the node relabelled")
  void changeCountsKeepViewsCurrent() throws Exception {
    MockNM own = rm.gpuNode("127.1.0.1", MockArylRm.TRAINING);
    RmReader countsOnly = reader(0);
    assertCurrent(countsOnly);

    JobShape shape = new JobShape(1, 16, 1, 36_000, "");
    MockAM e = rm.submit("e", shape);
    apps.register(e.getApplicationAttemptId().getApplicationId().toString(), shape, 0);
    assertCurrent(countsOnly);
    List<Container> workers = new java.util.ArrayList<>();
    for (int more : new int[] {3, 3}) { // the second batch joins containers already on the node
      rm.ask(e, more, 1);
      rm.round();
      assertThat(e.allocate(List.of(), List.of()).getAllocatedContainers())
          .isEmpty(); // takes the round's grant
      rm.heartbeat(own);
      List<Container> handed = e.allocate(List.of(), List.of()).getAllocatedContainers();
      assertThat(handed).hasSize(more);
      workers.addAll(handed);
      assertCurrent(countsOnly);
    }

    e.allocate(List.of(), List.of(workers.get(0).getId(), workers.get(1).getId())); // handed back
    rm.rm.drainEvents();
    assertCurrent(countsOnly);
    // A launched worker handed back stays on its node until the node reports it finished.
    own.nodeHeartbeat(
        e.getApplicationAttemptId(),
        workers.get(3).getId().getContainerId(),
        ContainerState.RUNNING);
    rm.rm.drainEvents();
    e.allocate(List.of(), List.of(workers.get(3).getId()));
    rm.rm.drainEvents();
    assertCurrent(countsOnly);
    own.nodeHeartbeat(
        e.getApplicationAttemptId(),
        workers.get(3).getId().getContainerId(),
        ContainerState.COMPLETE);
    rm.rm.drainEvents();
    assertThat(rm.aryl.getNode(own.getNodeId()).getNumContainers())
        .as("workers left on the node")
        .isEqualTo(3);
    assertCurrent(countsOnly);
    own.nodeHeartbeat(
        e.getApplicationAttemptId(),
        workers.get(2).getId().getContainerId(),
        ContainerState.COMPLETE);
    rm.rm.drainEvents();
    assertCurrent(countsOnly);
    rm.rm.killApp(e.getApplicationAttemptId().getApplicationId());
    rm.rm.waitForState(e.getApplicationAttemptId().getApplicationId(), RMAppState.KILLED);
    rm.rm.drainEvents();
    assertCurrent(countsOnly);
    rm.relabel(MockArylRm.INFERENCE, "127.1.0.1"); // an operator moves the node to the other pool
    assertThat(fresh().get(0).label()).isEqualTo(MockArylRm.INFERENCE);
    assertCurrent(countsOnly);
    assertThat(countsOnly.unsignalledNodeChanges()).isZero();
  }

  @Test
  @DisplayName("a change no hook counted is found within a sweep's rounds, and counted as such")
  void sweepFindsUncountedChanges() throws Exception {
    MockNM own = rm.gpuNode("127.1.0.1", MockArylRm.TRAINING);
    rm.gpuNode("127.1.0.2", MockArylRm.TRAINING);
    rm.gpuNode("127.1.0.3", MockArylRm.TRAINING);
    MockAM e = rm.submit("e", new JobShape(1, 16, 1, 36_000, ""));
    rm.ask(e, 4, 1);
    rm.round();
    e.allocate(List.of(), List.of());
    rm.heartbeat(own);
    List<Container> workers = e.allocate(List.of(), List.of()).getAllocatedContainers();
    assertThat(workers).hasSize(4);
    RmReader unswept = reader(0);
    RmReader swept =
        reader(2); // 4 nodes (the ApplicationMasters' too): 2 a read, each within 2 reads
    unswept.nodes();
    swept.nodes();

    // Behind every hook's back, as a change no hook reports would be.
    rm.aryl.getNode(own.getNodeId()).releaseContainer(workers.get(0).getId(), true);

    assertThat(unswept.nodes()).as("never swept").isNotEqualTo(fresh());
    swept.nodes();
    assertThat(swept.nodes()).isEqualTo(fresh());
    assertThat(swept.unsignalledNodeChanges()).isEqualTo(1);
  }

  private RmReader reader(int sweepRounds) {
    ArylSettings settings = rm.aryl.aryl().settings();
    return new RmReader(
        rm.aryl,
        rm.aryl.nodeChanges(),
        apps,
        new PlainAsks(),
        settings.trainingQueue(),
        settings.trainingLabel(),
        settings.gpus(),
        sweepRounds);
  }

  /** Every node's view as a reader that has read nothing before makes it. */
  private List<NodeView> fresh() {
    return reader(0).nodes();
  }

  private void assertCurrent(RmReader r) {
    RmReader.RunningApps running = r.runningApps(0);
    List<NodeView> read = r.nodes(rm.aryl.getNodeTracker().getAllNodes(), running.unflaggedAm());
    assertThat(read).isEqualTo(fresh());
  }

  private ContainerView amContainerView(RmReader.RunningApps running, ContainerId id) {
    return reader.nodes(rm.aryl.getNodeTracker().getAllNodes(), running.unflaggedAm()).stream()
        .flatMap(n -> n.containers().stream())
        .filter(c -> c.id().equals(id.toString()))
        .findFirst()
        .orElseThrow();
  }
}
