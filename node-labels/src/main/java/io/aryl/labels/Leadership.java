package io.aryl.labels;

import io.aryl.labels.EpochZnode.Epoch;
import io.aryl.labels.LoanController.Role;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One controller instance's standing in the election, and the epoch its targets carry.
 *
 * <p>The standing — role and epoch — is one immutable value in one field, changed only by
 * compare-and-set, as Curator's {@link LeaderLatch} keeps its own state: the connection listener's
 * thread and the decision thread both change it, and a change made on the strength of a standing
 * that the other thread has replaced since fails instead of overwriting it. So an epoch claimed
 * while the connection was SUSPENDED in between is never taken up, and a SUSPENDED or LOST
 * connection stops the instance acting before its next target, whatever the decision thread does.
 *
 * <p>Leadership is a Curator {@link LeaderLatch}; each time the instance (re)gains it, it claims a
 * new epoch ({@link EpochZnode}). When the scheduler refuses a target because a newer epoch is in
 * force, the instance {@linkplain #resign resigns}: it leaves the election and joins it again at
 * the back, so that it does not claim an epoch over its successor's.
 */
final class Leadership implements ConnectionStateListener {
  // The controller's logger: its log lines keep the name deployments already filter on.
  private static final Logger LOG = LoggerFactory.getLogger(LoanController.class);

  /**
   * Where the instance stands: LEADER with the epoch it claimed, any other role without one. A new
   * value for each change, so a compare-and-set never mistakes a standing that came back for the
   * one it read.
   */
  record Standing(Role role, Epoch epoch) {
    Standing {
      if ((role == Role.LEADER) != (epoch != null)) {
        throw new IllegalArgumentException(
            "a LEADER holds an epoch and no other role does, was " + role + " with " + epoch);
      }
    }

    /** Connected to ZooKeeper as far as the last connection event said. */
    boolean connected() {
      return role == Role.STANDBY || role == Role.LEADER;
    }
  }

  /** Thrown inside a decision when this instance must stop acting before its next side effect. */
  static final class NotActingException extends Exception {
    private static final long serialVersionUID = 1L;

    NotActingException(String message) {
      super(message);
    }
  }

  private final CuratorFramework client;
  private final EpochZnode epochs;
  private final String instanceId;
  private final String latchPath;
  private final AtomicReference<Standing> standing =
      new AtomicReference<>(new Standing(Role.NEW, null));

  /** Replaced only on the decision thread ({@link #resign}); read by any. */
  private volatile LeaderLatch latch;

  Leadership(CuratorFramework client, EpochZnode epochs, String instanceId, String latchPath) {
    this.client = client;
    this.epochs = epochs;
    this.instanceId = instanceId;
    this.latchPath = latchPath;
    this.latch = new LeaderLatch(client, latchPath, instanceId);
  }

  /** Listens to the connection and joins the election; once only. */
  void start() throws Exception {
    Standing now = standing.get();
    Role first = client.getZookeeperClient().isConnected() ? Role.STANDBY : Role.SUSPENDED;
    if (now.role() != Role.NEW || !standing.compareAndSet(now, new Standing(first, null))) {
      throw new IllegalStateException(
          "start() may be called once, role is " + standing.get().role());
    }
    client.getConnectionStateListenable().addListener(this);
    latch.start();
  }

  /**
   * Stops acting for good: CLOSED, no epoch. {@link #leave()} follows, once no decision runs any
   * more.
   *
   * @return false when already closed
   */
  boolean stop() {
    return standing.getAndSet(new Standing(Role.CLOSED, null)).role() != Role.CLOSED;
  }

  /** Stops listening and leaves the election; after {@link #stop()}. */
  void leave() {
    client.getConnectionStateListenable().removeListener(this);
    closeLatch(latch);
  }

  @Override
  public void stateChanged(CuratorFramework c, ConnectionState state) {
    if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
      Standing was =
          standing.getAndUpdate(
              s ->
                  s.role() == Role.NEW || s.role() == Role.CLOSED
                      ? s
                      : new Standing(Role.SUSPENDED, null));
      if (was.epoch() != null) {
        LOG.warn(
            "loan controller {}: ZooKeeper connection {}: stops acting (epoch {})",
            instanceId,
            state,
            was.epoch().version());
      }
    } else if (state.isConnected()) {
      standing.updateAndGet(s -> s.role() == Role.SUSPENDED ? new Standing(Role.STANDBY, null) : s);
    }
  }

  /**
   * At the start of a decision: true when this instance holds leadership over a live connection.
   * Otherwise it drops its epoch now and stands by (or stays suspended, without a connection).
   */
  boolean leads() {
    if (client.getState() != CuratorFrameworkState.STARTED) {
      // The client was closed under us: no connection events will come any more.
      standing.updateAndGet(
          s ->
              s.role() == Role.CLOSED || s.role() == Role.SUSPENDED
                  ? s
                  : new Standing(Role.SUSPENDED, null));
    }
    Standing s = standing.get();
    if (s.connected() && latch.hasLeadership()) {
      return true;
    }
    if (s.role() == Role.LEADER && standing.compareAndSet(s, new Standing(Role.STANDBY, null))) {
      LOG.warn(
          "loan controller {} lost leadership: stops acting (epoch {})",
          instanceId,
          s.epoch().version());
    }
    return false;
  }

  /**
   * Claims a new epoch, on gaining leadership.
   *
   * @return the epoch, or null when the standing changed while claiming (the connection was
   *     suspended, the instance closed): the epoch is not taken up, and the next leader claims
   *     after it
   */
  Epoch claim() throws Exception {
    Standing before = standing.get();
    if (before.role() != Role.STANDBY) {
      return null;
    }
    Epoch claimed = epochs.claim(instanceId);
    if (!latch.hasLeadership()
        || !standing.compareAndSet(before, new Standing(Role.LEADER, claimed))) {
      LOG.info(
          "loan controller {}: epoch {} claimed, but leadership changed meanwhile: not taken up",
          instanceId,
          claimed.version());
      return null;
    }
    LOG.info("loan controller {} leads with epoch {}", instanceId, claimed.version());
    return claimed;
  }

  /**
   * A target of a newer epoch is in force: stops acting under {@code e}, leaves the election and
   * joins it again at the back, so that this instance does not claim an epoch over its successor's
   * while its latch still says it leads.
   */
  // An epoch is the very claim this instance made: compared by identity, as in requireActing.
  @SuppressWarnings("ReferenceEquality")
  void resign(Epoch e, String why) throws Exception {
    Standing s = standing.get();
    if (s.role() != Role.LEADER || s.epoch() != e) {
      return; // already not acting under e
    }
    if (!standing.compareAndSet(s, new Standing(Role.STANDBY, null))) {
      return; // the connection went meanwhile: nothing left to give up
    }
    LOG.warn("loan controller {} stands down (epoch {}): {}", instanceId, e.version(), why);
    LeaderLatch old = latch;
    LeaderLatch next = new LeaderLatch(client, latchPath, instanceId);
    latch = next;
    closeLatch(old);
    if (standing.get().role() != Role.CLOSED) {
      next.start();
    }
  }

  /**
   * Before every side effect: throws unless this instance still leads, connected, under {@code e}.
   */
  // An epoch is the very claim this instance made, not an equal one claimed again.
  @SuppressWarnings("ReferenceEquality")
  void requireActing(Epoch e) throws NotActingException {
    Standing s = standing.get();
    if (s.role() != Role.LEADER || s.epoch() != e || !latch.hasLeadership()) {
      throw new NotActingException(
          "no longer leader with epoch " + e.version() + " (" + s.role() + "): target not sent");
    }
  }

  /**
   * True while this instance is the leader with a claimed epoch and a live ZooKeeper connection.
   */
  boolean isActing() {
    Standing s = standing.get();
    return s.role() == Role.LEADER
        && client.getState() == CuratorFrameworkState.STARTED
        && latch.hasLeadership();
  }

  /** The epoch held, or null when not acting. */
  Epoch held() {
    return standing.get().epoch();
  }

  boolean connected() {
    return standing.get().connected();
  }

  Role role() {
    return standing.get().role();
  }

  /** The whole standing at one moment. */
  Standing standing() {
    return standing.get();
  }

  private void closeLatch(LeaderLatch l) {
    try {
      l.close();
    } catch (Exception | AssertionError e) {
      LOG.debug("leader latch of {} did not close cleanly: {}", instanceId, e.toString());
    }
  }
}
