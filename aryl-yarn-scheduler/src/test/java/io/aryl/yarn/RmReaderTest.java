package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.job.JobShape;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
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
    ArylSettings settings = rm.aryl.settings();
    reader = new RmReader(rm.aryl, apps, settings.trainingQueue(), settings.trainingLabel(), settings.gpus());
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
  @DisplayName("a running application's ApplicationMaster container is read as one, flagged by the RM yet or not")
  void unflaggedApplicationMaster() throws Exception {
    MockAM am = rm.submit("a", SHAPE);
    ApplicationId appId = am.getApplicationAttemptId().getApplicationId();
    apps.register(appId.toString(), SHAPE, 0);
    ContainerId master = rm.rm.getRMContext().getRMApps().get(appId).getCurrentAppAttempt().getMasterContainer()
        .getId();
    RMContainerImpl container = (RMContainerImpl) rm.aryl.getRMContainer(master);
    // As the RM has it for a moment: the attempt has its master container, which is not flagged yet.
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

  private ContainerView amContainerView(RmReader.RunningApps running, ContainerId id) {
    return reader.nodes(rm.aryl.getNodeTracker().getAllNodes(), running.unflaggedAm()).stream()
        .flatMap(n -> n.containers().stream()).filter(c -> c.id().equals(id.toString())).findFirst().orElseThrow();
  }
}
