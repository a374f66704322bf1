package io.aryl.it;

import static io.aryl.it.ArylMiniCluster.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Submissions whose Aryl tags are wrong end FAILED at once, with diagnostics naming the tag and the
 * value; valid elastic jobs and applications without Aryl tags are accepted. One cluster (2
 * training nodes of 8 GPUs, max allocation 8).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName(
    "Invalid submissions: a wrong Aryl tag fails the application with the tag and value in its diagnostics")
class InvalidSubmissionIT {
  private static final Set<YarnApplicationState> ACCEPTED =
      EnumSet.of(YarnApplicationState.ACCEPTED, YarnApplicationState.RUNNING);
  private static final Set<YarnApplicationState> DONE =
      EnumSet.of(
          YarnApplicationState.FAILED, YarnApplicationState.KILLED, YarnApplicationState.FINISHED);

  @TempDir static Path dir;

  private ArylMiniCluster cluster;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = ArylMiniCluster.start("invalid", ArylMiniCluster.testConf(dir.toFile()), 0, 2);
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * Submits with these tags and returns the report once the application has ended. YarnClient waits
   * while an application is NEW; one rejected at submission makes {@code submitApplication} throw
   * with the diagnostics, so the submitter learns the reason at once.
   */
  private ApplicationReport submitRejected(String name, Set<String> tags, String... diagnostics)
      throws Exception {
    assertThatThrownBy(() -> TestJob.submitOnly(cluster, name, "training", tags))
        .as("submission of %s", name)
        .isInstanceOf(YarnException.class)
        .hasMessageContaining("Failed to submit")
        .hasMessageContainingAll(diagnostics);
    // The application exists all the same, with its final state and diagnostics; names are unique
    // in this class.
    AtomicReference<ApplicationReport> report = new AtomicReference<>();
    await(
        name + " ends",
        Duration.ofSeconds(30),
        () -> {
          try {
            List<ApplicationReport> named =
                cluster.client().getApplications().stream()
                    .filter(r -> r.getName().equals(name))
                    .toList();
            report.set(named.size() == 1 ? named.get(0) : null);
            return report.get() != null && DONE.contains(report.get().getYarnApplicationState());
          } catch (Exception e) {
            return false;
          }
        });
    return report.get();
  }

  private void assertFailed(String name, Set<String> tags, String... diagnostics) throws Exception {
    ApplicationReport r = submitRejected(name, tags, diagnostics);
    assertThat(r.getYarnApplicationState())
        .as("state of %s, diagnostics: %s", name, r.getDiagnostics())
        .isEqualTo(YarnApplicationState.FAILED);
    assertThat(r.getDiagnostics()).contains(diagnostics);
    assertThat(cluster.aryl().status().application(r.getApplicationId().toString())).isNull();
  }

  private static Set<String> with(Set<String> tags, String... extra) {
    Set<String> out = new TreeSet<>(tags);
    out.addAll(Set.of(extra));
    return out;
  }

  private static Set<String> without(Set<String> tags, String prefix) {
    Set<String> out = new TreeSet<>(tags);
    out.removeIf(t -> t.startsWith(prefix + "="));
    return out;
  }

  @Test
  @DisplayName(
      "aryl.min-workers=3 with aryl.max-workers=2: FAILED, diagnostics name both tags and values")
  void maxBelowMin() throws Exception {
    assertFailed(
        "max-below-min",
        TestJob.shape(3, 2, 1, 60),
        "invalid Aryl job shape",
        "aryl.max-workers must be >= aryl.min-workers (3), was 2");
  }

  @Test
  @DisplayName("no aryl.predicted-runtime-s: FAILED, diagnostics name the missing tag")
  void missingRuntime() throws Exception {
    assertFailed(
        "no-runtime",
        without(TestJob.shape(1, 2, 1, 60), "aryl.predicted-runtime-s"),
        "invalid Aryl job shape",
        "missing tag aryl.predicted-runtime-s");
  }

  @Test
  @DisplayName("aryl.gpus-per-worker=0: FAILED, diagnostics name the tag and the value")
  void zeroGpus() throws Exception {
    assertFailed(
        "zero-gpus", TestJob.shape(1, 2, 0, 60), "aryl.gpus-per-worker must be >= 1, was 0");
  }

  @Test
  @DisplayName("unknown tag aryl.foo=1: FAILED, diagnostics name the tag and the value")
  void unknownTag() throws Exception {
    assertFailed(
        "unknown-tag", with(TestJob.shape(1, 2, 1, 60), "aryl.foo=1"), "unknown tag 'aryl.foo=1'");
  }

  @Test
  @DisplayName(
      "aryl.gpus-per-worker=9 with a maximum allocation of 8 GPUs: FAILED, diagnostics name tag, value, limit")
  void moreGpusThanTheLargestContainer() throws Exception {
    assertFailed(
        "nine-gpus",
        TestJob.shape(1, 2, 9, 60),
        "aryl.gpus-per-worker=9 is more than the largest container allows (8 GPUs)");
  }

  @Test
  @DisplayName(
      "aryl.gpu-types=v100 on a cluster of GPU type gpu: FAILED, diagnostics name the tag, value and types")
  void unknownGpuType() throws Exception {
    assertFailed(
        "unknown-gpu-type",
        with(TestJob.shape(1, 2, 1, 60), "aryl.gpu-types=gpu,v100"),
        "aryl.gpu-types=gpu,v100 names GPU type 'v100', which this cluster does not have (its types: gpu)");
  }

  @Test
  @DisplayName("a valid elastic job is accepted and registered with its shape")
  void validElasticJobAccepted() throws Exception {
    try (TestJob job =
        TestJob.submit(cluster, "valid", "training", TestJob.shape(1, 2, 1, 60), 1, true)) {
      ApplicationReport r = cluster.client().getApplicationReport(job.id());
      assertThat(r.getYarnApplicationState()).as(r.getDiagnostics()).isIn(ACCEPTED);
      assertThat(cluster.aryl().status().application(job.id().toString())).isNotNull();
      job.askWorkers(2);
      await("the valid job gets 2 workers", Duration.ofSeconds(30), () -> job.workers() == 2);
      assertThat(cluster.client().getApplicationReport(job.id()).getYarnApplicationState())
          .isIn(ACCEPTED);
    }
  }

  @Test
  @DisplayName("an application without Aryl tags is accepted as the Capacity Scheduler would")
  void untaggedApplicationAccepted() throws Exception {
    ApplicationId id = TestJob.submitOnly(cluster, "untagged", "training", Set.of("team=vision"));
    await(
        "the untagged application is accepted",
        Duration.ofSeconds(30),
        () -> {
          try {
            return ACCEPTED.contains(
                cluster.client().getApplicationReport(id).getYarnApplicationState());
          } catch (Exception e) {
            return false;
          }
        });
    Thread.sleep(1000); // a rejection would come with the scheduler's APP_ADDED, well within this
    ApplicationReport r = cluster.client().getApplicationReport(id);
    assertThat(r.getYarnApplicationState()).as(r.getDiagnostics()).isIn(ACCEPTED);
    assertThat(cluster.aryl().status().application(id.toString())).isNull();
    cluster.client().killApplication(id);
  }
}
