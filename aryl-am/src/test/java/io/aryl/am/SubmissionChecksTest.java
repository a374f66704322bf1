package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.am.GangFitCheck.Node;
import io.aryl.am.QueueCheck.Queue;
import io.aryl.am.SubmissionChecks.ClusterFacts;
import io.aryl.api.conf.PoolConf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("SubmissionChecks: a job the cluster cannot run is refused before it is submitted")
class SubmissionChecksTest {
  @TempDir static Path tmp;

  /**
   * root -> inference, training; 2 training nodes and 1 inference node of 8 GPUs; containers of up
   * to 8 GPUs.
   */
  static final ClusterFacts FACTS =
      new ClusterFacts(
          List.of(
              new Queue("root", List.of("root.inference", "root.training"), ""),
              new Queue("root.inference", List.of(), "inference"),
              new Queue("root.training", List.of(), "training")),
          8,
          List.of(
              new Node("training", 8),
              new Node("training", 8),
              new Node("inference", 8),
              new Node("", 8)));

  static JobSpec spec(String queue, int min, int gpus, String checkpointDir) {
    return new JobSpec(
        "j",
        queue,
        min,
        min,
        gpus,
        1024,
        1,
        60,
        "",
        checkpointDir,
        3,
        1000,
        512,
        2,
        Map.of(),
        "true",
        List.of(),
        "");
  }

  static Stream<Arguments> refused() throws IOException {
    Path file = Files.writeString(tmp.resolve("a-file"), "not a directory");
    return Stream.of(
        Arguments.of("a parent queue", spec("root", 1, 1, ""), "--queue: 'root' is a parent queue"),
        Arguments.of(
            "the queue first: a parent queue and too many GPUs",
            spec("root", 1, 9, ""),
            "--queue: 'root' is a parent queue"),
        Arguments.of(
            "a worker larger than any container",
            spec("training", 1, 9, ""),
            "--gpus 9 is more than the largest container holds (8 GPUs"),
        Arguments.of(
            "the size before the gang: too many GPUs and too many workers",
            spec("training", 9, 9, ""),
            "--gpus 9 is more than the largest container holds"),
        Arguments.of(
            "a gang not even lent nodes would hold",
            spec("root.training", 4, 8, ""),
            "--min-workers 4 needs 4 workers of 8 GPUs at once; the training pool holds at most 2 (2 nodes now),"
                + " 3 with every inference node lent (1 node now)"),
        Arguments.of(
            "an unwritable checkpoint directory",
            spec("training", 1, 1, file + "/ckpt"),
            "--checkpoint-dir '" + file + "/ckpt' is not writable"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  @DisplayName("the first check that fails refuses the job, naming the option and the value")
  void refused(String description, JobSpec spec, String message) {
    assertThatThrownBy(() -> SubmissionChecks.check(spec, FACTS, new Configuration(false)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  @DisplayName("a job that fits passes without a warning, its checkpoint directory created")
  void fits() {
    Path ckpt = tmp.resolve("ckpt");
    assertThat(
            SubmissionChecks.check(
                spec("training", 2, 8, ckpt.toString()), FACTS, new Configuration(false)))
        .isEmpty();
    assertThat(ckpt).isEmptyDirectory();
  }

  @Test
  @DisplayName("a gang only lent nodes would hold is submitted with a warning")
  void warns() {
    assertThat(SubmissionChecks.check(spec("training", 3, 8, ""), FACTS, new Configuration(false)))
        .containsExactly(
            "--min-workers 3 needs 3 workers of 8 GPUs at once; the training pool holds at most 2"
                + " (2 nodes now), 3 with every inference node lent (1 node now): the job waits until inference lends"
                + " nodes");
  }

  @Test
  @DisplayName(
      "the lendable pool is the scheduler's inference label, read from the same configuration")
  void inferenceLabelFromTheSchedulersKey() {
    Configuration conf = new Configuration(false);
    conf.set(PoolConf.INFERENCE_LABEL.key(), "serving");
    assertThatThrownBy(() -> SubmissionChecks.check(spec("training", 3, 8, ""), FACTS, conf))
        .hasMessage(
            "--min-workers 3 needs 3 workers of 8 GPUs at once; the training pool holds at most 2"
                + " (2 nodes now)");
  }

  @Test
  @DisplayName(
      "the label under the scheduler's old key is refused, naming the key to set, not silently ignored")
  void oldInferenceLabelKeyRefused() {
    Configuration conf = new Configuration(false);
    conf.set("aryl.scheduler.inference.label", "serving");
    assertThatThrownBy(() -> SubmissionChecks.check(spec("training", 1, 1, ""), FACTS, conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "configuration key aryl.scheduler.inference.label=serving was renamed to"
                + " aryl.pools.inference.label: set aryl.pools.inference.label=serving instead (the scheduler, the loan"
                + " controller and aryl-am all read it)");
  }

  @Test
  @DisplayName(
      "--gpu-types naming a type the cluster does not declare is refused, naming the type and the cluster's")
  void unknownGpuType() {
    Configuration conf = new Configuration(false);
    conf.set(SubmissionChecks.GPU_TYPES, "a100,t4");
    JobSpec fast = spec("training", 1, 1, "").withGpuTypes(List.of("A100"));
    assertThat(SubmissionChecks.check(fast, FACTS, conf)).isEmpty();
    assertThatThrownBy(
            () ->
                SubmissionChecks.check(
                    spec("training", 1, 1, "").withGpuTypes(List.of("a100", "v100")), FACTS, conf))
        .hasMessage("--gpu-types: 'v100' is not a GPU type of this cluster (its types: a100, t4)");
  }

  @Test
  @DisplayName(
      "without the scheduler's declared types in this configuration, --gpu-types is the RM's to check")
  void gpuTypesUncheckedWithoutTheSchedulersKey() {
    assertThat(
            SubmissionChecks.check(
                spec("training", 1, 1, "").withGpuTypes(List.of("v100")),
                FACTS,
                new Configuration(false)))
        .isEmpty();
  }

  @Test
  @DisplayName("--gpu-types travels to the scheduler as the aryl.gpu-types tag")
  void gpuTypesBecomeTheTag() {
    assertThat(spec("training", 1, 1, "").withGpuTypes(List.of("h100", "a100")).shape().toTags())
        .contains("aryl.gpu-types=a100,h100");
  }
}
