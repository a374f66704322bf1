package io.aryl.yarn.state;

import io.aryl.yarn.conf.ArylConf;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.conf.ArylSettings.StoreKind;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.curator.ZKCuratorManager;
import org.apache.hadoop.yarn.conf.HAUtil;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;

/**
 * Opens the state store {@code aryl.scheduler.state-store} names, where the ResourceManager keeps
 * its own state.
 */
public final class StateStores {
  private StateStores() {}

  /**
   * The kind {@code auto} stands for: ZooKeeper under ResourceManager HA (it fences a deposed RM),
   * else a directory.
   */
  public static StoreKind resolve(StoreKind kind, Configuration conf) {
    if (kind != StoreKind.AUTO) {
      return kind;
    }
    return HAUtil.isHAEnabled(conf) ? StoreKind.ZOOKEEPER : StoreKind.FILESYSTEM;
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
    return switch (resolve(settings.stateStore(), conf)) {
      case MEMORY -> new MemoryStateStore();
      case FILESYSTEM -> new FsStateStore(conf, new Path(directory(settings, conf)));
      case ZOOKEEPER -> zookeeper(settings, conf, rm);
      case AUTO -> throw new IllegalStateException("resolved above");
    };
  }

  /** The filesystem store's directory: the key, else beside the ResourceManager's default store. */
  public static String directory(ArylSettings settings, Configuration conf) {
    String dir = settings.stateStoreDir();
    return dir.isEmpty() ? conf.get("hadoop.tmp.dir") + "/yarn/system/aryl" : dir;
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
              + settings.stateStore().name().toLowerCase(java.util.Locale.ROOT)
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
