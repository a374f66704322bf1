package io.aryl.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * One cluster for every test of a class: started before the first test, emptied after each (what a
 * test left running is killed, and its containers awaited gone), stopped after the last. A
 * MiniYARNCluster takes seconds to start and to stop; the tests of a class that each want an idle
 * cluster of the same shape share one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OneClusterPerClass {
  /** The cluster of this class's tests, from {@link #startCluster}. */
  protected ArylMiniCluster cluster;

  /** The cluster's files: the ApplicationMasters' staging directory among them. */
  private Path clusterDir;

  /** Starts the class's cluster with its files in {@code dir}, a directory of its own. */
  protected abstract ArylMiniCluster startCluster(File dir) throws Exception;

  @BeforeAll
  final void startClusterOfClass() throws Exception {
    clusterDir = Files.createTempDirectory(getClass().getSimpleName() + "-");
    cluster = startCluster(clusterDir.toFile());
  }

  /** Each test starts on an idle cluster, whatever the last one left running. */
  @AfterEach
  final void killWhatIsLeft() throws Exception {
    cluster.killAllAndAwaitIdle();
  }

  @AfterAll
  final void stopClusterOfClass() throws Exception {
    try {
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      deleteTree(clusterDir);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (root == null) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
