package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarnapp.StagedFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * {@code submit --launcher env|torchrun [--nproc-per-node K] [--python PYTHON]}: defaults,
 * refusals, the job file.
 */
@DisplayName("submit's launcher options")
class LauncherOptionsTest {
  private static final List<String> BASE =
      List.of(
          "submit",
          "--min-workers",
          "2",
          "--max-workers",
          "4",
          "--gpus",
          "4",
          "--predicted-runtime-s",
          "60");

  private static SubmitCommand parsed(String... options) {
    List<String> args = new ArrayList<>(BASE);
    args.addAll(List.of(options));
    args.addAll(List.of("--", "train.py", "--steps", "10"));
    CommandLine cli = new CommandLine(new Main(new YarnConfiguration(), System.out));
    CommandLine.ParseResult r = cli.parseArgs(args.toArray(String[]::new));
    return (SubmitCommand) r.subcommand().commandSpec().userObject();
  }

  static Stream<Arguments> accepted() {
    return Stream.of(
        Arguments.of(new String[0], "env", 1, "python3"),
        Arguments.of(new String[] {"--launcher", "torchrun"}, "torchrun", 4, "python3"),
        Arguments.of(
            new String[] {
              "--launcher", "torchrun", "--nproc-per-node", "2", "--python", "/usr/bin/python3"
            },
            "torchrun",
            2,
            "/usr/bin/python3"),
        Arguments.of(new String[] {"--nproc-per-node", "1"}, "env", 1, "python3"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("accepted")
  @DisplayName(
      "env is the default launcher; torchrun runs one worker process per GPU unless told otherwise")
  void defaults(String[] options, String launcher, int nproc, String python) {
    JobSpec spec = parsed(options).spec().validate();
    assertThat(spec.launcher()).isEqualTo(launcher);
    assertThat(spec.nprocPerNode()).isEqualTo(nproc);
    assertThat(spec.python()).isEqualTo(python);
    assertThat(spec.command()).isEqualTo("train.py --steps 10");
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of(
            new String[] {"--launcher", "mpirun"},
            "--launcher must be env or torchrun, was 'mpirun'"),
        Arguments.of(
            new String[] {"--launcher", "torchrun", "--nproc-per-node", "0"},
            "--nproc-per-node must be >= 1, was 0"),
        Arguments.of(
            new String[] {"--launcher", "torchrun", "--nproc-per-node", "8"},
            "--nproc-per-node 8 is more than --gpus 4: each worker process takes at least one of its container's"
                + " GPUs"),
        Arguments.of(
            new String[] {"--nproc-per-node", "2"},
            "--nproc-per-node 2 needs --launcher torchrun (the env launcher runs one worker process per container)"),
        Arguments.of(
            new String[] {"--launcher", "torchrun", "--python", "python3 -u"},
            "--python must be a program name or path (letters, digits, '.', '_', '/', '+', '-'), was 'python3 -u'"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("refused")
  @DisplayName(
      "bad values exit 2, naming the option and the value, before anything reaches the cluster")
  void badValuesExit2(String[] options, String message) throws Exception {
    List<String> args = new ArrayList<>(BASE);
    args.addAll(List.of(options));
    args.addAll(List.of("--", "train.py"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        Main.run(
            new YarnConfiguration(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            args.toArray(String[]::new));
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith(message + System.lineSeparator());
    assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("submitted");
  }

  @Test
  @DisplayName(
      "after --, options are the training script's, not submit's nor Hadoop's generic options")
  void theCommandKeepsItsOptions() throws Exception {
    List<String> args = new ArrayList<>(List.of("-D", "x.y=z"));
    args.addAll(BASE);
    args.addAll(List.of("--launcher", "mpirun", "--", "train.py", "--steps", "10", "-D", "a=b"));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        Main.run(
            new YarnConfiguration(),
            new PrintStream(new ByteArrayOutputStream(), true),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            args.toArray(String[]::new));
    assertThat(exit).isEqualTo(2);
    // Refused for its launcher, not for options after "--": the command reached submit whole.
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("--launcher must be env or torchrun, was 'mpirun'" + System.lineSeparator());
    assertThat(parsed("--launcher", "torchrun").command)
        .containsExactly("train.py", "--steps", "10");
  }

  @Test
  @DisplayName("the job file carries the launcher options to the AM")
  void roundTripsThroughJson() throws Exception {
    JobSpec s =
        parsed("--launcher", "torchrun", "--nproc-per-node", "2", "--python", "/usr/bin/python3")
            .spec()
            .withStaging(List.of(new StagedFile("train.py", "file:/s/train.py", 3, 4)), "file:/s");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.write(out);
    JobSpec read = JobSpec.read(new ByteArrayInputStream(out.toByteArray()));
    assertThat(read).isEqualTo(s);
    assertThat(read.torchrun()).isTrue();
  }

  @Test
  @DisplayName("a job file without the launcher options is an env launcher job")
  void anOlderJobFileIsAnEnvJob() throws Exception {
    JobSpec old =
        new JobSpec(
            "j",
            "training",
            1,
            2,
            1,
            1024,
            1,
            60,
            "",
            "",
            3,
            1000,
            512,
            2,
            Map.of(),
            "x",
            List.of(),
            "");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    old.write(out);
    String json =
        out.toString(StandardCharsets.UTF_8)
            .replaceAll(",\\s*\"launcher\" : \"env\"", "")
            .replaceAll(",\\s*\"nprocPerNode\" : 1", "")
            .replaceAll(",\\s*\"python\" : \"python3\"", "");
    assertThat(json).doesNotContain("launcher", "nprocPerNode", "python");
    JobSpec read = JobSpec.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
    assertThat(read).isEqualTo(old);
    assertThat(read.validate().torchrun()).isFalse();
  }
}
