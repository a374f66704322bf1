package io.aryl.labels;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.core.model.Checks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The loan ledger in ZooKeeper: one znode per inference-owned node under {@code <root>/ledger}, a JSON
 * {@link LoanEntry}, plus {@code <root>/intent} while a reclaim request is on its way to the scheduler.
 *
 * <p>Fencing: a leader first {@linkplain #claimEpoch claims an epoch} by bumping the version of {@code <root>/epoch}.
 * Every write is then one ZooKeeper transaction that checks that version and the version of the znode it replaces: as
 * soon as a successor claims the next epoch, every write of the deposed leader fails with {@link FencedException}, and
 * a write racing another writer on the same znode fails the same way.
 */
public final class LoanLedger {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CuratorFramework client;
  private final String root;

  public LoanLedger(CuratorFramework client, String root) {
    this.client = Checks.notNull("client", client);
    this.root = Checks.notBlank("root", root);
    if (!root.startsWith("/") || root.endsWith("/")) {
      throw new IllegalArgumentException("root must be an absolute ZooKeeper path without a trailing /, was " + root);
    }
  }

  /** A claimed epoch: the version of the epoch znode every write of its holder checks. */
  public record Epoch(int version, String owner) {
    public Epoch {
      Checks.nonNegative("version", version);
      Checks.notBlank("owner", owner);
    }
  }

  /** A value as read, with the znode version a write must replace. */
  public record Versioned<T>(T value, int version) {}

  /** A write refused because the epoch it was made under is over, or the znode changed since it was read. */
  public static final class FencedException extends Exception {
    private static final long serialVersionUID = 1L;

    FencedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** One write of a fenced transaction. {@code version} -1: the znode must not exist yet. */
  public sealed interface Write permits PutEntry, PutIntent, DeleteIntent {}

  public record PutEntry(LoanEntry entry, int version) implements Write {}

  public record PutIntent(ReclaimIntent intent, int version) implements Write {}

  public record DeleteIntent(int version) implements Write {}

  /** Creates the epoch and ledger znodes if missing. */
  public void ensurePaths() throws Exception {
    for (String p : List.of(epochPath(), ledgerPath())) {
      try {
        client.create().creatingParentsIfNeeded().forPath(p, new byte[0]);
      } catch (KeeperException.NodeExistsException e) {
        // already there
      }
    }
  }

  /** Makes {@code owner} the only writer: bumps the epoch znode's version; earlier epochs can no longer write. */
  public Epoch claimEpoch(String owner) throws Exception {
    ensurePaths();
    while (true) {
      Stat stat = new Stat();
      client.getData().storingStatIn(stat).forPath(epochPath());
      try {
        Stat after = client.setData().withVersion(stat.getVersion())
            .forPath(epochPath(), owner.getBytes(StandardCharsets.UTF_8));
        return new Epoch(after.getVersion(), owner);
      } catch (KeeperException.BadVersionException e) {
        // another claim in between: read again and claim after it
      }
    }
  }

  /** The epoch in force now: the last claimed one. */
  public Epoch currentEpoch() throws Exception {
    Stat stat = new Stat();
    byte[] owner = client.getData().storingStatIn(stat).forPath(epochPath());
    String name = owner == null || owner.length == 0 ? "none" : new String(owner, StandardCharsets.UTF_8);
    return new Epoch(stat.getVersion(), name);
  }

  /** Every entry, by node name. */
  public Map<String, Versioned<LoanEntry>> entries() throws Exception {
    Map<String, Versioned<LoanEntry>> out = new TreeMap<>();
    List<String> children;
    try {
      children = client.getChildren().forPath(ledgerPath());
    } catch (KeeperException.NoNodeException e) {
      return out;
    }
    for (String child : children) {
      Stat stat = new Stat();
      try {
        byte[] data = client.getData().storingStatIn(stat).forPath(ledgerPath() + "/" + child);
        LoanEntry entry = JSON.readValue(data, LoanEntry.class);
        out.put(entry.node(), new Versioned<>(entry, stat.getVersion()));
      } catch (KeeperException.NoNodeException e) {
        // deleted in between
      }
    }
    return out;
  }

  public Optional<Versioned<ReclaimIntent>> intent() throws Exception {
    Stat stat = new Stat();
    try {
      byte[] data = client.getData().storingStatIn(stat).forPath(intentPath());
      return Optional.of(new Versioned<>(JSON.readValue(data, ReclaimIntent.class), stat.getVersion()));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    }
  }

  /** Writes all of {@code writes} or none, and only while {@code epoch} is the epoch in force. */
  public void commit(Epoch epoch, List<? extends Write> writes) throws Exception {
    if (writes.isEmpty()) {
      return;
    }
    List<CuratorOp> ops = new ArrayList<>();
    ops.add(client.transactionOp().check().withVersion(epoch.version()).forPath(epochPath()));
    for (Write w : writes) {
      if (w instanceof PutEntry p) {
        ops.add(p.version() < 0
            ? client.transactionOp().create().forPath(entryPath(p.entry().node()), bytes(p.entry()))
            : client.transactionOp().setData().withVersion(p.version())
                .forPath(entryPath(p.entry().node()), bytes(p.entry())));
      } else if (w instanceof PutIntent p) {
        ops.add(p.version() < 0
            ? client.transactionOp().create().forPath(intentPath(), bytes(p.intent()))
            : client.transactionOp().setData().withVersion(p.version()).forPath(intentPath(), bytes(p.intent())));
      } else if (w instanceof DeleteIntent d) {
        ops.add(client.transactionOp().delete().withVersion(d.version()).forPath(intentPath()));
      }
    }
    try {
      client.transaction().forOperations(ops);
    } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException
        | KeeperException.NoNodeException e) {
      throw new FencedException("ledger write under epoch " + epoch.version() + " of " + epoch.owner()
          + " refused: a later epoch was claimed or the ledger changed since it was read (" + e.code() + ")", e);
    }
  }

  public String epochPath() {
    return root + "/epoch";
  }

  public String ledgerPath() {
    return root + "/ledger";
  }

  public String intentPath() {
    return root + "/intent";
  }

  private String entryPath(String node) {
    // ':' is legal in a znode name; '/' is not and never appears in a host:port.
    return ledgerPath() + "/" + node;
  }

  private static byte[] bytes(Object value) throws IOException {
    return JSON.writeValueAsBytes(value);
  }
}
