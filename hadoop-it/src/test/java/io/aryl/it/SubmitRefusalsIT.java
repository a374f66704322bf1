package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
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
 * `yarn jar aryl-am.jar` refuses what the cluster cannot run before anything reaches the
 * ResourceManager: exit 2, a message naming the option and the value, no stack trace, no
 * application. One cluster: 2 training nodes and 1 inference node of 8 GPUs, containers of up to 8
 * GPUs, queues root.inference and root.training.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName(
    "Submit refusals: the client refuses a job the cluster cannot run, and submits nothing")
class SubmitRefusalsIT {
  @TempDir static Path dir;

  private ArylMiniCluster cluster;
  private YarnConfiguration conf;
  private Path aFile;

  @BeforeAll
  void start() throws Exception {
    cluster = ArylMiniCluster.start("refusals", AmJobs.conf(dir.toFile()), 1, 2);
    conf = new YarnConfiguration(cluster.conf());
    aFile = Files.writeString(dir.resolve("a-file"), "not a directory");
  }

  @AfterAll
  void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * A valid submission of one 1-GPU worker, with these options (name, value, ...) instead of its
   * own.
   */
  private static String[] submit(String... options) {
    Map<String, String> values =
        new LinkedHashMap<>(
            Map.of(
                "--name",
                "refused",
                "--min-workers",
                "1",
                "--gpus",
                "1",
                "--memory-mb",
                "256",
                "--am-memory-mb",
                "256",
                "--predicted-runtime-s",
                "60"));
    for (int i = 0; i < options.length; i += 2) {
      values.put(options[i], options[i + 1]);
    }
    List<String> args = new ArrayList<>(List.of("submit"));
    values.forEach((option, value) -> args.addAll(List.of(option, value)));
    args.addAll(List.of("--", "exec sleep 600"));
    return args.toArray(String[]::new);
  }

  Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of(
            "the root queue", submit("--queue", "root"), "--queue: 'root' is a parent queue (of "),
        Arguments.of(
            "an unknown queue",
            submit("--queue", "nosuchqueue"),
            "--queue: unknown queue 'nosuchqueue'"),
        Arguments.of(
            "a worker larger than the largest container",
            submit("--gpus", "9"),
            "--gpus 9 is more than the largest container holds (8 GPUs"),
        Arguments.of(
            "a gang not even every inference node lent would hold",
            submit("--min-workers", "4", "--gpus", "8"),
            "--min-workers 4 needs 4 workers of 8 GPUs at once; the training pool holds at most 2 (2 nodes now),"
                + " 3 with every inference node lent (1 node now)"),
        Arguments.of(
            "a checkpoint directory under a regular file",
            submit("--checkpoint-dir", aFile + "/ckpt"),
            "--checkpoint-dir '"
                + aFile
                + "/ckpt' is not writable: Parent path is not a directory: "
                + aFile),
        Arguments.of(
            "a checkpoint directory on a file system no one provides",
            submit("--checkpoint-dir", "nosuchfs://store/ckpt"),
            "--checkpoint-dir 'nosuchfs://store/ckpt' is not writable: No FileSystem for scheme \"nosuchfs\""),
        Arguments.of(
            "status of something that is not an application id",
            new String[] {"status", "application_x"},
            "status: 'application_x' is not an application id (application_<cluster timestamp>_<number>)"),
        Arguments.of(
            "status of an application the ResourceManager never had",
            new String[] {"status", "application_123_0001"},
            "status: no application application_123_0001 in the ResourceManager"),
        Arguments.of(
            "kill of something that is not an application id",
            new String[] {"kill", "app-42"},
            "kill: 'app-42' is not an application id (application_<cluster timestamp>_<number>)"),
        Arguments.of(
            "kill of an application the ResourceManager never had",
            new String[] {"kill", "application_123_0001"},
            "kill: no application application_123_0001 in the ResourceManager"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  @DisplayName(
      "exit 2, the option and the value named, no stack trace, no application in the ResourceManager")
  void refused(String description, String[] args, String message) throws Exception {
    int before = cluster.client().getApplications().size();
    AmJobs.Result r = AmJobs.runJar(conf, dir.toFile(), args);
    assertThat(r.exit())
        .as("exit of %s; output:%n%s", String.join(" ", args), r.out())
        .isEqualTo(2);
    assertThat(r.out()).contains(message);
    assertThat(r.out()).as("no stack trace").doesNotContain("\tat ").doesNotContain("Exception");
    assertThat(cluster.client().getApplications()).as("applications in the RM").hasSize(before);
  }

  @Test
  @DisplayName("a queue named by its full path is accepted, as YARN accepts it")
  void fullQueuePath() throws Exception {
    AmJobs.Result r =
        AmJobs.runJar(
            conf, dir.toFile(), submit("--name", "full-path", "--queue", "root.training"));
    assertThat(r.exit()).as("output:%n%s", r.out()).isZero();
    ApplicationId id = r.applicationId();
    try {
      assertThat(cluster.client().getApplicationReport(id).getQueue()).endsWith("training");
    } finally {
      cluster.client().killApplication(id);
    }
  }

  @Test
  @DisplayName(
      "a gang only lent nodes would hold is submitted with a warning, and waits saying why")
  void onlyLentNodesWouldHoldIt() throws Exception {
    AmJobs.Result r =
        AmJobs.runJar(
            conf,
            dir.toFile(),
            submit("--name", "three-nodes", "--min-workers", "3", "--gpus", "8"));
    assertThat(r.exit()).as("output:%n%s", r.out()).isZero();
    assertThat(r.out())
        .contains(
            "warning: --min-workers 3 needs 3 workers of 8 GPUs at once; the training pool"
                + " holds at most 2 (2 nodes now), 3 with every inference node lent (1 node now): the job waits until"
                + " inference lends nodes");
    ApplicationId id = r.applicationId();
    try {
      String waiting =
          "Aryl: waiting for 3 workers x 8 GPUs (24 GPUs) on training; 16 GPUs free now, largest node"
              + " 8 free; the training pool holds at most 2 workers of 8 GPUs now";
      cluster.awaitShowingStatus(
          "the job says why it waits",
          Duration.ofSeconds(60),
          () -> diagnostics(id).contains(waiting));
      assertThat(cluster.client().getApplicationReport(id).getYarnApplicationState())
          .isEqualTo(YarnApplicationState.RUNNING);
    } finally {
      cluster.client().killApplication(id);
    }
  }

  private String diagnostics(ApplicationId id) {
    try {
      ApplicationReport report = cluster.client().getApplicationReport(id);
      return String.valueOf(report.getDiagnostics());
    } catch (Exception e) {
      return e.toString();
    }
  }
}
