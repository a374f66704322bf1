package io.aryl.yarn.state;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * State in ZooKeeper, where an HA ResourceManager keeps its own: one znode per section under {@code
 * <root>/state}.
 *
 * <p>Every znode it creates, the root and its parents included, carries the ACL it is given: the
 * ResourceManager's {@code hadoop.zk.acl} ({@link StateStores}), so the store is writable by whom
 * the RM's own state is.
 *
 * <p>Fencing, as the loan ledger does it: a claim bumps the version of {@code <root>/epoch}; every
 * write is one transaction that checks that version first. Once a newly active ResourceManager
 * claimed the store, a deposed one cannot write a byte.
 */
public final class ZkStateStore implements StateStore {
  /** Largest section written: ZooKeeper refuses a znode above jute.maxbuffer (1 MB by default). */
  static final int MAX_SECTION_BYTES = 1000 * 1024;

  private final CuratorFramework client;
  private final String root;
  private final List<ACL> acl;
  private final AutoCloseable owned;
  private int epoch = -1;

  /**
   * @param client a started Curator client
   * @param root absolute ZooKeeper path of the store
   * @param acl ACL of the znodes it creates
   * @param owned closed with the store (a client the store created), or null
   */
  public ZkStateStore(CuratorFramework client, String root, List<ACL> acl, AutoCloseable owned) {
    if (root == null || !root.startsWith("/") || root.endsWith("/") || root.length() < 2) {
      throw new IllegalArgumentException(
          "ZooKeeper root must be an absolute path without a trailing /, was '" + root + "'");
    }
    this.client = client;
    this.root = root;
    // Not List.copyOf: ZooKeeper checks an ACL with contains(null), which the JDK's immutable lists
    // refuse.
    this.acl = java.util.Collections.unmodifiableList(new ArrayList<>(acl));
    this.owned = owned;
  }

  private String epochPath() {
    return root + "/epoch";
  }

  private String statePath() {
    return root + "/state";
  }

  private String sectionPath(String section) {
    return statePath() + "/" + section;
  }

  @Override
  public synchronized long claim() throws IOException {
    try {
      for (String p : List.of(epochPath(), statePath())) {
        try {
          // The ACL on the parents too: a parent open to anyone would let anyone delete the epoch
          // znode.
          client.create().creatingParentsIfNeeded().withACL(acl, true).forPath(p, new byte[0]);
        } catch (KeeperException.NodeExistsException e) {
          // already there
        }
      }
      while (true) {
        Stat stat = new Stat();
        client.getData().storingStatIn(stat).forPath(epochPath());
        try {
          Stat after =
              client
                  .setData()
                  .withVersion(stat.getVersion())
                  .forPath(
                      epochPath(),
                      Long.toString(System.currentTimeMillis()).getBytes(StandardCharsets.UTF_8));
          epoch = after.getVersion();
          return epoch;
        } catch (KeeperException.BadVersionException e) {
          // another claim in between: claim after it
        }
      }
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("claiming Aryl's state at ZooKeeper " + root + ": " + e, e);
    }
  }

  @Override
  public synchronized Map<String, byte[]> readAll() throws IOException {
    Map<String, byte[]> out = new TreeMap<>();
    try {
      List<String> children;
      try {
        children = client.getChildren().forPath(statePath());
      } catch (KeeperException.NoNodeException e) {
        return out;
      }
      for (String child : children) {
        try {
          out.put(child, client.getData().forPath(sectionPath(child)));
        } catch (KeeperException.NoNodeException e) {
          // removed in between (an operator resetting a section)
        }
      }
      return out;
    } catch (Exception e) {
      throw new IOException("reading Aryl's state at ZooKeeper " + statePath() + ": " + e, e);
    }
  }

  @Override
  public synchronized void write(String section, byte[] data) throws IOException {
    if (epoch < 0) {
      throw new IllegalStateException("write before claim");
    }
    if (data.length > MAX_SECTION_BYTES) {
      throw new IOException(
          "section "
              + section
              + " is "
              + data.length
              + " bytes, more than ZooKeeper takes ("
              + MAX_SECTION_BYTES
              + ")");
    }
    try {
      try {
        commit(client.transactionOp().setData().forPath(sectionPath(section), data));
      } catch (KeeperException.NoNodeException e) {
        if (epochCheckFailed(e)) {
          throw fenced(e);
        }
        commit(client.transactionOp().create().withACL(acl).forPath(sectionPath(section), data));
      }
    } catch (KeeperException.BadVersionException e) {
      throw fenced(e);
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("writing Aryl's state " + sectionPath(section) + ": " + e, e);
    }
  }

  private void commit(CuratorOp op) throws Exception {
    List<CuratorOp> ops = new ArrayList<>();
    ops.add(client.transactionOp().check().withVersion(epoch).forPath(epochPath()));
    ops.add(op);
    client.transaction().forOperations(ops);
  }

  /** True when the failed transaction failed at its first operation, the epoch check. */
  private static boolean epochCheckFailed(KeeperException e) {
    List<org.apache.zookeeper.OpResult> results = e.getResults();
    return results != null
        && !results.isEmpty()
        && results.get(0) instanceof org.apache.zookeeper.OpResult.ErrorResult r
        && r.getErr() != KeeperException.Code.OK.intValue()
        && r.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue();
  }

  private StoreFencedException fenced(Exception e) {
    return new StoreFencedException(
        "Aryl's state at ZooKeeper "
            + root
            + " was claimed by another ResourceManager"
            + " after this one (epoch "
            + epoch
            + "): this scheduler is no longer active",
        e);
  }

  @Override
  public String kind() {
    return "zookeeper";
  }

  @Override
  public String location() {
    return root;
  }

  @Override
  public String location(String section) {
    return "znode " + sectionPath(section);
  }

  @Override
  public String deleteCommand(String section) {
    return "zkCli.sh -server <zookeeper> delete " + sectionPath(section);
  }

  @Override
  public void close() {
    if (owned != null) {
      try {
        owned.close();
      } catch (Exception e) {
        // closing: nothing more to do with it
      }
    }
  }
}
