package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.job.JobShape;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.event.Level;

/**
 * A worker the scheduler allocates leaves its ApplicationMaster's ask at once, as it leaves the Capacity Scheduler's own
 * pending ask: a round between the allocation and the ApplicationMaster's next ask must not see the job asking for it
 * still. It did (ReclaimIT, "F lands whole on one loaned node", failing about one run in three): E held its 8 workers
 * on the training node and its last ask still said 8; the nodes just loaned to training had a round promise E 8 more
 * there and push the grant to the Capacity Scheduler at once; a loaned node's heartbeat allocated some of them before
 * E's next ask (0) arrived; E handed them back, but F's gang, planned meanwhile, went around them onto both loaned
 * nodes, and kept that split.
 *
 * <p>A real ResourceManager ({@link MockRM}) with Aryl, driven step by step: nodes heartbeat and rounds run only when
 * the test says so.
 */
@DisplayName("an allocated worker leaves its ApplicationMaster's ask at once")
class AllocatedWorkersLeaveTheAskTest {
  private static final String GPU = ResourceInformation.GPU_URI;
  private static final String TRAINING = "training";
  private static final String INFERENCE = "inference";

  @TempDir Path dir;
  private MockRM rm;
  private ArylScheduler aryl;
  private MockNM own;
  private MockNM loanedA;
  private MockNM loanedB;
  private MockNM amNode;

  @BeforeEach
  void start() throws Exception {
    YarnConfiguration conf = templateConf();
    conf.set(YarnConfiguration.RM_SCHEDULER, ArylScheduler.class.getName());
    conf.set(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR, new File(dir.toFile(), "labels").toURI().toString());
    conf.setLong("aryl.scheduler.round-interval-ms", 3_600_000); // rounds run when the test calls them (or asks do)
    conf.set("aryl.scheduler.state-store", "memory");
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 1);
    rm = new MockRM(conf);
    GenericTestUtils.setRootLogLevel(Level.WARN); // MockRM turns it to DEBUG
    rm.start();
    aryl = (ArylScheduler) rm.getResourceScheduler();

    var labels = rm.getRMContext().getNodeLabelManager();
    labels.replaceLabelsOnNode(Map.of(nodeId("127.1.0.1"), Set.of(TRAINING), nodeId("127.1.0.2"), Set.of(INFERENCE),
        nodeId("127.1.0.3"), Set.of(INFERENCE)));
    Resource gpuNode = Resource.newInstance(64 * 1024, 32, Map.of(GPU, 8L));
    own = rm.registerNode("127.1.0.1:8041", gpuNode);
    loanedA = rm.registerNode("127.1.0.2:8041", gpuNode);
    loanedB = rm.registerNode("127.1.0.3:8041", gpuNode);
    amNode = rm.registerNode("127.2.0.1:8041", Resource.newInstance(64 * 1024, 32, Map.of(GPU, 0L)));
    rm.drainEvents();
  }

  @AfterEach
  void stop() {
    if (rm != null) {
      rm.stop();
    }
  }

  @Test
  @DisplayName("a round before the ApplicationMaster's next ask plans and gives the job nothing more, and the next"
      + " gang lands whole")
  void roundBeforeTheNextAsk() throws Exception {
    MockAM e = submit("e", new JobShape(1, 16, 1, 36_000, ""));
    ask(e, 8);
    round(e);
    heartbeat(own);
    // The ApplicationMaster is handed its 8 workers. As AMRMClient does, it sends its decremented ask (0) only with
    // its next heartbeat.
    assertThat(byNode(e.allocate(List.of(), List.of()).getAllocatedContainers())).isEqualTo(Map.of("127.1.0.1", 8));

    // Both inference nodes are lent to training, and a round runs before E's next heartbeat.
    loan();
    aryl.runRound();
    assertThat(application(e).get("askedWorkers")).isEqualTo(0);
    assertThat(application(e).get("targetByNode")).as("E's target").isEqualTo(Map.of("127.1.0.1", 8));
    heartbeat(loanedA);
    heartbeat(loanedB);
    assertThat(e.allocate(List.of(workers(0)), List.of()).getAllocatedContainers())
        .as("workers E's ApplicationMaster never asked for").isEmpty();

    MockAM f = submit("f", new JobShape(8, 8, 1, 600, ""));
    ask(f, 8);
    round(f);
    @SuppressWarnings("unchecked")
    Map<String, Integer> fTarget = (Map<String, Integer>) application(f).get("targetByNode");
    assertThat(fTarget).as("F's target").hasSize(1);
    heartbeat(loanedA);
    heartbeat(loanedB);
    Map<String, Integer> fWorkers = byNode(f.allocate(List.of(), List.of()).getAllocatedContainers());
    assertThat(fWorkers).as("F's workers").isEqualTo(fTarget);
  }

  @Test
  @DisplayName("an ask sent before the ApplicationMaster was handed its workers does not count them again")
  void askSentBeforeTheHandover() throws Exception {
    loan();
    MockAM e = submit("e", new JobShape(1, 16, 1, 36_000, ""));
    ask(e, 8);
    round(e);
    @SuppressWarnings("unchecked")
    Map<String, Integer> first = (Map<String, Integer>) application(e).get("targetByNode");
    for (MockNM nm : List.of(own, loanedA, loanedB)) {
      heartbeat(nm);
    }
    // The ApplicationMaster asks for one worker more (9 in all, by YARN's absolute asks) in the very heartbeat that
    // hands it the 8: it had not seen them when it counted.
    assertThat(byNode(ask(e, 9))).isEqualTo(first);
    aryl.runRound();
    assertThat(application(e).get("askedWorkers")).isEqualTo(1);
    assertThat(application(e).get("targetWorkers")).isEqualTo(9);
    assertThat(e.allocate(List.of(), List.of()).getAllocatedContainers()).isEmpty(); // takes the grant
    for (MockNM nm : List.of(own, loanedA, loanedB)) {
      heartbeat(nm);
    }
    assertThat(e.allocate(List.of(), List.of()).getAllocatedContainers()).hasSize(1);
    aryl.runRound();
    assertThat(application(e).get("askedWorkers")).isEqualTo(0);
  }

  // ---------------------------------------------------------------------------------------------------------------

  /**
   * The ApplicationMaster's heartbeat with a new ask, which starts a round on the planning thread: returns once that
   * round ran, so that it cannot run later in the middle of a step.
   */
  private List<Container> ask(MockAM am, int n) throws Exception {
    long before = rounds();
    List<Container> handed = am.allocate(List.of(workers(n)), List.of()).getAllocatedContainers();
    GenericTestUtils.waitFor(() -> rounds() > before, 10, 10_000);
    return handed;
  }

  private long rounds() {
    return ((Number) aryl.arylStatus().get("round")).longValue();
  }

  /**
   * A round, then a heartbeat of each ApplicationMaster, which takes the round's grants: a round an ask started on the
   * planning thread may push its grants while the ask's own heartbeat still passes the grants of the round before.
   */
  private void round(MockAM... ams) throws Exception {
    aryl.runRound();
    for (MockAM am : ams) {
      assertThat(am.allocate(List.of(), List.of()).getAllocatedContainers()).isEmpty();
    }
  }

  private void loan() throws Exception {
    rm.getRMContext().getNodeLabelManager().replaceLabelsOnNode(
        Map.of(nodeId("127.1.0.2"), Set.of(TRAINING), nodeId("127.1.0.3"), Set.of(TRAINING)));
    rm.drainEvents();
  }

  private MockAM submit(String name, JobShape shape) throws Exception {
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithResource(Resource.newInstance(1024, 1), rm)
        .withAppName(name)
        .withQueue(TRAINING)
        .withAppNodeLabel("") // the ApplicationMaster runs on the default partition
        .withApplicationTags(shape.toTags())
        .withMaxAppAttempts(1)
        .build());
    MockAM am = MockRM.launchAndRegisterAM(app, rm, amNode);
    rm.drainEvents();
    return am;
  }

  /** A new request object every time, as over RPC. */
  private static ResourceRequest workers(int n) {
    return ResourceRequest.newInstance(Priority.newInstance(1), ResourceRequest.ANY,
        Resource.newInstance(1024, 1, Map.of(GPU, 1L)), n, true, TRAINING);
  }

  private void heartbeat(MockNM nm) throws Exception {
    nm.nodeHeartbeat(true);
    rm.drainEvents();
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> application(MockAM am) {
    String id = am.getApplicationAttemptId().getApplicationId().toString();
    for (Map<String, Object> a : (List<Map<String, Object>>) aryl.arylStatus().get("applications")) {
      if (id.equals(a.get("application"))) {
        return a;
      }
    }
    throw new AssertionError(id + " is not in the status");
  }

  private static Map<String, Integer> byNode(List<Container> containers) {
    Map<String, Integer> out = new TreeMap<>();
    containers.forEach(c -> out.merge(c.getNodeId().getHost(), 1, Integer::sum));
    return out;
  }

  private static NodeId nodeId(String host) {
    return NodeId.newInstance(host, 8041);
  }

  /** The conf-templates files as overlay properties (the RM test jar carries a capacity-scheduler.xml of its own). */
  private static YarnConfiguration templateConf() throws IOException {
    List<Path> candidates = new ArrayList<>();
    candidates.add(Path.of("../conf-templates/src/main/resources/aryl-conf"));
    candidates.add(Path.of("conf-templates/src/main/resources/aryl-conf"));
    Path templates = candidates.stream().filter(p -> Files.isRegularFile(p.resolve("capacity-scheduler.xml")))
        .findFirst().orElseThrow(() -> new IOException("conf-templates not found (tried " + candidates + ")"));
    YarnConfiguration conf = new YarnConfiguration();
    for (String file : List.of("yarn-site.xml", "capacity-scheduler.xml", "resource-types.xml")) {
      Configuration t = new Configuration(false);
      t.addResource(templates.resolve(file).toUri().toURL());
      for (Map.Entry<String, String> entry : t) {
        conf.set(entry.getKey(), t.get(entry.getKey()));
      }
    }
    return conf;
  }
}
