package io.aryl.labels;

import io.aryl.core.model.Checks;
import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The loan controller's leader epochs: the version of the znode {@code <root>/epoch}, which each
 * instance bumps when it (re)gains leadership. Every target carries its sender's epoch, and the
 * scheduler refuses one older than the target in force, so once a successor has claimed a newer
 * epoch and sent a target, nothing its predecessor still sends counts.
 */
class EpochZnode {
  /**
   * A claimed epoch.
   *
   * @param version the epoch znode's version after the claim, from 1
   * @param owner the instance that claimed it
   */
  record Epoch(int version, String owner) {
    Epoch {
      Checks.positive("version", version);
      Checks.notBlank("owner", owner);
    }
  }

  private final CuratorFramework client;
  private final String path;

  EpochZnode(CuratorFramework client, String root) {
    this.client = Checks.notNull("client", client);
    Checks.notBlank("root", root);
    if (!root.startsWith("/") || root.endsWith("/")) {
      throw new IllegalArgumentException(
          "root must be an absolute ZooKeeper path without a trailing /, was " + root);
    }
    this.path = root + "/epoch";
  }

  String path() {
    return path;
  }

  /**
   * Claims the next epoch for {@code owner}: bumps the znode's version (creating it if missing).
   */
  Epoch claim(String owner) throws Exception {
    try {
      client.create().creatingParentsIfNeeded().forPath(path, new byte[0]);
    } catch (KeeperException.NodeExistsException e) {
      // there already
    }
    while (true) {
      Stat stat = new Stat();
      client.getData().storingStatIn(stat).forPath(path);
      try {
        Stat after =
            client
                .setData()
                .withVersion(stat.getVersion())
                .forPath(path, owner.getBytes(StandardCharsets.UTF_8));
        return new Epoch(after.getVersion(), owner);
      } catch (KeeperException.BadVersionException e) {
        // another claim in between: read again and claim after it
      }
    }
  }
}
