package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.labels.EpochZnode.Epoch;
import io.aryl.labels.LoanController.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The election's standing, changed from the connection listener's thread and the decision thread
 * alike, against a real (embedded) ZooKeeper; connection events are delivered by the test where
 * their timing matters.
 */
@DisplayName("Leadership: one standing, changed by compare-and-set")
class LeadershipTest {
  private TestingServer zk;
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    zk = new TestingServer();
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    zk.close();
  }

  private CuratorFramework client() throws InterruptedException {
    CuratorFramework c =
        CuratorFrameworkFactory.newClient(
            zk.getConnectString(), 4_000, 2_000, new RetryOneTime(100));
    c.start();
    c.blockUntilConnected();
    open.add(c);
    return c;
  }

  private Leadership leadership(CuratorFramework c, String id, EpochZnode epochs) throws Exception {
    Leadership l = new Leadership(c, epochs, id, "/r/leader");
    open.add(
        () -> {
          l.stop();
          l.leave();
        });
    l.start();
    return l;
  }

  private static void await(String what, BooleanSupplier cond) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.sleep(20);
    }
  }

  @Test
  @DisplayName("an epoch claimed while the connection was suspended in between is not taken up")
  void aClaimRacingASuspensionIsNotTakenUp() throws Exception {
    CuratorFramework c = client();
    AtomicBoolean suspendDuringClaim = new AtomicBoolean(true);
    Leadership[] self = new Leadership[1];
    EpochZnode epochs =
        new EpochZnode(c, "/r") {
          @Override
          Epoch claim(String owner) throws Exception {
            Epoch e = super.claim(owner);
            if (suspendDuringClaim.getAndSet(false)) {
              self[0].stateChanged(
                  c, ConnectionState.SUSPENDED); // the listener's thread, between claim and take-up
            }
            return e;
          }
        };
    Leadership l = leadership(c, "a", epochs);
    self[0] = l;
    await("a holds the latch", l::leads);

    assertThat(l.claim()).as("claimed, but the standing changed meanwhile").isNull();
    assertThat(l.role()).isEqualTo(Role.SUSPENDED);
    assertThat(l.held()).isNull();
    assertThat(l.leads()).as("no decision while suspended").isFalse();

    l.stateChanged(c, ConnectionState.RECONNECTED);
    assertThat(l.role()).isEqualTo(Role.STANDBY);
    await("a holds the latch again", l::leads);
    Epoch e = l.claim();
    assertThat(e.version()).as("a newer epoch than the one not taken up").isEqualTo(2);
    assertThat(l.role()).isEqualTo(Role.LEADER);
    assertThat(l.isActing()).isTrue();
  }

  @Test
  @DisplayName("SUSPENDED or LOST stops the leader acting at once, before its next side effect")
  void aSuspendedConnectionStopsActing() throws Exception {
    CuratorFramework c = client();
    for (ConnectionState lost :
        new ConnectionState[] {ConnectionState.SUSPENDED, ConnectionState.LOST}) {
      Leadership l = leadership(c, "a-" + lost, new EpochZnode(c, "/r"));
      await("leads", l::leads);
      Epoch e = l.claim();
      l.requireActing(e);
      l.stateChanged(c, lost);
      assertThat(l.isActing()).isFalse();
      assertThat(l.held()).isNull();
      assertThatThrownBy(() -> l.requireActing(e))
          .isInstanceOf(Leadership.NotActingException.class)
          .hasMessageContaining("epoch " + e.version());
      l.stop();
      l.leave();
    }
  }

  @Test
  @DisplayName("resigning leaves the election and joins it again behind the other candidate")
  void resignJoinsAtTheBack() throws Exception {
    CuratorFramework ca = client();
    CuratorFramework cb = client();
    Leadership a = leadership(ca, "a", new EpochZnode(ca, "/r"));
    await("a leads", a::leads);
    Epoch ea = a.claim();
    Leadership b = leadership(cb, "b", new EpochZnode(cb, "/r"));
    await(
        "b is a candidate",
        () -> {
          try {
            return cb.getChildren().forPath("/r/leader").size() == 2;
          } catch (Exception ex) {
            return false;
          }
        });
    // Curator 5.2's LeaderLatch sends a candidate whose predecessor vanished before it set its
    // watch on it to the back
    // of the line: give b the moment it takes to watch a's latch node, or a may lead again after
    // resigning.
    Thread.sleep(1000);
    a.resign(ea, "a newer epoch is in force");
    assertThat(a.role()).isEqualTo(Role.STANDBY);
    await("b leads", b::leads);
    assertThat(b.claim().version()).isGreaterThan(ea.version());
    assertThat(a.leads()).as("a waits behind b").isFalse();
    assertThat(a.claim()).as("a standby claims nothing").isNull();
    a.resign(ea, "again"); // nothing left to give up: no effect
    assertThat(a.role()).isEqualTo(Role.STANDBY);
  }

  @Test
  @DisplayName("a standing is LEADER with an epoch, or another role without one")
  void standingInvariant() {
    assertThatThrownBy(() -> new Leadership.Standing(Role.LEADER, null))
        .hasMessageContaining("LEADER");
    assertThatThrownBy(() -> new Leadership.Standing(Role.STANDBY, new Epoch(1, "a")))
        .hasMessageContaining("STANDBY");
  }
}
