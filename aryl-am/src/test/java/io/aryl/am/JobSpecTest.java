package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.core.job.JobShape;
import io.aryl.yarnapp.StagedFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class JobSpecTest {
  static JobSpec spec(
      String name,
      String queue,
      int min,
      int max,
      int gpus,
      int restarts,
      String command,
      Map<String, String> env) {
    return new JobSpec(
        name, queue, min, max, gpus, 1024, 1, 60, "", "/ckpt", restarts, 1000, 512, 2, env, command,
        List.of(), "");
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of(
            spec("j", "training", 0, 1, 1, 0, "x", Map.of()), "--min-workers must be >= 1, was 0"),
        Arguments.of(
            spec("j", "training", 3, 2, 1, 0, "x", Map.of()),
            "--max-workers must be >= --min-workers (3), was 2"),
        Arguments.of(
            spec("j", "training", 1, 1, 0, 0, "x", Map.of()), "--gpus must be >= 1, was 0"),
        Arguments.of(
            spec("j", "training", 1, 1, 1, -1, "x", Map.of()),
            "--max-restarts must be >= 0, was -1"),
        Arguments.of(
            spec("j", "training", 1, 1, 1, 0, " ", Map.of()),
            "the worker command (after --) is missing"),
        Arguments.of(
            spec("", "training", 1, 1, 1, 0, "x", Map.of()), "--name must not be empty, was ''"),
        Arguments.of(spec("j", "", 1, 1, 1, 0, "x", Map.of()), "--queue must not be empty, was ''"),
        Arguments.of(
            spec("j", "training", 1, 1, 1, 0, "x", Map.of("1X", "v")),
            "--env name must be a shell variable name, was '1X'"));
  }

  @ParameterizedTest
  @MethodSource("refused")
  void badSpecsAreRefusedNamingFieldAndValue(JobSpec spec, String message) {
    assertThatThrownBy(spec::validate)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void roundTripsThroughJson() throws Exception {
    JobSpec s =
        spec("j", "training", 1, 4, 2, 3, "python train.py", Map.of("A", "b"))
            .withStaging(List.of(new StagedFile("f", "file:/x/f", 3, 4)), "file:/x");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.write(out);
    assertThat(JobSpec.read(new ByteArrayInputStream(out.toByteArray()))).isEqualTo(s);
  }

  @Test
  @DisplayName("the tags the client sets carry exactly the shape the scheduler reads from them")
  void tagsCarryTheShape() {
    JobSpec s =
        new JobSpec(
            "j",
            "training",
            2,
            8,
            4,
            1024,
            1,
            3600,
            "bert",
            "",
            3,
            1000,
            512,
            2,
            Map.of(),
            "x",
            List.of(),
            "");
    assertThat(s.shape()).isEqualTo(new JobShape(2, 8, 4, 3600, "bert"));
    assertThat(s.shape().toTags())
        .containsExactly(
            "aryl.gpus-per-worker=4",
            "aryl.kind=bert",
            "aryl.max-workers=8",
            "aryl.min-workers=2",
            "aryl.predicted-runtime-s=3600");
    assertThat(JobShape.fromTags(s.shape().toTags())).contains(s.shape());
  }

  @Test
  void shellCommandQuotesSeveralArguments() {
    assertThat(SubmitCommand.shellCommand(List.of("echo $X; sleep 1")))
        .isEqualTo("echo $X; sleep 1");
    assertThat(SubmitCommand.shellCommand(List.of("python", "train.py", "--msg", "it's $HOME")))
        .isEqualTo("python train.py --msg 'it'\\''s $HOME'");
  }
}
