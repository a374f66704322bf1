package io.aryl.yarnapp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@DisplayName("ClientCommandLine: generic options, and the exit statuses of a yarn jar client")
class ClientCommandLineTest {
  /** A client whose one sub-command throws what --fail names. */
  @Command(name = "client", subcommands = ClientCommandLineTest.Run.class)
  static final class Client implements Callable<Integer> {
    @Override
    public Integer call() {
      return ClientCommandLine.USAGE;
    }
  }

  @Command(name = "run")
  static final class Run implements Callable<Integer> {
    @Option(names = "--fail")
    String fail = "";

    @Option(names = "--count")
    int count;

    @Parameters(arity = "0..*")
    java.util.List<String> command = new java.util.ArrayList<>();

    @Override
    public Integer call() throws Exception {
      switch (fail) {
        case "refused" ->
            throw new RefusedSubmission("the ResourceManager refused app_1: queue full", null);
        case "yarn" -> throw new YarnException("RM down\n\tat somewhere");
        case "io" -> throw new IOException("Permission denied");
        case "state" -> throw new IllegalStateException("not running");
        case "defect" -> throw new NullPointerException("a defect");
        default -> {
          return ClientCommandLine.OK;
        }
      }
    }
  }

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(boolean statesTold, String... args) {
    return ClientCommandLine.execute(
        new Client(),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        e -> statesTold && e instanceof IllegalStateException,
        args);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  @DisplayName("a refused submission: 2, one line in the RM's words, no usage")
  void refused() {
    assertThat(run(false, "run", "--fail", "refused")).isEqualTo(2);
    assertThat(err()).isEqualTo("run: the ResourceManager refused app_1: queue full\n");
  }

  @Test
  @DisplayName("what YARN or a file system refused: 1, its first line only")
  void yarnAndIo() {
    assertThat(run(false, "run", "--fail", "yarn")).isEqualTo(1);
    assertThat(run(false, "run", "--fail", "io")).isEqualTo(1);
    assertThat(err()).isEqualTo("run: RM down\nrun: Permission denied\n");
  }

  @Test
  @DisplayName("a client's own told exceptions: 1 in one line; another client's are defects")
  void alsoTold() {
    assertThat(run(true, "run", "--fail", "state")).isEqualTo(1);
    assertThat(err()).isEqualTo("run: not running\n");
    err.reset();
    assertThat(run(false, "run", "--fail", "state")).isEqualTo(1);
    assertThat(err())
        .startsWith("java.lang.IllegalStateException: not running")
        .contains("\tat io.aryl.yarnapp.ClientCommandLineTest$Run.call");
  }

  @Test
  @DisplayName("a defect keeps its stack trace (picocli prints it, status 1)")
  void defect() {
    assertThat(run(true, "run", "--fail", "defect")).isEqualTo(1);
    assertThat(err())
        .startsWith("java.lang.NullPointerException: a defect")
        .contains("\tat io.aryl.yarnapp.ClientCommandLineTest$Run.call");
  }

  @Test
  @DisplayName("a bad option: 2, the message names the option and the value, with usage")
  void badOption() {
    assertThat(run(false, "run", "--count", "x")).isEqualTo(2);
    assertThat(err()).contains("--count").contains("'x'").contains("Usage:");
  }

  @Test
  @DisplayName("generic options are read before --, never after it; -- and what follows are kept")
  void genericOptions() throws Exception {
    Configuration conf = new Configuration(false);
    String[] rest =
        ClientCommandLine.withoutGenericOptions(
            conf, "-D", "a.b=1", "run", "--", "python", "-D", "c.d=2", "--x");
    assertThat(conf.get("a.b")).isEqualTo("1");
    assertThat(conf.get("c.d")).isNull();
    assertThat(rest).containsExactly("run", "--", "python", "-D", "c.d=2", "--x");
    assertThat(run(false, rest)).isZero();
  }
}
