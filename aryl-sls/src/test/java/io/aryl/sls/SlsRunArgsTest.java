package io.aryl.sls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName(
    "SlsRun.parse: --scheduler aryl|capacity --jobs F --nodes F --out DIR [--timeout-s N] [--queue Q]"
        + " [--node-label L]")
class SlsRunArgsTest {
  private static final String USAGE =
      "usage: --scheduler aryl|capacity --jobs FILE --nodes FILE --out DIR";

  @TempDir Path dir;
  private Path jobs;
  private Path nodes;

  @BeforeEach
  void traces() throws IOException {
    jobs = Files.writeString(dir.resolve("jobs.json"), "{}");
    nodes = Files.writeString(dir.resolve("nodes.json"), "{}");
  }

  /** A full, valid command line with {@code extra} after it. */
  private String[] args(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--scheduler",
                "aryl",
                "--jobs",
                jobs.toString(),
                "--nodes",
                nodes.toString(),
                "--out",
                dir.resolve("out").toString()));
    args.addAll(Arrays.asList(extra));
    return args.toArray(String[]::new);
  }

  /** The full command line without {@code flag} and its value. */
  private String[] without(String flag) {
    List<String> args = new ArrayList<>(Arrays.asList(args()));
    int i = args.indexOf(flag);
    args.remove(i + 1);
    args.remove(i);
    return args.toArray(String[]::new);
  }

  @Test
  @DisplayName(
      "a full command line parses, with and without the optional options, whatever the scheduler's case")
  void valid() {
    assertThat(SlsRun.parse(args())).isNotNull();
    assertThat(
            SlsRun.parse(args("--timeout-s", "60", "--queue", "training", "--node-label", "gpu")))
        .isNotNull();
    assertThat(SlsRun.parse(args("--scheduler", "CAPACITY"))).isNotNull();
  }

  @ParameterizedTest(name = "without {0}")
  @ValueSource(strings = {"--scheduler", "--jobs", "--nodes", "--out"})
  @DisplayName("a missing required option prints the usage")
  void missingRequired(String flag) {
    assertThatThrownBy(() -> SlsRun.parse(without(flag)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(USAGE);
  }

  @Test
  @DisplayName("no arguments at all print the usage")
  void noArguments() {
    assertThatThrownBy(() -> SlsRun.parse(new String[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(USAGE);
  }

  @Test
  @DisplayName("an unknown option is named")
  void unknownOption() {
    assertThatThrownBy(() -> SlsRun.parse(args("--nodez", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown option '--nodez'");
  }

  @Test
  @DisplayName(
      "an unknown option in last place, with no value after it, is named too, with the usage")
  void unknownLastOption() {
    assertThatThrownBy(() -> SlsRun.parse(new String[] {"--help"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown option '--help'")
        .hasMessageContaining("usage: --scheduler aryl|capacity");
  }

  @Test
  @DisplayName("an option without its value is named")
  void missingValue() {
    assertThatThrownBy(() -> SlsRun.parse(args("--timeout-s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--timeout-s needs a value");
  }

  @ParameterizedTest(name = "--scheduler {0}")
  @ValueSource(strings = {"yarn", "fair", ""})
  @DisplayName("a scheduler other than aryl or capacity is named")
  void badScheduler(String scheduler) {
    assertThatThrownBy(() -> SlsRun.parse(args("--scheduler", scheduler)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--scheduler must be aryl or capacity, was '" + scheduler + "'");
  }

  @ParameterizedTest(name = "--timeout-s {0}")
  @ValueSource(strings = {"0", "-5", "x", "1.5", "10s", "", "9300000000000000"})
  @DisplayName("a timeout that is not a positive whole number names the option and the value")
  void badTimeout(String timeout) {
    assertThatThrownBy(() -> SlsRun.parse(args("--timeout-s", timeout)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--timeout-s must be a whole number of seconds from 1 to 31536000, was '"
                + timeout
                + "'");
  }

  @ParameterizedTest(name = "{0} of a file that does not exist")
  @CsvSource({"--jobs", "--nodes"})
  @DisplayName("a trace file that does not exist is named, with its option")
  void missingFile(String flag) {
    String missing = dir.resolve("no-such-trace.json").toString();

    assertThatThrownBy(() -> SlsRun.parse(args(flag, missing)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(flag + ": no such file '" + missing + "'");
  }

  @Test
  @DisplayName("a directory is not a trace file")
  void directoryIsNotAFile() {
    assertThatThrownBy(() -> SlsRun.parse(args("--jobs", dir.toString())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--jobs: no such file '" + dir + "'");
  }
}
