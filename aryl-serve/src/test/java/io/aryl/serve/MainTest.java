package io.aryl.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "aryl-serve's client: bad options exit 2 naming option and value, errors exit 1 naming what failed")
class MainTest {
  @TempDir static Path dir;
  private static Path trace;

  @BeforeAll
  static void trace() throws Exception {
    trace = dir.resolve("t.csv");
    Files.writeString(
        trace, "model,window_start_s,total_rate_rps,active_clients\nm,0,1,1\nm,600,2,1\n");
  }

  private record Run(int exit, String err) {}

  /** The client against a ResourceManager that is not there: nothing may reach it. */
  private static Run run(String... args) throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RM_ADDRESS, "localhost:1");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        Main.run(
            conf,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            args);
    return new Run(exit, err.toString(StandardCharsets.UTF_8));
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of(
            List.of("serve", "--target-rps-per-replica", "5", "--replicas-min", "0"),
            "--replicas-min must be >= 1, was 0"),
        Arguments.of(
            List.of(
                "serve",
                "--target-rps-per-replica",
                "5",
                "--replicas-min",
                "3",
                "--replicas-max",
                "2"),
            "--replicas-max must be >= --replicas-min (3), was 2"),
        Arguments.of(
            List.of("serve", "--target-rps-per-replica", "-1"),
            "--target-rps-per-replica must be a number > 0, was -1.0"),
        Arguments.of(
            List.of("serve", "--target-rps-per-replica", "5", "--port-range", "20000"),
            "--port-range must be FROM-TO, was '20000'"),
        Arguments.of(
            List.of("serve", "--target-rps-per-replica", "5", "--port-range", "80-90"),
            "--port-range must lie within 1024-65535"),
        Arguments.of(
            List.of("serve", "--target-rps-per-replica", "5", "--memory-mb", "0"),
            "--memory-mb must be >= 1, was 0"),
        Arguments.of(
            List.of("serve", "--target-rps-per-replica", "5", "--health-path", "health"),
            "--health-path must start with '/', was 'health'"),
        Arguments.of(
            List.of("serve", "--target-rps-per-replica", "5", "--requests-metric", "a b"),
            "--requests-metric must be a Prometheus metric name, was 'a b'"),
        Arguments.of(List.of("serve"), "Missing required option: '--target-rps-per-replica"),
        Arguments.of(List.of("status", "app_1"), "'app_1' is not an application id"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("refusals")
  @DisplayName("serve and status")
  void serveRefusals(List<String> args, String message) throws Exception {
    Run r = run(args.toArray(String[]::new));
    assertThat(r.exit()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains(message);
  }

  @Test
  @DisplayName("loadgen: the curve's options, and one of --app or --status-url")
  void loadgenRefusals() throws Exception {
    String t = trace.toString();
    Run r =
        run(
            "loadgen",
            "--trace",
            t,
            "--status-url",
            "http://localhost:1/",
            "--model",
            "m",
            "--compress",
            "0");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--compress must be a number > 0, was 0.0");
    r = run("loadgen", "--trace", t);
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("give one of --app or --status-url");
    r = run("loadgen", "--trace", t, "--status-url", "http://x/", "--model", "nope");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("no line for model 'nope'; models present: m");
  }

  @Test
  @DisplayName("loadgen against a status URL that nobody answers: exit 1, naming the URL")
  void loadgenWithoutService() throws Exception {
    Run r =
        run(
            "loadgen",
            "--trace",
            trace.toString(),
            "--model",
            "m",
            "--status-url",
            "http://localhost:1/status.json",
            "--out",
            dir.resolve("requests.jsonl").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err())
        .startsWith(
            "loadgen: cannot read the service's status at http://localhost:1/status.json:"
                + " java.net.ConnectException");
  }
}
