package io.aryl.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Options refused before any ResourceManager is asked: exit 2, one message naming the option and
 * the value.
 */
class OptionsTest {
  static Stream<Arguments> badUsage() {
    return Stream.of(
        Arguments.of(
            "no command prints the usage",
            new String[] {},
            "name a command: status, nodes or reclaim"),
        Arguments.of("an unknown command is named", new String[] {"frobnicate"}, "'frobnicate'"),
        Arguments.of(
            "an unknown option is named",
            new String[] {"status", "--verbose"},
            "Unknown option: '--verbose'"),
        Arguments.of(
            "reclaim needs --nodes",
            new String[] {"reclaim"},
            "Missing required option: '--nodes=N'"),
        Arguments.of(
            "--nodes 0 is refused",
            new String[] {"reclaim", "--nodes", "0"},
            "option '--nodes': must be an integer >= 1, was '0'"),
        Arguments.of(
            "--nodes -3 is refused",
            new String[] {"reclaim", "--nodes=-3"},
            "option '--nodes': must be an integer >= 1, was '-3'"),
        Arguments.of(
            "--nodes two is refused",
            new String[] {"reclaim", "--nodes", "two"},
            "option '--nodes': must be an integer >= 1, was 'two'"),
        Arguments.of(
            "--deadline without a unit is refused",
            new String[] {"reclaim", "--nodes", "1", "--deadline", "300"},
            "option '--deadline': must be a duration such as 90s, 5m or 1h (units ms, s, m, h, d), was '300'"),
        Arguments.of(
            "--deadline 0s is refused",
            new String[] {"reclaim", "--nodes", "1", "--deadline", "0s"},
            "option '--deadline': must be more than 0, was '0s'"),
        Arguments.of(
            "--deadline beyond 7 days is refused",
            new String[] {"reclaim", "--nodes", "1", "--deadline", "8d"},
            "option '--deadline': must be at most 7d (the scheduler's limit), was '8d'"),
        Arguments.of(
            "--rm must be http(s) URLs",
            new String[] {"status", "--rm", "rm1:8088"},
            "--rm must list http(s)://host:port URLs separated by commas, was 'rm1:8088'"),
        Arguments.of(
            "a missing --conf file is named",
            new String[] {"nodes", "--conf", "/no/such/yarn-site.xml"},
            "--conf: no such readable file: /no/such/yarn-site.xml"),
        Arguments.of(
            "HA without web addresses says what to set",
            new String[] {
              "status",
              "-D",
              "yarn.resourcemanager.ha.enabled=true",
              "-D",
              "yarn.resourcemanager.ha.rm-ids=rm1,rm2"
            },
            "yarn.resourcemanager.ha.enabled is true but no web app address is set"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badUsage")
  void badUsageExitsTwoNamingTheOptionAndValue(String spec, String[] args, String message) {
    Cli r = Cli.run(args);
    assertThat(r.exit()).as(r.err()).isEqualTo(ArylAdmin.USAGE);
    assertThat(r.err()).contains(message).doesNotContain("\tat ").doesNotContain("Exception:");
    assertThat(r.out()).isEmpty();
  }

  @ParameterizedTest(name = "--deadline {0} is {1} ms")
  @CsvSource({
    "500ms, 500",
    "90s, 90000",
    "5m, 300000",
    "1h, 3600000",
    "2d, 172800000",
    " 5m , 300000"
  })
  void deadlinesAreAWholeNumberAndOneUnit(String value, long ms) {
    assertThat(Durations.parse(value)).isEqualTo(Duration.ofMillis(ms));
  }

  @ParameterizedTest(name = "--deadline ''{0}'' is refused")
  @CsvSource({"''", "5", "5x", "-5m", "1.5h", "5 m", "m", "5mm", "1000000000s"})
  void otherDeadlinesAreRefusedNamingTheValue(String value) {
    assertThatThrownBy(() -> Durations.parse(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + value + "'");
  }

  @Test
  @DisplayName("--help lists the commands and documents every exit code, with exit 0")
  void helpDocumentsExitCodes() {
    Cli r = Cli.run("--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out())
        .contains(
            "status",
            "nodes",
            "reclaim",
            "Exit codes:",
            "0   done",
            "1   the ResourceManager refused",
            "2   bad usage",
            "3   no ResourceManager answered");
  }

  @Test
  @DisplayName("each command's --help names its options and the exit codes")
  void commandHelp() {
    Cli r = Cli.run("reclaim", "--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out())
        .contains(
            "--nodes=N",
            "--deadline=DURATION",
            "--gpu-type=TYPE",
            "--json",
            "--conf=FILE",
            "--rm=URL",
            "Exit codes: 0 done");
  }
}
