package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.loan.LoanDemand;
import io.aryl.api.loan.LoanTarget;
import io.aryl.core.loan.LoanPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The controller against a scheduler in memory ({@link FakeScheduler}: 4 inference nodes, fencing
 * targets by epoch as ArylScheduler does) and a real (embedded) ZooKeeper. Decisions every 50 ms;
 * 100 rps per server, no headroom, no margin, at most 4 more on loan at once, the rest back within
 * 30 s.
 */
@DisplayName("LoanController: a leader-elected decider that sends the loan target")
class LoanControllerTest {
  private static final String ROOT = "/aryl/lc";

  private TestingServer zk;
  private final FakeScheduler scheduler = new FakeScheduler(4);
  private final AtomicReference<Double> rate = new AtomicReference<>(400.0);
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    zk = new TestingServer();
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).close();
      } catch (Exception e) {
        // already gone
      }
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

  private LoanController controller(String id, CuratorFramework c) throws Exception {
    return controller(id, c, 0, System::currentTimeMillis);
  }

  private LoanController controller(String id, CuratorFramework c, long holdMs, AtomicLong clock)
      throws Exception {
    return controller(id, c, holdMs, clock::get);
  }

  private LoanController controller(
      String id, CuratorFramework c, long holdMs, java.util.function.LongSupplier clock)
      throws Exception {
    LoanController.Config cfg =
        new LoanController.Config(
            id,
            ROOT,
            50,
            new LoanDecider.Settings(new LoanPolicy(100, 0, 0), holdMs, 0, 4, 30_000));
    LoanController lc = new LoanController(c, cfg, List.of(() -> rate.get()), scheduler, clock);
    open.add(lc);
    lc.start();
    return lc;
  }

  private static int latchCandidates(CuratorFramework c) {
    try {
      return c.getChildren().forPath(ROOT + "/leader").size();
    } catch (Exception e) {
      return 0;
    }
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

  private List<LoanTarget> receivedFrom(String controller) {
    return scheduler.received.stream().filter(t -> t.controller().equals(controller)).toList();
  }

  private int inForce() {
    return scheduler.target() == null ? -1 : scheduler.target().maxOnLoan();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> part(LoanController lc, String key) {
    return (Map<String, Object>) lc.status().get(key);
  }

  @Test
  @DisplayName(
      "demand falls: the target rises and the scheduler lends; demand rises: it is lowered at once, with a"
          + " deadline")
  void raisesAsDemandFallsAndLowersAsItRises() throws Exception {
    LoanController lc = controller("a", client());
    await("a leads and sends target 0", () -> lc.isActing() && inForce() == 0);
    assertThat(scheduler.target().epoch()).isEqualTo(lc.epoch());
    assertThat(scheduler.target().controller()).isEqualTo("a");

    rate.set(150.0); // needs 2 of 4
    await("target 2, 2 lent", () -> inForce() == 2 && scheduler.onLoan() == 2);

    long rise = System.currentTimeMillis();
    rate.set(400.0);
    await("target 0", () -> inForce() == 0);
    LoanTarget lowered =
        scheduler.received.stream()
            .filter(t -> t.maxOnLoan() == 0 && t.returnByMs() > 0)
            .findFirst()
            .orElseThrow();
    assertThat(lowered.returnByMs())
        .as("the rest back within 30 s of the decision")
        .isBetween(rise + 30_000, System.currentTimeMillis() + 30_000);
    assertThat(lowered.epoch()).isEqualTo(lc.epoch());
    assertThat(lowered.reason()).contains("lowered from 2 to 0");
    assertThat(lowered.demand())
        .as("the demand it was decided on: no forecast configured, no time to serve assumed")
        .isEqualTo(new LoanDemand(400, 400, 4, 0));
    await(
        "the reclaim it drove is measured once the scheduler shows the nodes home",
        () -> {
          Map<String, Object> d = part(lc, "decision");
          return d != null
              && ((Map<?, ?>) ((Map<?, ?>) d.get("timeToServe")).get("reclaim"))
                  .get("measured")
                  .equals(1);
        });

    Map<String, Object> status = lc.status();
    assertThat(status).containsEntry("role", "LEADER").containsEntry("acting", true);
    assertThat(part(lc, "lastTarget"))
        .containsEntry("answer", "ACCEPTED")
        .containsEntry("maxOnLoan", 0);
    assertThat(part(lc, "counters"))
        .containsEntry("raised", 1L)
        .containsEntry("lowered", 1L)
        .containsEntry("epochsClaimed", 1L);
  }

  @Test
  @DisplayName(
      "nodes that are busy are not lent: the target is a ceiling, and it is raised from what is on loan")
  void theTargetIsACeiling() throws Exception {
    scheduler.busy = 3;
    LoanController lc = controller("a", client());
    rate.set(0.0);
    await("target 4", () -> inForce() == 4);
    Thread.sleep(300);
    assertThat(scheduler.onLoan()).as("only the idle node is lent").isEqualTo(1);
    assertThat(lc.lastTarget()).isEqualTo(4);
  }

  @Test
  @DisplayName(
      "without ZooKeeper nothing is sent; with it back, the leader claims a newer epoch and goes on")
  void withoutZooKeeperNothingIsSent() throws Exception {
    LoanController lc = controller("a", client());
    await("a leads", () -> lc.isActing() && inForce() == 0);
    long first = lc.epoch();
    zk.stop();
    await("a stops acting", () -> !lc.isActing());
    int sent = scheduler.received.size();
    rate.set(0.0);
    Thread.sleep(1000);
    assertThat(scheduler.received).as("no target sent without ZooKeeper").hasSize(sent);
    assertThat(lc.role()).isEqualTo(LoanController.Role.SUSPENDED);
    assertThat(lc.status()).containsEntry("zooKeeperConnected", false).containsEntry("epoch", -1L);

    zk.restart();
    await("a leads again and raises the target", () -> lc.isActing() && inForce() == 4);
    assertThat(lc.epoch()).isGreaterThan(first);
  }

  @Test
  @DisplayName(
      "ZooKeeper session expiry: the leader stops acting at once and the other leads under a newer epoch")
  void anExpiredSessionDeposesTheLeader() throws Exception {
    CuratorFramework ca = client();
    LoanController a = controller("a", ca);
    await("a leads", () -> a.isActing() && inForce() == 0);
    CuratorFramework cb = client();
    LoanController b = controller("b", cb);
    long first = a.epoch();
    await("b is a candidate", () -> latchCandidates(cb) == 2);
    KillSession.kill(ca.getZookeeperClient().getZooKeeper());
    await("a stops acting", () -> !a.isActing());
    await("b leads", b::isActing);
    assertThat(b.epoch()).isGreaterThan(first);
    rate.set(100.0);
    await(
        "b raises the target", () -> inForce() == 3 && scheduler.target().controller().equals("b"));
    assertThat(scheduler.target().epoch()).isEqualTo(b.epoch());
  }

  @Test
  @DisplayName(
      "a deposed leader's target is refused (409): it stands down, rejoins the election behind the other,"
          + " and the other leads under a newer epoch")
  void aDeposedLeaderStandsDown() throws Exception {
    LoanController a = controller("a", client());
    await("a leads", () -> a.isActing() && inForce() == 0);
    CuratorFramework cb = client();
    LoanController b = controller("b", cb);
    await("b is a candidate", () -> latchCandidates(cb) == 2);
    long aEpoch = a.epoch();
    // Curator 5.2's LeaderLatch sends a candidate whose predecessor vanished before it set its
    // watch on it to the back
    // of the line: give b the moment it takes to watch a's latch node, or a may lead again after
    // resigning.
    Thread.sleep(1000);

    // A successor's target, of a newer epoch, is in force: what a sends next is refused.
    scheduler.inForce(aEpoch + 1, "c", 0);
    await("a stands down", () -> a.standDowns() == 1);
    assertThat(a.targetsStale()).isEqualTo(1);
    assertThat(part(a, "lastTarget"))
        .containsEntry("answer", "STALE")
        .containsEntry("epoch", aEpoch);
    assertThat((String) a.status().get("lastError"))
        .contains("refused")
        .contains("epoch " + (aEpoch + 1));

    await("b leads", b::isActing);
    assertThat(a.isActing()).as("a rejoined behind b").isFalse();
    assertThat(a.role()).isEqualTo(LoanController.Role.STANDBY);
    await("b's target in force", () -> scheduler.target().controller().equals("b"));
    assertThat(scheduler.target().epoch()).isEqualTo(b.epoch()).isEqualTo(aEpoch + 1);
    Thread.sleep(300);
    assertThat(receivedFrom("a"))
        .as("a sent nothing after it stood down")
        .allSatisfy(t -> assertThat(t.epoch()).isEqualTo(aEpoch));
    assertThat(a.standDowns()).isEqualTo(1);
  }

  @Test
  @DisplayName(
      "a controller failover keeps the target: the new leader starts from the target in force, not from what"
          + " is on loan, and does not raise it before its own hold")
  void aFailoverKeepsTheTarget() throws Exception {
    AtomicLong clock = new AtomicLong(1_000_000);
    scheduler.clock = clock::get;
    scheduler.busy = 2; // of the 3 the target allows, 2 can be lent
    CuratorFramework ca = client();
    LoanController a = controller("a", ca, 10_000, clock);
    await("a leads", () -> a.isActing() && inForce() == 0);
    rate.set(100.0); // needs 1 of 4: 3 may be on loan after the 10 s hold
    await(
        "a starts its hold",
        () -> String.valueOf(part(a, "decision").get("reason")).contains("held"));
    clock.addAndGet(10_000);
    await("a raises the target to 3", () -> inForce() == 3);
    assertThat(scheduler.onLoan()).isEqualTo(2);

    CuratorFramework cb = client();
    LoanController b = controller("b", cb, 10_000, clock);
    await("b is a candidate", () -> latchCandidates(cb) == 2);
    a.close();
    rate.set(0.0); // 4 may be on loan now, but b must hold first
    await("b leads and sends its first target", () -> b.isActing() && !receivedFrom("b").isEmpty());
    Thread.sleep(300);
    assertThat(receivedFrom("b"))
        .as("b keeps the target in force")
        .allSatisfy(
            t -> {
              assertThat(t.maxOnLoan()).isEqualTo(3);
              assertThat(t.epoch()).isEqualTo(b.epoch());
            });
    assertThat(scheduler.target().controller()).isEqualTo("b");
    assertThat(scheduler.onLoan()).as("nothing taken back").isEqualTo(2);

    clock.addAndGet(10_000);
    await("b raises after its own hold", () -> inForce() == 4);
  }

  @Test
  @DisplayName(
      "the scheduler cannot be reached: nothing is sent, the status says so and keeps the error; once back,"
          + " the target is sent again")
  void anUnreachableSchedulerGetsNothing() throws Exception {
    LoanController lc = controller("a", client());
    await("a leads", () -> lc.isActing() && inForce() == 0);
    scheduler.down = true;
    await(
        "the status shows the scheduler unreachable",
        () ->
            part(lc, "scheduler") != null
                && Boolean.FALSE.equals(part(lc, "scheduler").get("reachable")));
    assertThat(part(lc, "decision")).containsEntry("change", "NONE");
    assertThat((String) part(lc, "decision").get("reason"))
        .contains("the scheduler cannot be reached");
    assertThat((String) lc.status().get("lastError")).contains("Connection refused");
    int sent = scheduler.received.size();
    Thread.sleep(300);
    assertThat(scheduler.received).hasSize(sent);

    rate.set(0.0);
    scheduler.down = false;
    await("sent again once back", () -> inForce() == 4);
    assertThat((String) lc.status().get("lastError"))
        .as("the last error is kept")
        .contains("Connection refused");
  }

  @Test
  @DisplayName(
      "a target the scheduler cannot take now (503) is shown refused and sent again at the next decision")
  void aRefusedTargetIsSentAgain() throws Exception {
    LoanController lc = controller("a", client());
    await("a leads", () -> lc.isActing() && inForce() == 0);
    scheduler.refusesWith = 503;
    rate.set(0.0);
    await("refused", () -> "REFUSED".equals(part(lc, "lastTarget").get("answer")));
    assertThat((String) part(lc, "lastTarget").get("detail")).startsWith("503: Aryl is recovering");
    assertThat(lc.isActing()).as("a refusal is not a deposition").isTrue();
    scheduler.refusesWith = 0;
    await("accepted at a later decision", () -> inForce() == 4);
  }

  @Test
  @DisplayName("while the scheduler recovers the target is not raised, and the reason says so")
  void aRecoveringSchedulerKeepsTheTarget() throws Exception {
    LoanController lc = controller("a", client());
    await("a leads", () -> lc.isActing() && inForce() == 0);
    scheduler.recovering = true;
    rate.set(0.0);
    await(
        "a decision while it recovers",
        () -> String.valueOf(part(lc, "decision").get("reason")).contains("recovering"));
    Thread.sleep(300);
    assertThat(inForce()).isZero();
    assertThat(part(lc, "scheduler")).containsEntry("recovering", true);
    scheduler.recovering = false;
    await("raised once it has recovered", () -> inForce() == 4);
  }
}
