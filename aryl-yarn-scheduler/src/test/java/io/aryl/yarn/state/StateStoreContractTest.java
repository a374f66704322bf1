package io.aryl.yarn.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every durable store promises: sections written are read back by whoever claims the store
 * next, and once a second scheduler claimed it, the first can no longer write. Run against a real
 * embedded ZooKeeper and a real local file system.
 */
@DisplayName("StateStore: what survives, and who may write it")
class StateStoreContractTest {
  private static TestingServer zk;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    zk = new TestingServer(true);
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    zk.close();
  }

  /**
   * The contract, for one kind of store; {@link #open} gives a new handle on the same store each
   * call.
   */
  abstract static class Contract {
    abstract StateStore open() throws Exception;

    @Test
    @DisplayName("a section written is read back, byte for byte, by the next claimant")
    void sectionsSurviveANewClaimant() throws Exception {
      try (StateStore first = open()) {
        first.claim();
        first.write("owners", bytes("{\"inference\":[\"n1:1\"]}"));
        first.write("reclaims", bytes("{}"));
        first.write("owners", bytes("{\"inference\":[\"n1:1\",\"n2:1\"]}"));
      }
      try (StateStore next = open()) {
        next.claim();
        assertThat(next.readAll()).containsOnlyKeys("owners", "reclaims");
        assertThat(new String(next.readAll().get("owners"), StandardCharsets.UTF_8))
            .isEqualTo("{\"inference\":[\"n1:1\",\"n2:1\"]}");
      }
    }

    @Test
    @DisplayName("each claim's epoch is larger than the one before")
    void epochsIncrease() throws Exception {
      try (StateStore a = open();
          StateStore b = open()) {
        long ea = a.claim();
        long eb = b.claim();
        assertThat(eb).isGreaterThan(ea);
      }
    }

    @Test
    @DisplayName("after a second scheduler claimed the store, the first one's writes are refused")
    void aDeposedClaimantCannotWrite() throws Exception {
      try (StateStore deposed = open();
          StateStore active = open()) {
        deposed.claim();
        deposed.write("drains", bytes("{\"containers\":[]}"));
        active.claim();
        active.write("drains", bytes("{\"containers\":[\"kept\"]}"));

        assertThatThrownBy(() -> deposed.write("drains", bytes("{\"containers\":[]}")))
            .isInstanceOf(StoreFencedException.class)
            .hasMessageContaining("no longer active");
        assertThat(new String(active.readAll().get("drains"), StandardCharsets.UTF_8))
            .contains("kept");
      }
    }

    @Test
    @DisplayName("says where each section lives and how to delete it")
    void namesWhereASectionLives() throws Exception {
      try (StateStore s = open()) {
        assertThat(s.location("jobs")).contains("jobs");
        assertThat(s.deleteCommand("jobs")).contains("jobs");
      }
    }
  }

  @Nested
  @DisplayName("in ZooKeeper")
  class InZooKeeper extends Contract {
    /** One store per test: JUnit makes a new instance for each. */
    private final String root = "/aryl-test-" + System.identityHashCode(this);

    @Override
    StateStore open() {
      CuratorFramework client =
          CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(100));
      client.start();
      return new ZkStateStore(client, root, ZooDefs.Ids.OPEN_ACL_UNSAFE, client);
    }

    @Test
    @DisplayName("refuses a section larger than a znode holds, naming it")
    void refusesOversizedSections() throws Exception {
      try (StateStore s = open()) {
        s.claim();
        assertThatThrownBy(() -> s.write("jobs", new byte[ZkStateStore.MAX_SECTION_BYTES + 1]))
            .hasMessageContaining(
                "section jobs is " + (ZkStateStore.MAX_SECTION_BYTES + 1) + " bytes");
      }
    }

    @Test
    @DisplayName("refuses a root that is not an absolute path")
    void refusesARelativeRoot() {
      assertThatThrownBy(() -> new ZkStateStore(null, "aryl", List.of(), null))
          .hasMessageContaining("was 'aryl'");
    }
  }

  @Nested
  @DisplayName("on a file system")
  class OnAFileSystem extends Contract {
    @TempDir Path dir;

    @Override
    StateStore open() throws Exception {
      return new FsStateStore(
          new Configuration(), new org.apache.hadoop.fs.Path(dir.toUri().toString()));
    }

    @Test
    @DisplayName("keeps each section in <name>.json and leaves no temporary file behind")
    void oneFilePerSection() throws Exception {
      try (StateStore s = open()) {
        s.claim();
        s.write("owners", bytes("{}"));
      }
      List<String> names;
      try (var files = java.nio.file.Files.list(dir)) {
        names = files.map(p -> p.getFileName().toString()).toList();
      }
      assertThat(names).noneMatch(n -> n.contains(".tmp"));
      assertThat(names)
          .filteredOn(n -> !n.startsWith("."))
          .as("besides the local file system's checksums")
          .containsExactlyInAnyOrder("owners.json", "epoch");
    }
  }

  @Nested
  @DisplayName("on a file system reached through Hadoop's FileContext (as HDFS is)")
  class ThroughHadoop extends Contract {
    @TempDir Path dir;

    @Override
    StateStore open() throws Exception {
      return FsStateStore.viaHadoop(
          new Configuration(), new org.apache.hadoop.fs.Path(dir.toUri().toString()));
    }

    @Test
    @DisplayName("reads what the local store wrote, and the local store reads what it wrote")
    void sameDirectoryEitherWay() throws Exception {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(dir.toUri().toString());
      try (StateStore hadoop = open()) {
        hadoop.claim();
        hadoop.write("owners", bytes("{\"a\":1}"));
      }
      try (StateStore local = new FsStateStore(new Configuration(), p)) {
        local.claim();
        assertThat(
                new String(local.readAll().get("owners"), java.nio.charset.StandardCharsets.UTF_8))
            .isEqualTo("{\"a\":1}");
        local.write("owners", bytes("{\"a\":2}"));
      }
      try (StateStore hadoop = open()) {
        hadoop.claim();
        // Hadoop verifies a checksum file it finds: the local store removed the stale one.
        assertThat(
                new String(hadoop.readAll().get("owners"), java.nio.charset.StandardCharsets.UTF_8))
            .isEqualTo("{\"a\":2}");
      }
    }
  }

  @Nested
  @DisplayName("in memory")
  class InMemory {
    @Test
    @DisplayName("holds sections for its own lifetime only")
    void forgetsWithTheScheduler() throws Exception {
      MemoryStateStore s = new MemoryStateStore();
      s.claim();
      s.write("owners", bytes("{}"));
      assertThat(s.readAll()).containsOnlyKeys("owners");
      assertThat(new MemoryStateStore().readAll()).isEmpty();
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
