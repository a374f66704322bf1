package io.aryl.yarn.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.conf.ArylSettings.StoreKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "Where Aryl keeps its state: as set, else beside the ResourceManager's own store, never in a"
        + " temporary folder by default")
class StateLocationTest {

  private static final String ZK_STORE =
      "org.apache.hadoop.yarn.server.resourcemanager.recovery.ZKRMStateStore";
  private static final String FS_STORE =
      "org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore";
  private static final String LEVELDB_STORE =
      "org.apache.hadoop.yarn.server.resourcemanager.recovery.LeveldbRMStateStore";

  /** The JVM's java.io.tmpdir in these rows: not /tmp, so that the two rules are told apart. */
  private static final String JVM_TMP = "/scratch/jvm-tmp";

  /**
   * A configuration: Aryl's keys, the ResourceManager's, the folders holding a claimed store, and
   * what the rule must answer: a kind and directory, or a refusal saying all of {@code refusal}.
   */
  private record Row(
      String name,
      Map<String, String> aryl,
      Map<String, String> rm,
      Set<String> holdingState,
      StoreKind kind,
      String directory,
      List<String> refusal) {
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

  private static Map<String, String> recovery(String storeClass, String... more) {
    Map<String, String> m = keys(more);
    m.put("yarn.resourcemanager.recovery.enabled", "true");
    m.put("yarn.resourcemanager.store.class", storeClass);
    return m;
  }

  private static Row at(
      String name, Map<String, String> aryl, Map<String, String> rm, StoreKind kind, String dir) {
    return new Row(name, aryl, rm, Set.of(), kind, dir, List.of());
  }

  private static Row refused(
      String name, Map<String, String> aryl, Map<String, String> rm, String... says) {
    return new Row(name, aryl, rm, Set.of(), null, null, List.of(says));
  }

  static Stream<Row> rows() {
    Map<String, String> durableTmp = keys("hadoop.tmp.dir", "/data/hadoop");
    Map<String, String> defaultTmp = keys("hadoop.tmp.dir", "/tmp/hadoop-yarn");
    return Stream.of(
        at(
            "state-store=memory: memory, wherever hadoop.tmp.dir is",
            keys("aryl.scheduler.state-store", "memory"),
            defaultTmp,
            StoreKind.MEMORY,
            ""),
        at(
            "state-store=zookeeper: ZooKeeper",
            keys("aryl.scheduler.state-store", "zookeeper"),
            defaultTmp,
            StoreKind.ZOOKEEPER,
            ""),
        at(
            "ResourceManager HA: ZooKeeper",
            keys(),
            keys("hadoop.tmp.dir", "/tmp/hadoop-yarn", "yarn.resourcemanager.ha.enabled", "true"),
            StoreKind.ZOOKEEPER,
            ""),
        at(
            "the directory set: used as set, even in /tmp (the operator chose it)",
            keys("aryl.scheduler.state-store.dir", "file:///tmp/aryl-state"),
            defaultTmp,
            StoreKind.FILESYSTEM,
            "file:///tmp/aryl-state"),
        at(
            "RM's ZK store, no HA: ZooKeeper",
            keys(),
            recovery(ZK_STORE, "hadoop.tmp.dir", "/tmp/hadoop-yarn"),
            StoreKind.ZOOKEEPER,
            ""),
        at(
            "RM's ZK store but state-store=filesystem with a directory: that directory",
            keys(
                "aryl.scheduler.state-store", "filesystem",
                "aryl.scheduler.state-store.dir", "hdfs://nn:8020/aryl"),
            recovery(ZK_STORE, "hadoop.tmp.dir", "/tmp/hadoop-yarn"),
            StoreKind.FILESYSTEM,
            "hdfs://nn:8020/aryl"),
        at(
            "RM's fs store on HDFS: beside it",
            keys(),
            recovery(
                FS_STORE,
                "hadoop.tmp.dir",
                "/tmp/hadoop-yarn",
                "yarn.resourcemanager.fs.state-store.uri",
                "hdfs://nn:8020/yarn/rmstore"),
            StoreKind.FILESYSTEM,
            "hdfs://nn:8020/yarn/aryl"),
        at(
            "RM's fs store on a local disk: beside it",
            keys(),
            recovery(
                FS_STORE,
                "hadoop.tmp.dir",
                "/tmp/hadoop-yarn",
                "yarn.resourcemanager.fs.state-store.uri",
                "file:///var/lib/yarn/rmstore"),
            StoreKind.FILESYSTEM,
            "file:/var/lib/yarn/aryl"),
        at(
            "RM's fs store at its default under a durable hadoop.tmp.dir: the old default itself",
            keys(),
            recovery(FS_STORE, "hadoop.tmp.dir", "/data/hadoop"),
            StoreKind.FILESYSTEM,
            "/data/hadoop/yarn/system/aryl"),
        at(
            "RM's leveldb store: beside it, on the local disk",
            keys(),
            recovery(
                LEVELDB_STORE,
                "yarn.resourcemanager.leveldb-state-store.path",
                "/var/lib/yarn/rmstore"),
            StoreKind.FILESYSTEM,
            "file:///var/lib/yarn/aryl"),
        at(
            "nothing to follow, hadoop.tmp.dir durable: ${hadoop.tmp.dir}/yarn/system/aryl",
            keys(),
            durableTmp,
            StoreKind.FILESYSTEM,
            "/data/hadoop/yarn/system/aryl"),
        refused(
            "nothing set, hadoop.tmp.dir in /tmp (a default install): refused, naming the key and the"
                + " path",
            keys(),
            defaultTmp,
            "aryl.scheduler.state-store.dir",
            "/tmp/hadoop-yarn/yarn/system/aryl",
            "temporary folder /tmp"),
        refused(
            "state-store=filesystem without a directory, hadoop.tmp.dir in /tmp: refused",
            keys("aryl.scheduler.state-store", "filesystem"),
            defaultTmp,
            "aryl.scheduler.state-store.dir",
            "/tmp/hadoop-yarn/yarn/system/aryl"),
        refused(
            "RM's ZK store while recovery is off: nothing to follow, refused in /tmp",
            keys(),
            keys(
                "hadoop.tmp.dir", "/tmp/hadoop-yarn", "yarn.resourcemanager.store.class", ZK_STORE),
            "aryl.scheduler.state-store.dir",
            "/tmp/hadoop-yarn/yarn/system/aryl"),
        refused(
            "RM's fs store in /tmp on HDFS: refused, naming the place beside it",
            keys(),
            recovery(
                FS_STORE,
                "hadoop.tmp.dir",
                "/data/hadoop",
                "yarn.resourcemanager.fs.state-store.uri",
                "hdfs://nn:8020/tmp/rmstore"),
            "aryl.scheduler.state-store.dir",
            "hdfs://nn:8020/tmp/aryl",
            "yarn.resourcemanager.fs.state-store.uri=hdfs://nn:8020/tmp/rmstore"),
        refused(
            "hadoop.tmp.dir in the JVM's java.io.tmpdir: refused",
            keys(),
            keys("hadoop.tmp.dir", JVM_TMP + "/hadoop"),
            "aryl.scheduler.state-store.dir",
            JVM_TMP + "/hadoop/yarn/system/aryl",
            "temporary folder " + JVM_TMP),
        new Row(
            "upgrade: state in the old default, RM's ZK store now followed: refused, saying how to"
                + " keep it",
            keys(),
            recovery(ZK_STORE, "hadoop.tmp.dir", "/data/hadoop"),
            Set.of("/data/hadoop/yarn/system/aryl"),
            null,
            null,
            List.of(
                "Aryl's state is in /data/hadoop/yarn/system/aryl",
                "aryl.scheduler.state-store=filesystem and"
                    + " aryl.scheduler.state-store.dir=/data/hadoop/yarn/system/aryl",
                "delete /data/hadoop/yarn/system/aryl")),
        new Row(
            "upgrade: state in the old default, RM's fs store elsewhere: refused, saying where to"
                + " move it",
            keys(),
            recovery(
                FS_STORE,
                "hadoop.tmp.dir",
                "/data/hadoop",
                "yarn.resourcemanager.fs.state-store.uri",
                "hdfs://nn:8020/yarn/rmstore"),
            Set.of("/data/hadoop/yarn/system/aryl"),
            null,
            null,
            List.of(
                "aryl.scheduler.state-store.dir=/data/hadoop/yarn/system/aryl",
                "move the folder to hdfs://nn:8020/yarn/aryl")),
        new Row(
            "upgrade: state in the old default, which is still the default: kept",
            keys(),
            recovery(FS_STORE, "hadoop.tmp.dir", "/data/hadoop"),
            Set.of("/data/hadoop/yarn/system/aryl"),
            StoreKind.FILESYSTEM,
            "/data/hadoop/yarn/system/aryl",
            List.of()),
        new Row(
            "upgrade: state in the old default in /tmp: refused, saying to move it along",
            keys(),
            defaultTmp,
            Set.of("/tmp/hadoop-yarn/yarn/system/aryl"),
            null,
            null,
            List.of(
                "aryl.scheduler.state-store.dir",
                "moving what /tmp/hadoop-yarn/yarn/system/aryl holds there first")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  @DisplayName("the rule")
  void rule(Row row) {
    ArylSettings settings = ArylSettings.from(row.aryl());
    Configuration conf = new Configuration(false);
    row.rm().forEach(conf::set);
    if (row.refusal().isEmpty()) {
      StateStores.Location where =
          StateStores.locate(settings, conf, row.holdingState()::contains, JVM_TMP);
      assertThat(where.kind()).as("kind").isEqualTo(row.kind());
      assertThat(where.directory()).as("directory").isEqualTo(row.directory());
      assertThat(where.why()).as("why, for the start's log line").isNotBlank();
    } else {
      assertThatIllegalArgumentException()
          .isThrownBy(
              () -> StateStores.locate(settings, conf, row.holdingState()::contains, JVM_TMP))
          .satisfies(e -> assertThat(e.getMessage()).contains(row.refusal()));
    }
  }

  @Test
  @DisplayName("a folder holds state once a ResourceManager claimed a store there")
  void holdsStateOnceClaimed(@TempDir Path dir) throws Exception {
    Configuration conf = new Configuration();
    org.apache.hadoop.fs.Path store = new org.apache.hadoop.fs.Path(dir.toUri().toString());
    assertThat(FsStateStore.holdsState(conf, store)).as("an empty folder").isFalse();
    Files.writeString(dir.resolve("notes.txt"), "an operator's file");
    assertThat(FsStateStore.holdsState(conf, store)).as("a folder of other files").isFalse();
    try (FsStateStore s = new FsStateStore(conf, store)) {
      s.claim();
    }
    assertThat(FsStateStore.holdsState(conf, store)).as("after a claim").isTrue();
  }
}
