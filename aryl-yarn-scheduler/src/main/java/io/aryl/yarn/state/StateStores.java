package io.aryl.yarn.state;

import io.aryl.yarn.conf.ArylConf;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.conf.ArylSettings.StoreKind;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.curator.ZKCuratorManager;
import org.apache.hadoop.yarn.conf.HAUtil;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.LeveldbRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.ZKRMStateStore;

/**
 * Where Aryl keeps its state ({@link #locate}: the rule that picks the store and its place), and
 * opening it there.
 */
public final class StateStores {
  private StateStores() {}

  /** Folders whose content does not outlive a reboot or a clean-up, on any file system. */
  private static final List<String> TEMPORARY_FOLDERS = List.of("/tmp", "/var/tmp");

  /** The folder of the state beside the ResourceManager's own store (and the old default's). */
  static final String FOLDER = "aryl";

  /**
   * Where the state is: the kind of store, its directory for a filesystem store, and why there (for
   * the start's log line).
   */
  public record Location(StoreKind kind, String directory, String why) {}

  /**
   * The rule, as the configuration reference states it: a store or directory set by the operator is
   * used as set; else ZooKeeper under ResourceManager HA; else the ResourceManager's own store is
   * followed (ZooKeeper with a {@code ZKRMStateStore}, a folder {@code aryl} beside a {@code
   * FileSystemRMStateStore}'s or {@code LeveldbRMStateStore}'s); else {@code
   * ${hadoop.tmp.dir}/yarn/system/aryl}. A directory nobody chose that lands in a temporary folder
   * ({@code /tmp}, {@code /var/tmp}, {@code java.io.tmpdir}) is refused: the state would not
   * survive a reboot, which is what it is kept for.
   *
   * <p>Before this rule the default was always {@code ${hadoop.tmp.dir}/yarn/system/aryl}; when
   * that folder holds state and the rule now picks another place, the start is refused too, saying
   * how to keep it or drop it, so that an upgrade never starts afresh silently.
   *
   * @param holdsState whether a directory holds a claimed filesystem store (see {@link
   *     FsStateStore#holdsState})
   * @param localTmpDir this JVM's {@code java.io.tmpdir}
   * @throws IllegalArgumentException the refusal, naming {@code aryl.scheduler.state-store.dir} and
   *     the directory it would have used
   */
  public static Location locate(
      ArylSettings settings, Configuration conf, Predicate<String> holdsState, String localTmpDir) {
    StoreKind kind = settings.stateStore();
    String dir = settings.stateStoreDir();
    if (kind == StoreKind.MEMORY || kind == StoreKind.ZOOKEEPER) {
      return new Location(
          kind, "", ArylConf.STATE_STORE.key() + "=" + kind.name().toLowerCase(Locale.ROOT));
    }
    if (kind == StoreKind.AUTO && HAUtil.isHAEnabled(conf)) {
      return new Location(
          StoreKind.ZOOKEEPER, "", "ResourceManager HA (" + YarnConfiguration.RM_HA_ENABLED + ")");
    }
    if (!dir.isEmpty()) {
      return new Location(StoreKind.FILESYSTEM, dir, ArylConf.STATE_STORE_DIR.key());
    }
    String oldDefault = oldDefaultDirectory(conf);
    Location chosen = followRmStore(kind, conf).orElse(null);
    if (chosen == null) {
      chosen =
          new Location(
              StoreKind.FILESYSTEM,
              oldDefault,
              "default ${hadoop.tmp.dir}/yarn/system/"
                  + FOLDER
                  + ", no ResourceManager store to follow");
    }
    boolean moved = !chosen.directory().equals(oldDefault);
    if (moved && holdsState.test(oldDefault)) {
      throw new IllegalArgumentException(upgradeRefusal(chosen, oldDefault));
    }
    if (chosen.kind() == StoreKind.FILESYSTEM) {
      Optional<String> temporary = temporaryFolder(chosen.directory(), localTmpDir);
      if (temporary.isPresent()) {
        throw new IllegalArgumentException(temporaryRefusal(chosen, temporary.get()));
      }
    }
    return chosen;
  }

  /** {@link #locate} with this JVM's {@code java.io.tmpdir} and the file systems themselves. */
  public static Location locate(ArylSettings settings, Configuration conf) {
    return locate(
        settings,
        conf,
        d -> FsStateStore.holdsState(conf, new Path(d)),
        System.getProperty("java.io.tmpdir"));
  }

  /**
   * The place the ResourceManager's own state store gives Aryl's, when recovery is on and the store
   * is one Aryl can keep beside.
   */
  private static Optional<Location> followRmStore(StoreKind kind, Configuration conf) {
    if (!conf.getBoolean(
        YarnConfiguration.RECOVERY_ENABLED, YarnConfiguration.DEFAULT_RM_RECOVERY_ENABLED)) {
      return Optional.empty();
    }
    String store = conf.getTrimmed(YarnConfiguration.RM_STORE, "");
    if (store.equals(ZKRMStateStore.class.getName()) && kind == StoreKind.AUTO) {
      return Optional.of(
          new Location(
              StoreKind.ZOOKEEPER,
              "",
              "the ResourceManager's own store is ZKRMStateStore ("
                  + YarnConfiguration.RM_STORE
                  + ")"));
    }
    if (store.equals(FileSystemRMStateStore.class.getName())) {
      String uri =
          conf.getTrimmed(
              YarnConfiguration.FS_RM_STATE_STORE_URI,
              conf.get("hadoop.tmp.dir") + "/yarn/system/rmstore");
      return Optional.of(
          new Location(
              StoreKind.FILESYSTEM,
              beside(uri),
              "beside the ResourceManager's own store ("
                  + YarnConfiguration.FS_RM_STATE_STORE_URI
                  + "="
                  + uri
                  + ")"));
    }
    if (store.equals(LeveldbRMStateStore.class.getName())) {
      String path =
          conf.getTrimmed(
              YarnConfiguration.RM_LEVELDB_STORE_PATH,
              conf.get("hadoop.tmp.dir") + "/yarn/system/rmstore");
      // The RM's leveldb store is on the local disk: so is Aryl's, whatever fs.defaultFS says.
      String local = new Path(path).toUri().getPath();
      return Optional.of(
          new Location(
              StoreKind.FILESYSTEM,
              "file://" + beside(local),
              "beside the ResourceManager's own store ("
                  + YarnConfiguration.RM_LEVELDB_STORE_PATH
                  + "="
                  + path
                  + ")"));
    }
    return Optional.empty();
  }

  /** The folder {@code aryl} in the folder that holds {@code store}. */
  private static String beside(String store) {
    Path p = new Path(store);
    Path parent = p.getParent();
    return (parent == null ? p : new Path(parent, FOLDER)).toString();
  }

  /** The default before the rule followed the ResourceManager's store. */
  static String oldDefaultDirectory(Configuration conf) {
    return conf.get("hadoop.tmp.dir") + "/yarn/system/" + FOLDER;
  }

  /**
   * The temporary folder {@code directory} is in: {@code /tmp} or {@code /var/tmp} on any file
   * system, {@code localTmpDir} on the local one (a path with no scheme or {@code file:}).
   */
  static Optional<String> temporaryFolder(String directory, String localTmpDir) {
    URI uri = new Path(directory).toUri();
    String path = new Path(uri.getPath()).toString();
    boolean local = uri.getScheme() == null || uri.getScheme().equals("file");
    List<String> folders = new ArrayList<>(TEMPORARY_FOLDERS);
    if (local && localTmpDir != null && !localTmpDir.isBlank()) {
      folders.add(new Path(localTmpDir).toUri().getPath());
    }
    for (String folder : folders) {
      String f =
          folder.endsWith("/") && folder.length() > 1
              ? folder.substring(0, folder.length() - 1)
              : folder;
      if (path.equals(f) || path.startsWith(f + "/")) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  private static String temporaryRefusal(Location chosen, String folder) {
    return "Aryl would keep its state in "
        + chosen.directory()
        + " ("
        + chosen.why()
        + "), in the temporary folder "
        + folder
        + ", where it does not survive a reboot: set "
        + ArylConf.STATE_STORE_DIR.key()
        + " to a durable directory (moving what "
        + chosen.directory()
        + " holds there first, if anything), or "
        + ArylConf.STATE_STORE.key()
        + "=memory to keep no state";
  }

  private static String upgradeRefusal(Location chosen, String oldDefault) {
    String now = chosen.kind() == StoreKind.ZOOKEEPER ? "ZooKeeper" : chosen.directory();
    return "Aryl's state is in "
        + oldDefault
        + " (the default before this version), but its default is now "
        + now
        + " ("
        + chosen.why()
        + "): to keep using it, set "
        + ArylConf.STATE_STORE.key()
        + "=filesystem and "
        + ArylConf.STATE_STORE_DIR.key()
        + "="
        + oldDefault
        + (chosen.kind() == StoreKind.FILESYSTEM
            ? ", or move the folder to " + chosen.directory()
            : "")
        + "; to start afresh (forgetting loans, reclaims and drains in flight), delete "
        + oldDefault;
  }

  /**
   * The store the settings name, open and not yet claimed ({@link StateStore#claim}).
   *
   * @param rm the ResourceManager whose ZooKeeper client is shared when it has one; may be null
   *     (then a client of the store's own is made)
   * @throws YarnRuntimeException naming the key when the store is configured wrongly
   */
  public static StateStore open(ArylSettings settings, Configuration conf, ResourceManager rm)
      throws IOException {
    Location where;
    try {
      where = locate(settings, conf);
    } catch (IllegalArgumentException e) {
      throw new YarnRuntimeException("Aryl configuration: " + e.getMessage(), e);
    }
    return switch (where.kind()) {
      case MEMORY -> new MemoryStateStore();
      case FILESYSTEM -> new FsStateStore(conf, new Path(where.directory()));
      case ZOOKEEPER -> zookeeper(settings, conf, rm);
      case AUTO -> throw new IllegalStateException("never located");
    };
  }

  private static StateStore zookeeper(ArylSettings settings, Configuration conf, ResourceManager rm)
      throws IOException {
    String address =
        conf.get(CommonConfigurationKeys.ZK_ADDRESS, conf.get(YarnConfiguration.RM_ZK_ADDRESS));
    if (address == null || address.isBlank()) {
      throw new YarnRuntimeException(
          "Aryl: "
              + ArylConf.STATE_STORE.key()
              + "="
              + settings.stateStore().name().toLowerCase(Locale.ROOT)
              + " keeps its state in ZooKeeper, but neither "
              + CommonConfigurationKeys.ZK_ADDRESS
              + " nor "
              + YarnConfiguration.RM_ZK_ADDRESS
              + " is set; set one, or choose "
              + ArylConf.STATE_STORE.key()
              + "=filesystem");
    }
    ZKCuratorManager shared = rm == null ? null : rm.getZKManager();
    if (shared != null) {
      return new ZkStateStore(
          shared.getCurator(), settings.stateStoreZkRoot(), ZKCuratorManager.getZKAcls(conf), null);
    }
    ZKCuratorManager own = rm != null ? rm.createAndStartZKManager(conf) : startManager(conf);
    return new ZkStateStore(
        own.getCurator(),
        settings.stateStoreZkRoot(),
        ZKCuratorManager.getZKAcls(conf),
        own::close);
  }

  private static ZKCuratorManager startManager(Configuration conf) throws IOException {
    ZKCuratorManager m = new ZKCuratorManager(conf);
    m.start();
    return m;
  }
}
