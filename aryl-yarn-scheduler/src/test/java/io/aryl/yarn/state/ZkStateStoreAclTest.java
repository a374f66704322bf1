package io.aryl.yarn.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.yarn.conf.ArylSettings;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.Test;

/**
 * The ZooKeeper store takes the ResourceManager's own ACL ({@code hadoop.zk.acl}, with {@code
 * hadoop.zk.auth} as the RM's identity), opened as the RM opens it when it has no shared client:
 * every znode, parents included, carries it, and another client can read but not write. (Digest
 * here; Kerberos SASL is SecureLoanControllerIT's in hadoop-it.)
 */
class ZkStateStoreAclTest {
  @Test
  void everyZnodeCarriesTheRmsAclAndOthersCannotWrite() throws Exception {
    try (TestingServer zk = new TestingServer(true)) {
      String digest = DigestAuthenticationProvider.generateDigest("rm:secret");
      Configuration conf = new Configuration(false);
      conf.set("hadoop.zk.address", zk.getConnectString());
      conf.set("hadoop.zk.acl", "digest:" + digest + ":cdrwa,world:anyone:r");
      conf.set("hadoop.zk.auth", "digest:rm:secret");
      ArylSettings settings =
          ArylSettings.from(
              Map.of(
                  "aryl.scheduler.state-store",
                  "zookeeper",
                  "aryl.scheduler.state-store.zk.root",
                  "/rm/aryl-scheduler"));
      // ZooKeeper shows a digest's hash only to its owner: "rm:x" to the other client.
      List<ACL> expected =
          List.of(
              new ACL(ZooDefs.Perms.ALL, new Id("digest", "rm:x")),
              new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
      try (StateStore store = StateStores.open(settings, conf, null)) {
        store.claim();
        store.write("jobs", "{}".getBytes(StandardCharsets.UTF_8));

        CuratorFramework other =
            CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(100));
        other.start();
        try {
          for (String z :
              List.of(
                  "/rm",
                  "/rm/aryl-scheduler",
                  "/rm/aryl-scheduler/epoch",
                  "/rm/aryl-scheduler/state",
                  "/rm/aryl-scheduler/state/jobs")) {
            assertThat(other.getACL().forPath(z))
                .as("ACL of %s", z)
                .containsExactlyInAnyOrderElementsOf(expected);
          }
          assertThat(other.getData().forPath("/rm/aryl-scheduler/state/jobs"))
              .as("readable")
              .isNotEmpty();
          assertThatThrownBy(
                  () -> other.setData().forPath("/rm/aryl-scheduler/state/jobs", new byte[0]))
              .isInstanceOf(KeeperException.NoAuthException.class);
          assertThatThrownBy(() -> other.setData().forPath("/rm/aryl-scheduler/epoch", new byte[0]))
              .isInstanceOf(KeeperException.NoAuthException.class);
          assertThatThrownBy(() -> other.delete().forPath("/rm/aryl-scheduler/epoch"))
              .as("a parent open to all would allow this")
              .isInstanceOf(KeeperException.NoAuthException.class);
          assertThatThrownBy(
                  () -> other.create().forPath("/rm/aryl-scheduler/state/forged", new byte[0]))
              .isInstanceOf(KeeperException.NoAuthException.class);
        } finally {
          other.close();
        }
      }
    }
  }
}
