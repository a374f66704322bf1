package io.aryl.it;

import static io.aryl.it.ArylMiniCluster.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a submitter may ask for is the operator's to decide, whatever the job's tags say. One
 * cluster (2 training nodes of 8 GPUs) with {@code yarn.acl.enable=true}: only alice may submit to
 * root.training (and root.inference); jobs are capped at 8 GPUs cluster-wide, and at 4 GPUs and 3
 * workers in root.training. Submissions go through YarnClient as alice or bob ({@code
 * UserGroupInformation.doAs}), and through the aryl-am client, in this JVM and as {@code yarn jar}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName(
    "Submission caps and queue ACLs: a job over its queue's caps, or from a user the queue does not admit,"
        + " is refused")
class SubmitCapsIT {
  private static final String ALICE = "alice";
  private static final String BOB = "bob";
  private static final String TRAINING_GPUS =
      "yarn.scheduler.capacity.root.training.aryl.max-gpus-per-job";
  private static final String TRAINING_WORKERS =
      "yarn.scheduler.capacity.root.training.aryl.max-workers-per-job";
  private static final String CLUSTER_GPUS = "aryl.scheduler.max-gpus-per-job";

  @TempDir static Path dir;

  private ArylMiniCluster cluster;
  private YarnConfiguration conf;

  @BeforeAll
  void start() throws Exception {
    YarnConfiguration c = AmJobs.conf(dir.toFile());
    c.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    // YARN grants a queue's access to whoever has it on the queue or any parent, and root's ACLs
    // default to everyone.
    c.set("yarn.scheduler.capacity.root.acl_submit_applications", " ");
    c.set("yarn.scheduler.capacity.root.acl_administer_queue", " ");
    c.set("yarn.scheduler.capacity.root.training.acl_submit_applications", ALICE);
    c.set("yarn.scheduler.capacity.root.inference.acl_submit_applications", ALICE);
    c.setLong(CLUSTER_GPUS, 8);
    c.setLong(TRAINING_GPUS, 4);
    c.setLong(TRAINING_WORKERS, 3);
    cluster = ArylMiniCluster.start("caps", c, 0, 2);
    conf = new YarnConfiguration(cluster.conf());
  }

  @AfterAll
  void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * A submission's outcome: the application id, and the ResourceManager's refusal if it refused it.
   */
  record Submission(ApplicationId id, YarnException refused) {}

  /**
   * An unmanaged-AM application with these tags, submitted as {@code user} through a YarnClient of
   * that user's.
   */
  private Submission submitAs(String user, String name, String queue, Set<String> tags)
      throws Exception {
    return UserGroupInformation.createRemoteUser(user)
        .doAs(
            (PrivilegedExceptionAction<Submission>)
                () -> {
                  try (YarnClient client = YarnClient.createYarnClient()) {
                    client.init(new YarnConfiguration(conf));
                    client.start();
                    ApplicationSubmissionContext ctx =
                        TestJob.unmanagedApplication(client, name, queue, tags);
                    try {
                      client.submitApplication(ctx);
                      return new Submission(ctx.getApplicationId(), null);
                    } catch (YarnException e) {
                      return new Submission(ctx.getApplicationId(), e);
                    }
                  }
                });
  }

  /** The aryl-am client in this JVM as {@code user}. */
  private AmJobs.Result clientAs(String user, String... args) throws Exception {
    return UserGroupInformation.createRemoteUser(user)
        .doAs((PrivilegedExceptionAction<AmJobs.Result>) () -> AmJobs.client(conf, args));
  }

  private static String[] submit(String name, String... shape) {
    return Stream.of(
            new String[] {
              "submit",
              "--name",
              name,
              "--memory-mb",
              "256",
              "--am-memory-mb",
              "256",
              "--predicted-runtime-s",
              "600"
            },
            shape,
            new String[] {"--", "exec sleep 600"})
        .flatMap(Stream::of)
        .toArray(String[]::new);
  }

  private ApplicationReport report(ApplicationId id) {
    try {
      return cluster.client().getApplicationReport(id);
    } catch (YarnException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private boolean inRm(ApplicationId id) {
    try {
      cluster.client().getApplicationReport(id);
      return true;
    } catch (YarnException | IOException e) {
      return false;
    }
  }

  /** The application's worker containers (those with GPUs) running now. */
  private long runningWorkers(ApplicationId id) {
    SchedulerApplication<?> app = cluster.arylScheduler().getSchedulerApplications().get(id);
    if (app == null || app.getCurrentAppAttempt() == null) {
      return 0;
    }
    return app.getCurrentAppAttempt().getLiveContainers().stream()
        .filter(c -> c.getAllocatedResource().getResourceValue("yarn.io/gpu") > 0)
        .filter(c -> c.getState() == RMContainerState.RUNNING)
        .count();
  }

  /**
   * Rejected at submission, with these diagnostics; no attempt, nothing in the scheduler or in
   * Aryl's plan.
   */
  private void assertRejected(Submission s, String diagnostics) {
    assertThat(s.refused()).as("refusal of %s", s.id()).isNotNull();
    assertThat(s.refused()).hasMessageContaining(diagnostics);
    ApplicationReport r = report(s.id());
    assertThat(r.getYarnApplicationState()).isEqualTo(YarnApplicationState.FAILED);
    assertThat(r.getDiagnostics()).contains(diagnostics);
    assertThat(cluster.rm().getRMContext().getRMApps().get(s.id()).getAppAttempts())
        .as("attempts of the rejected %s", s.id())
        .isEmpty();
    assertThat(cluster.arylScheduler().getSchedulerApplications()).doesNotContainKey(s.id());
    assertThat(cluster.aryl().status().application(s.id().toString())).isNull();
  }

  Stream<Arguments> overTheCaps() {
    return Stream.of(
        Arguments.of(
            "GPUs over the queue's cap",
            "root.training",
            TestJob.shape(1, 3, 2, 60),
            "invalid Aryl job shape: aryl.max-workers=3 x aryl.gpus-per-worker=2 = 6 GPUs is more than queue"
                + " root.training allows ("
                + TRAINING_GPUS
                + "=4)"),
        Arguments.of(
            "workers over the queue's cap, checked before GPUs",
            "root.training",
            TestJob.shape(1, 4, 2, 60),
            "invalid Aryl job shape: aryl.max-workers=4 is more than queue root.training allows ("
                + TRAINING_WORKERS
                + "=3)"),
        Arguments.of(
            "workers over the queue's cap, an inelastic job named by its min-workers",
            "training",
            TestJob.shape(4, 4, 1, 60),
            "aryl.min-workers=4 is more than queue root.training allows ("
                + TRAINING_WORKERS
                + "=3)"),
        Arguments.of(
            "GPUs over the cluster-wide cap, in a queue without its own",
            "inference",
            TestJob.shape(1, 3, 4, 60),
            "aryl.max-workers=3 x aryl.gpus-per-worker=4 = 12 GPUs is more than queue root.inference allows ("
                + CLUSTER_GPUS
                + "=8)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("overTheCaps")
  @DisplayName(
      "a shape over a cap is REJECTED naming the tag, the value and the cap; nothing of it is scheduled")
  void overTheCapIsRejected(String spec, String queue, Set<String> tags, String diagnostics)
      throws Exception {
    assertRejected(
        submitAs(ALICE, "over-" + queue + "-" + tags.hashCode(), queue, tags), diagnostics);
  }

  @Test
  @DisplayName(
      "a shape at the caps runs: the aryl-am job of 2 workers x 2 GPUs starts both workers")
  void withinTheCapsRuns() throws Exception {
    AmJobs.Result r = clientAs(ALICE, submit("within", "--min-workers", "2", "--gpus", "2"));
    assertThat(r.exit()).as("output:%n%s%s", r.out(), r.err()).isZero();
    ApplicationId id = r.applicationId();
    try {
      cluster.awaitShowingStatus(
          "both workers of " + id + " running", () -> runningWorkers(id) == 2);
      assertThat(report(id).getYarnApplicationState()).isEqualTo(YarnApplicationState.RUNNING);
      assertThat(report(id).getUser()).isEqualTo(ALICE);
    } finally {
      cluster.client().killApplication(id);
    }
  }

  @Test
  @DisplayName(
      "yarn jar submit over the queue's cap: exit 2, the ResourceManager's reason, no stack trace, no files")
  void clientSurfacesTheRejection() throws Exception {
    AmJobs.Result r =
        AmJobs.runJarAs(
            ALICE,
            conf,
            dir.toFile(),
            submit("wide", "--min-workers", "1", "--max-workers", "3", "--gpus", "2"));
    assertThat(r.exit()).as("exit; output:%n%s", r.out()).isEqualTo(2);
    assertThat(r.out())
        .containsPattern(
            "submit: the ResourceManager refused application_\\d+_\\d+: invalid Aryl job"
                + " shape: aryl.max-workers=3 x aryl.gpus-per-worker=2 = 6 GPUs is more than queue root.training allows \\("
                + TRAINING_GPUS.replace(".", "\\.")
                + "=4\\)");
    assertThat(r.out())
        .as("no stack trace, no usage")
        .doesNotContain("\tat ")
        .doesNotContain("Exception")
        .doesNotContain("Usage:");
    ApplicationId id =
        ApplicationId.fromString(
            r.out().replaceAll("(?s).*refused (application_\\d+_\\d+).*", "$1"));
    assertThat(report(id).getYarnApplicationState()).isEqualTo(YarnApplicationState.FAILED);
    assertThat(new File(dir.toFile(), "staging/" + id)).as("the job's staged files").doesNotExist();
  }

  @Test
  @DisplayName(
      "acl_submit_applications: bob's Aryl job is refused by the ResourceManager, alice's is accepted")
  void queueAclHoldsForArylJobs() throws Exception {
    Submission bob = submitAs(BOB, "bobs", "training", TestJob.shape(1, 2, 1, 60));
    assertThat(bob.refused())
        .as("bob's submission")
        .isNotNull()
        .hasMessageContaining(
            "User bob does not have permission to submit " + bob.id() + " to queue training");
    assertThat(inRm(bob.id())).as("bob's application in the RM").isFalse();

    AmJobs.Result viaClient = clientAs(BOB, submit("bobs-am", "--min-workers", "1"));
    assertThat(viaClient.exit()).as("output:%n%s%s", viaClient.out(), viaClient.err()).isEqualTo(2);
    assertThat(viaClient.err())
        .containsPattern(
            "submit: the ResourceManager refused (application_\\d+_\\d+): User"
                + " bob does not have permission to submit \\1 to queue training")
        .doesNotContain("Exception");

    Submission alice = submitAs(ALICE, "alices", "training", TestJob.shape(1, 2, 1, 60));
    assertThat(alice.refused()).as("alice's submission").isNull();
    try {
      await(
          "alice's job accepted",
          Duration.ofSeconds(30),
          () -> report(alice.id()).getYarnApplicationState() == YarnApplicationState.ACCEPTED);
      assertThat(cluster.aryl().status().application(alice.id().toString())).isNotNull();
    } finally {
      cluster.client().killApplication(alice.id());
    }
  }

  @Test
  @DisplayName(
      "a job moved into a queue whose caps its shape is over is refused, naming the tag, value and cap")
  void moveMeetsTheTargetQueuesCaps() throws Exception {
    Submission s = submitAs(ALICE, "mover", "inference", TestJob.shape(1, 2, 4, 60));
    assertThat(s.refused()).as("8 GPUs in root.inference (cluster-wide cap 8)").isNull();
    try {
      await(
          "the job accepted",
          Duration.ofSeconds(30),
          () -> report(s.id()).getYarnApplicationState() == YarnApplicationState.ACCEPTED);
      UserGroupInformation alice = UserGroupInformation.createRemoteUser(ALICE);
      assertThatThrownBy(
              () ->
                  alice.doAs(
                      (PrivilegedExceptionAction<Void>)
                          () -> {
                            try (YarnClient client = YarnClient.createYarnClient()) {
                              client.init(new YarnConfiguration(conf));
                              client.start();
                              client.moveApplicationAcrossQueues(s.id(), "training");
                            }
                            return null;
                          }))
          .hasStackTraceContaining(
              "cannot move "
                  + s.id()
                  + " to queue root.training: aryl.max-workers=2 x"
                  + " aryl.gpus-per-worker=4 = 8 GPUs is more than queue root.training allows ("
                  + TRAINING_GPUS
                  + "=4)");
      assertThat(report(s.id()).getQueue()).as("the job's queue").isEqualTo("root.inference");
    } finally {
      cluster.client().killApplication(s.id());
    }
  }

  @Test
  @DisplayName(
      "a queue refresh re-reads the caps; a wrong cap fails it naming the key and value, the caps unchanged")
  void refreshRereadsTheCaps() throws Exception {
    Configuration lowered = new YarnConfiguration(cluster.rm().getConfig());
    lowered.setLong(TRAINING_GPUS, 2);
    Configuration wrong = new YarnConfiguration(cluster.rm().getConfig());
    wrong.set(TRAINING_GPUS, "-2");
    var rmContext = cluster.rm().getRMContext();
    try {
      // What yarn rmadmin -refreshQueues does once it has read the files.
      assertThatThrownBy(() -> cluster.arylScheduler().reinitialize(wrong, rmContext))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(
              TRAINING_GPUS + " must be an integer >= 0 (0: no cap of its own), was '-2'")
          .hasMessageContaining(
              "the caps in force are unchanged: "
                  + TRAINING_WORKERS
                  + "=3, "
                  + CLUSTER_GPUS
                  + "=8, "
                  + TRAINING_GPUS
                  + "=4");
      assertRejected(
          submitAs(ALICE, "after-wrong-refresh", "training", TestJob.shape(1, 1, 5, 60)),
          "= 5 GPUs is more than queue root.training allows (" + TRAINING_GPUS + "=4)");

      cluster.arylScheduler().reinitialize(lowered, rmContext);
      assertRejected(
          submitAs(ALICE, "after-refresh", "training", TestJob.shape(1, 1, 3, 60)),
          "aryl.min-workers=1 x aryl.gpus-per-worker=3 = 3 GPUs is more than queue root.training allows ("
              + TRAINING_GPUS
              + "=2)");
    } finally {
      cluster
          .arylScheduler()
          .reinitialize(new YarnConfiguration(cluster.rm().getConfig()), rmContext);
    }
  }
}
