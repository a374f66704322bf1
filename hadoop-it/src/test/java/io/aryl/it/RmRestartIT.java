package io.aryl.it;

import static io.aryl.it.ArylStatus.onLoan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link RmRecoveryScenarios} across a real ResourceManager restart: work-preserving recovery,
 * Aryl's state in the filesystem store; and what the start does with stored state it cannot read.
 */
@DisplayName("Across a ResourceManager restart")
class RmRestartIT extends RmRecoveryScenarios {
  /**
   * Aryl's filesystem store keeps JSON files in its directory; which ones is the store's business.
   */
  private static final PathMatcher STATE_FILES =
      FileSystems.getDefault().getPathMatcher("glob:*.json");

  @Override
  YarnConfiguration conf(File workDir) {
    return ArylMiniCluster.restartableConf(workDir);
  }

  @Override
  void restartOrFailOver(ArylMiniCluster cluster) throws Exception {
    cluster.restartRm();
  }

  @Override
  String event() {
    return "restart";
  }

  @Test
  @DisplayName(
      "stored state that cannot be read stops the start, with a message naming the file and how to reset it;"
          + " once reset, the ResourceManager starts")
  void unreadableStateStopsTheStart() throws Exception {
    File stateDir = ArylMiniCluster.arylStateDir(dir.toFile());
    try (ArylMiniCluster cluster =
        ArylMiniCluster.start("corrupt-state", conf(dir.toFile()), 1, 1)) {
      String loaned = cluster.nodeName(0);
      cluster.lend(0); // something to keep: a loan
      cluster.awaitShowingStatus(loaned + " on loan", () -> onLoan(cluster, loaned));
      cluster.awaitShowingStatus(
          "Aryl's state stored under " + stateDir,
          RECOVERED,
          () -> !stateFiles(stateDir).isEmpty());
      List<Path> files = stateFiles(stateDir);
      for (Path f : files) {
        Files.writeString(f, "{\"not\": Aryl's state", StandardCharsets.UTF_8);
      }

      Throwable refused = catchThrowable(cluster::restartRm);

      assertThat(refused).as("the restart on unreadable state").isNotNull();
      String messages = messages(refused);
      assertThat(files)
          .as("files named in: %s", messages)
          .anySatisfy(f -> assertThat(messages).contains(f.getFileName().toString()));
      assertThat(messages).as("how to reset it").containsPattern("(?i)reset|remove|delete");

      for (Path f : files) {
        Files.delete(f); // the reset
      }
      cluster.restartRm();
      assertThat(cluster.aryl().running()).as("Aryl runs after the reset").isTrue();
    }
  }

  private static List<Path> stateFiles(File dir) {
    if (!dir.isDirectory()) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir.toPath())) {
      return s.filter(p -> STATE_FILES.matches(p.getFileName())).toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private static String messages(Throwable t) {
    List<String> out = new ArrayList<>();
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      out.add(c.getClass().getSimpleName() + ": " + c.getMessage());
    }
    return String.join("\n", out);
  }
}
