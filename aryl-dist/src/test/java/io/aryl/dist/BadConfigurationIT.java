package io.aryl.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.dist.Daemons.Daemon;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A wrong Aryl set-up on the ResourceManager daemon from the unpacked distribution: the process
 * ends with Hadoop's exit code for a bad configuration, and its log says what is wrong in one line,
 * naming the key and the value, with no stack trace around it. Each start is a JVM of its own on
 * the {@link DaemonCluster}'s configuration plus the wrong keys, with no ZooKeeper or NodeManager
 * (the refusal comes before the ResourceManager needs them).
 */
@Tag("daemons")
@DisplayName("A wrong Aryl set-up stops the ResourceManager daemon with one line")
class BadConfigurationIT {

  /** Hadoop's LauncherExitCodes.EXIT_BAD_CONFIGURATION. */
  private static final int EXIT_BAD_CONFIGURATION = 49;

  private static DaemonCluster cluster;

  @BeforeAll
  static void unpack() throws Exception {
    Path work = Path.of(Distribution.property("aryl.dist.work"));
    Path run = work.resolve("bad-configuration");
    deleteTree(run);
    Files.createDirectories(run);
    Path aryl = Distribution.unpack(run);
    HadoopHome hadoop =
        HadoopHome.layOut(work.resolve("hadoop-home"), Distribution.hadoopHomeJars());
    cluster =
        new DaemonCluster(aryl, hadoop, run.resolve("cluster"), new Daemons(run.resolve("logs")));
  }

  @AfterAll
  static void killEverything() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** The keys set, and the one line the log must hold. */
  private record Wrong(String name, Map<String, String> keys, String line) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Map<String, String> keys(String... keysAndValues) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  static List<Wrong> wrongSetUps() {
    return List.of(
        new Wrong(
            "a bad value: aryl.scheduler.round-interval-ms=abc",
            keys("aryl.scheduler.round-interval-ms", "abc"),
            "aryl.scheduler.round-interval-ms must be an integer, was 'abc'"),
        new Wrong(
            "an unknown key: aryl.scheduler.round-intervall-ms=500",
            keys("aryl.scheduler.round-intervall-ms", "500"),
            "unknown configuration key aryl.scheduler.round-intervall-ms=500"),
        new Wrong(
            "a renamed key: aryl.scheduler.training.label=gpu",
            keys("aryl.scheduler.training.label", "gpu"),
            "configuration key aryl.scheduler.training.label=gpu was renamed to"
                + " aryl.pools.training.label"),
        new Wrong(
            "a queue that does not exist (refused after the Capacity Scheduler read its queues)",
            keys("aryl.scheduler.training.queue", "root.nosuch"),
            "aryl.scheduler.training.queue=root.nosuch names no queue"),
        new Wrong(
            "state in /tmp by default: no state directory, no ResourceManager store to follow",
            keys(
                "aryl.scheduler.state-store.dir", "",
                "yarn.resourcemanager.recovery.enabled", "false",
                "hadoop.tmp.dir", "/tmp/hadoop-aryl-it"),
            "Aryl would keep its state in /tmp/hadoop-aryl-it/yarn/system/aryl"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("wrongSetUps")
  @DisplayName("exit code, the key and value in one line, no stack trace")
  void refusedInOneLine(Wrong wrong) throws Exception {
    long t0 = System.nanoTime();
    Daemon rm =
        cluster.launchResourceManager("rm-wrong-" + wrongSetUps().indexOf(wrong), wrong.keys());
    int exit = Daemons.awaitExit(rm, Duration.ofSeconds(60));
    List<String> log = Files.readAllLines(rm.log(), StandardCharsets.UTF_8);
    String all = String.join("\n", log);
    System.out.printf(
        "[bad configuration] %s: exit %d in %.1f s, %d log lines%n",
        wrong.name(), exit, (System.nanoTime() - t0) / 1e9, log.size());

    assertThat(exit).as("exit code of %s; its log:\n%s", rm, all).isEqualTo(EXIT_BAD_CONFIGURATION);
    assertThat(log.stream().filter(l -> l.contains(wrong.line())))
        .as("lines naming the key and the value, in:\n%s", all)
        .singleElement()
        .asString()
        .contains(" ERROR yarn.ArylScheduler: Aryl", "(the ResourceManager stops, exit status 49)");
    assertThat(log.stream().filter(l -> l.startsWith("\tat ") || l.startsWith("Caused by")))
        .as("stack trace lines, in:\n%s", all)
        .isEmpty();
    assertThat(log.stream().filter(l -> l.contains("Exception")))
        .as("lines naming an exception, in:\n%s", all)
        .isEmpty();
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
