package io.aryl.labels;

import io.aryl.core.model.Checks;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.hadoop.util.curator.ZKCuratorManager;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's ZooKeeper client: every znode it creates (the leader latch's, the epoch, and the
 * parents of the root) carries {@link ControllerSecurity#zkAcl()}; with Kerberos on it
 * authenticates over SASL as the controller's principal, through Hadoop's {@code
 * ZKCuratorManager.HadoopZookeeperFactory} — the client the ResourceManager's own ZooKeeper
 * connection uses (a JAAS {@code Client} section given with {@code
 * -Djava.security.auth.login.config} wins over the keytab, as it does there).
 */
public final class ControllerZk {
  private static final Logger LOG = LoggerFactory.getLogger(ControllerZk.class);

  private ControllerZk() {}

  /** Gives every path the one ACL. */
  static final class FixedAcl implements ACLProvider {
    private final List<ACL> acl;

    FixedAcl(List<ACL> acl) {
      // Not List.copyOf: ZooKeeper checks an ACL with contains(null), which the JDK's immutable
      // lists refuse.
      this.acl = Collections.unmodifiableList(new ArrayList<>(acl));
    }

    @Override
    public List<ACL> getDefaultAcl() {
      return acl;
    }

    @Override
    public List<ACL> getAclForPath(String path) {
      return acl;
    }
  }

  /**
   * A client, not started, for {@code connect} with the settings' timeouts and the security's
   * identity and ACL.
   */
  public static CuratorFramework client(
      String connect,
      int sessionTimeoutMs,
      int connectionTimeoutMs,
      RetryPolicy retry,
      ControllerSecurity security)
      throws java.io.IOException {
    Checks.notBlank("connect", connect);
    Checks.notNull("security", security);
    CuratorFrameworkFactory.Builder b =
        CuratorFrameworkFactory.builder()
            .connectString(connect)
            .sessionTimeoutMs(sessionTimeoutMs)
            .connectionTimeoutMs(connectionTimeoutMs)
            .retryPolicy(retry)
            .aclProvider(new FixedAcl(security.zkAcl()));
    if (security.kerberos()) {
      b.zookeeperFactory(
          new ZKCuratorManager.HadoopZookeeperFactory(
              security.zkServerPrincipal(), security.resolvedPrincipal(), security.keytab()));
    }
    return b.build();
  }

  /** {@link #client} with the settings of {@code s}. */
  public static CuratorFramework client(
      LabelsSettings s, RetryPolicy retry, ControllerSecurity security) throws java.io.IOException {
    return client(
        s.zkConnect(), s.zkSessionTimeoutMs(), s.zkConnectionTimeoutMs(), retry, security);
  }

  /**
   * Puts {@code acl} on {@code root} and every znode below it whose ACL differs: znodes made before
   * the ACL was set (before Kerberos was turned on) are closed too. Run at start-up.
   *
   * @return how many znodes were changed
   * @throws IllegalStateException naming the znode, its ACL and the key, when ZooKeeper refuses the
   *     change (the znode belongs to another identity)
   */
  public static int applyAcl(CuratorFramework client, String root, List<ACL> acl) throws Exception {
    if (client.checkExists().forPath(root) == null) {
      return 0;
    }
    int changed = 0;
    Deque<String> todo = new ArrayDeque<>(List.of(root));
    while (!todo.isEmpty()) {
      String path = todo.pop();
      try {
        Stat stat = new Stat();
        List<ACL> now = client.getACL().storingStatIn(stat).forPath(path);
        if (!new HashSet<>(now).equals(new HashSet<>(acl))) {
          try {
            client.setACL().withVersion(stat.getAversion()).withACL(acl).forPath(path);
          } catch (KeeperException.NoAuthException e) {
            throw new IllegalStateException(
                "ZooKeeper refused to set the ACL of "
                    + path
                    + " (now "
                    + now
                    + ") to "
                    + LabelsConf.ZK_ACL.key()
                    + "'s "
                    + acl
                    + ": it belongs to another identity; fix it with zkCli.sh"
                    + " setAcl, or choose another "
                    + LabelsConf.ZK_ROOT.key());
          }
          changed++;
          LOG.info("ZooKeeper ACL of {} set to {} (was {})", path, acl, now);
        }
        for (String child : client.getChildren().forPath(path)) {
          todo.push(path + "/" + child);
        }
      } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
        // gone or changed in between (an ephemeral of the election): the next start looks again
      }
    }
    return changed;
  }
}
