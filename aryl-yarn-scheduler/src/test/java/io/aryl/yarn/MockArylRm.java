package io.aryl.yarn;

import io.aryl.api.status.ApplicationStatus;
import io.aryl.core.job.JobShape;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.slf4j.event.Level;

/**
 * A real ResourceManager ({@link MockRM}) running Aryl, driven step by step: nodes heartbeat and
 * rounds run only when the test says so. The configuration is the conf-templates one;
 * ApplicationMasters run on a node of their own on the default partition, workers are asked for in
 * the training partition.
 */
public final class MockArylRm implements AutoCloseable {
  public static final String GPU = ResourceInformation.GPU_URI;
  public static final String TRAINING = "training";
  public static final String INFERENCE = "inference";

  public final MockRM rm;
  public final ArylScheduler aryl;
  private final MockNM amNode;

  public MockArylRm(Path dir) throws Exception {
    this(dir, ArylScheduler.class);
  }

  /**
   * @param scheduler ArylScheduler or a test's subclass of it
   */
  public MockArylRm(Path dir, Class<? extends ArylScheduler> scheduler) throws Exception {
    YarnConfiguration conf = TemplateFiles.conf();
    conf.set(YarnConfiguration.RM_SCHEDULER, scheduler.getName());
    conf.set(
        YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR,
        new File(dir.toFile(), "labels").toURI().toString());
    conf.setLong(
        "aryl.scheduler.round-interval-ms",
        3_600_000); // rounds run when the test calls them (or asks do)
    conf.set("aryl.scheduler.state-store", "memory");
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 1);
    rm = new MockRM(conf);
    GenericTestUtils.setRootLogLevel(Level.WARN); // MockRM turns it to DEBUG
    rm.start();
    aryl = (ArylScheduler) rm.getResourceScheduler();
    amNode =
        rm.registerNode("127.2.0.1:8041", Resource.newInstance(64 * 1024, 32, Map.of(GPU, 0L)));
    rm.drainEvents();
  }

  /** Registers a node of 8 GPUs at {@code host}, labelled {@code label}. */
  public MockNM gpuNode(String host, String label) throws Exception {
    rm.getRMContext()
        .getNodeLabelManager()
        .replaceLabelsOnNode(Map.of(nodeId(host), Set.of(label)));
    MockNM nm =
        rm.registerNode(host + ":8041", Resource.newInstance(64 * 1024, 32, Map.of(GPU, 8L)));
    rm.drainEvents();
    return nm;
  }

  /** The node the ApplicationMasters run on (no GPUs, default partition). */
  public MockNM amNode() {
    return amNode;
  }

  public void relabel(String label, String... hosts) throws Exception {
    Map<NodeId, Set<String>> m = new TreeMap<>();
    for (String h : hosts) {
      m.put(nodeId(h), Set.of(label));
    }
    rm.getRMContext().getNodeLabelManager().replaceLabelsOnNode(m);
    rm.drainEvents();
  }

  public MockAM submit(String name, JobShape shape) throws Exception {
    RMApp app =
        MockRMAppSubmitter.submit(
            rm,
            MockRMAppSubmissionData.Builder.createWithResource(Resource.newInstance(1024, 1), rm)
                .withAppName(name)
                .withQueue(TRAINING)
                .withAppNodeLabel("") // the ApplicationMaster runs on the default partition
                .withApplicationTags(shape.toTags())
                .withMaxAppAttempts(1)
                .withWaitForAppAcceptedState(false)
                .build());
    MockAM am = launchAndRegister(app);
    rm.drainEvents();
    return am;
  }

  /**
   * Launches and registers {@code app}'s ApplicationMaster on the AM node, submitted without
   * waiting ({@code withWaitForAppAcceptedState(false)}). As {@link MockRM#launchAndRegisterAM}
   * does, but without its wait for the attempt to be SCHEDULED: the asynchronous scheduling thread
   * may allocate the master container before that wait looks, and the wait then times out.
   */
  public MockAM launchAndRegister(RMApp app) throws Exception {
    rm.waitForState(app.getApplicationId(), RMAppState.ACCEPTED);
    RMAppAttempt attempt = app.getCurrentAppAttempt();
    GenericTestUtils.waitFor(
        () -> {
          try {
            amNode.nodeHeartbeat(true);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          return attempt.getMasterContainer() != null;
        },
        10,
        10_000);
    MockAM am = rm.sendAMLaunched(attempt.getAppAttemptId());
    rm.waitForState(attempt.getAppAttemptId(), RMAppAttemptState.LAUNCHED);
    am.registerAppAttempt();
    rm.waitForState(app.getApplicationId(), RMAppState.RUNNING);
    return am;
  }

  /**
   * The ApplicationMaster's heartbeat with a new ask of n workers of {@code gpus} GPUs, which
   * starts a round on the planning thread: returns once that round ran, so that it cannot run later
   * in the middle of a step.
   */
  public List<Container> ask(MockAM am, int n, int gpus) throws Exception {
    long before = rounds();
    List<Container> handed =
        am.allocate(List.of(workers(n, gpus)), List.of()).getAllocatedContainers();
    GenericTestUtils.waitFor(() -> rounds() > before, 10, 10_000);
    rm.drainEvents();
    return handed;
  }

  /**
   * A round, and its actions carried out: notices and kills reach the scheduler through the RM's
   * dispatcher, so a test that reads them (a PreemptionMessage, a freed container) after the round
   * waits for the dispatcher to drain first.
   */
  public void round() {
    aryl.aryl().runRound();
    rm.drainEvents();
  }

  public long rounds() {
    return aryl.aryl().status().round();
  }

  /** A new request object every time, as over RPC. */
  public static ResourceRequest workers(int n, int gpus) {
    return ResourceRequest.newInstance(
        Priority.newInstance(1),
        ResourceRequest.ANY,
        Resource.newInstance(1024, 1, Map.of(GPU, (long) gpus)),
        n,
        true,
        TRAINING);
  }

  public void heartbeat(MockNM nm) throws Exception {
    nm.nodeHeartbeat(true);
    rm.drainEvents();
  }

  /** The application's entry in Aryl's status. */
  public ApplicationStatus application(MockAM am) {
    String id = am.getApplicationAttemptId().getApplicationId().toString();
    ApplicationStatus a = aryl.aryl().status().application(id);
    if (a == null) {
      throw new AssertionError(id + " is not in the status");
    }
    return a;
  }

  public Map<String, Integer> targetByNode(MockAM am) {
    return application(am).targetByNode();
  }

  public static Map<String, Integer> byNode(List<Container> containers) {
    Map<String, Integer> out = new TreeMap<>();
    containers.forEach(c -> out.merge(c.getNodeId().getHost(), 1, Integer::sum));
    return out;
  }

  public static NodeId nodeId(String host) {
    return NodeId.newInstance(host, 8041);
  }

  @Override
  public void close() {
    rm.stop();
  }
}
