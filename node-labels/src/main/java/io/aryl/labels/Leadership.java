package io.aryl.labels;

import io.aryl.labels.LoanController.Role;
import io.aryl.labels.LoanLedger.Epoch;
import io.aryl.labels.LoanLedger.Write;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One controller instance's standing in the election, and the epoch that fences its writes.
 *
 * <p>Leadership is a Curator {@link LeaderLatch}. The instance stops acting the moment its ZooKeeper connection is
 * SUSPENDED or LOST, before its next side effect, and claims a new {@linkplain LoanLedger#claimEpoch epoch} each time
 * it (re)gains leadership. Every ledger write goes through {@link #commit}, which checks that this instance still
 * acts under the epoch, and ZooKeeper checks that the epoch is still the one in force: a deposed leader's writes fail.
 */
final class Leadership implements ConnectionStateListener {
  // The controller's logger: its log lines keep the name deployments already filter on.
  private static final Logger LOG = LoggerFactory.getLogger(LoanController.class);

  /** Thrown inside a decision when this instance must stop acting before its next side effect. */
  static final class NotActingException extends Exception {
    private static final long serialVersionUID = 1L;

    NotActingException(String message) {
      super(message);
    }
  }

  private final CuratorFramework client;
  private final LoanLedger ledger;
  private final String instanceId;
  private final LeaderLatch latch;

  private volatile boolean connected;
  private volatile Role role = Role.NEW;
  private volatile Epoch epoch;

  Leadership(CuratorFramework client, LoanLedger ledger, String instanceId, String latchPath) {
    this.client = client;
    this.ledger = ledger;
    this.instanceId = instanceId;
    this.latch = new LeaderLatch(client, latchPath, instanceId);
  }

  /** Listens to the connection and joins the election; once only. */
  synchronized void start() throws Exception {
    if (role != Role.NEW) {
      throw new IllegalStateException("start() may be called once, role is " + role);
    }
    client.getConnectionStateListenable().addListener(this);
    connected = client.getZookeeperClient().isConnected();
    role = connected ? Role.STANDBY : Role.SUSPENDED;
    latch.start();
  }

  /**
   * Stops acting for good: CLOSED, no epoch. {@link #leave()} follows, once no decision runs any more.
   *
   * @return false when already closed
   */
  synchronized boolean stop() {
    if (role == Role.CLOSED) {
      return false;
    }
    role = Role.CLOSED;
    epoch = null;
    return true;
  }

  /** Stops listening and leaves the election; after {@link #stop()}. */
  void leave() {
    client.getConnectionStateListenable().removeListener(this);
    try {
      latch.close();
    } catch (Exception | AssertionError e) {
      LOG.debug("leader latch of {} did not close cleanly: {}", instanceId, e.toString());
    }
  }

  @Override
  public void stateChanged(CuratorFramework c, ConnectionState state) {
    if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
      connected = false;
      if (epoch != null) {
        LOG.warn("loan controller {}: ZooKeeper connection {}: stops acting (epoch {})", instanceId, state,
            epoch.version());
      }
      epoch = null;
      if (role != Role.CLOSED) {
        role = Role.SUSPENDED;
      }
    } else if (state.isConnected()) {
      connected = true;
    }
  }

  /**
   * At the start of a decision: true when this instance holds leadership over a live connection. Otherwise it drops
   * its epoch now and stands by (or stays suspended, without a connection).
   */
  boolean leads() {
    if (client.getState() != CuratorFrameworkState.STARTED) {
      connected = false; // the client was closed under us: no events will come any more
    }
    if (connected && latch.hasLeadership()) {
      return true;
    }
    if (epoch != null) {
      LOG.warn("loan controller {} lost leadership: stops acting (epoch {})", instanceId, epoch.version());
    }
    standDown();
    return false;
  }

  /**
   * Claims a new epoch, on gaining leadership.
   *
   * @return false when leadership was lost while claiming: the next leader claims after this one and fences it
   */
  boolean claim() throws Exception {
    Epoch claimed = ledger.claimEpoch(instanceId);
    if (!connected || !latch.hasLeadership()) {
      return false;
    }
    epoch = claimed;
    role = Role.LEADER;
    LOG.info("loan controller {} leads with epoch {}", instanceId, claimed.version());
    return true;
  }

  /** Drops the epoch and stands by (suspended, without a connection): leadership lost, or a write fenced. */
  void standDown() {
    epoch = null;
    role = connected ? Role.STANDBY : Role.SUSPENDED;
  }

  /** Writes {@code writes} to the ledger, all or none, only while this instance still acts under {@code e}. */
  void commit(Epoch e, List<? extends Write> writes) throws Exception {
    requireActing(e);
    ledger.commit(e, writes);
  }

  /** Before every side effect: throws unless this instance still leads, connected, under {@code e}. */
  void requireActing(Epoch e) throws NotActingException {
    if (!connected || epoch != e || role == Role.CLOSED || !latch.hasLeadership()) {
      throw new NotActingException("no longer leader with epoch " + e.version() + ": action skipped");
    }
  }

  /** True while this instance is the leader with a claimed epoch and a live ZooKeeper connection. */
  boolean isActing() {
    return epoch != null && connected && client.getState() == CuratorFrameworkState.STARTED && latch.hasLeadership()
        && role == Role.LEADER;
  }

  /** The epoch held, or null when not acting. */
  Epoch held() {
    return epoch;
  }

  boolean connected() {
    return connected;
  }

  Role role() {
    return role;
  }
}
