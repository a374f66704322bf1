package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.loan.LoanPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The controller against an in-memory YARN and a real (embedded) ZooKeeper. */
class LoanControllerTest {
  private TestingServer zk;
  private final FakePools pools = new FakePools();
  private final AtomicReference<Double> rate = new AtomicReference<>(400.0);
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    zk = new TestingServer();
    for (int i = 0; i < 4; i++) {
      pools.node("inf-" + i + ":1", "inference", 0);
    }
    pools.node("train-0:1", "training", 3);
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
    CuratorFramework c = CuratorFrameworkFactory.newClient(zk.getConnectString(), 4_000, 2_000, new RetryOneTime(100));
    c.start();
    c.blockUntilConnected();
    open.add(c);
    return c;
  }

  private LoanController controller(String id, CuratorFramework c) throws Exception {
    LoanController.Config cfg = new LoanController.Config(id, "inference", "training", "/aryl/lc", 50, 30_000,
        new LoanDecider.Settings(new LoanPolicy(100, 0, 0), 0, 0, 4));
    LoanController lc = new LoanController(c, cfg, List.of(() -> rate.get()), pools, System::currentTimeMillis);
    open.add(lc);
    lc.start();
    return lc;
  }

  private static int latchCandidates(CuratorFramework c) {
    try {
      return c.getChildren().forPath("/aryl/lc/leader").size();
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

  private static long inState(LoanController c, LoanState s) {
    return c.ledgerView().stream().filter(e -> e.state() == s).count();
  }

  @Test
  void loansWhenDemandFallsAndReclaimsWhenItRises() throws Exception {
    LoanController lc = controller("a", client());
    await("a leads", lc::isActing);
    await("4 nodes home in the ledger", () -> inState(lc, LoanState.HOME) == 4);
    assertThat(pools.count("training")).isZero();

    rate.set(150.0); // needs 2 of 4
    await("2 nodes loaned", () -> pools.count("training") == 2 && inState(lc, LoanState.LOANED) == 2);
    assertThat(lc.ledgerView()).as("the training pool's own node is not in the ledger")
        .noneMatch(e -> e.node().startsWith("train"));

    rate.set(400.0);
    await("2 nodes reclaiming", () -> inState(lc, LoanState.RECLAIMING) == 2);
    assertThat(pools.reclaimRequests.get()).isEqualTo(1);
    Thread.sleep(300);
    assertThat(pools.reclaimRequests.get()).as("nodes coming back are not asked for twice").isEqualTo(1);
    pools.finishReclaims();
    await("all home", () -> inState(lc, LoanState.HOME) == 4);
    assertThat(lc.ledgerView()).allSatisfy(e -> assertThat(e.state()).isEqualTo(LoanState.HOME));
    assertThat(lc.status()).containsEntry("role", "LEADER");
  }

  @Test
  void busyNodesAreNotLoaned() throws Exception {
    pools.node("inf-0:1", "inference", 2);
    pools.node("inf-1:1", "inference", 1);
    LoanController lc = controller("a", client());
    rate.set(0.0);
    await("the 2 idle nodes loaned", () -> pools.count("training") == 2);
    Thread.sleep(300);
    assertThat(pools.labels).containsEntry("inf-0:1", "inference").containsEntry("inf-1:1", "inference");
    assertThat(lc.nodesLoaned()).isEqualTo(2);
  }

  @Test
  void aSuccessorAdoptsTheReclaimItsPredecessorAskedForButNeverRecorded() throws Exception {
    CuratorFramework ca = client();
    LoanController a = controller("a", ca);
    await("a leads", a::isActing);
    LoanController b = controller("b", client());
    rate.set(100.0);
    await("3 loaned", () -> pools.count("training") == 3);

    // a dies right after the scheduler accepted its reclaim, before it could record the answer.
    pools.afterReclaimAccepted = () -> {
      pools.afterReclaimAccepted = () -> {};
      ca.close();
    };
    rate.set(400.0);
    await("b leads", b::isActing);
    await("b records 3 nodes reclaiming", () -> inState(b, LoanState.RECLAIMING) == 3);
    assertThat(b.reclaimsAdopted()).isEqualTo(1);
    assertThat(b.epoch()).isGreaterThan(a.epoch());
    assertThat(pools.reclaimRequests.get()).as("the reclaim is adopted, not asked for again").isEqualTo(1);
    pools.finishReclaims();
    await("b brings them home", () -> inState(b, LoanState.HOME) == 4);
    assertThat(pools.reclaimRequests.get()).isEqualTo(1);
  }

  @Test
  void withoutZooKeeperNothingIsLoaned() throws Exception {
    LoanController lc = controller("a", client());
    await("a leads", lc::isActing);
    await("ledger written", () -> inState(lc, LoanState.HOME) == 4);
    zk.stop();
    await("a stops acting", () -> !lc.isActing());
    rate.set(0.0);
    Thread.sleep(1500);
    assertThat(pools.count("training")).isZero();
    assertThat(pools.relabels.get()).isZero();
    assertThat(lc.role()).isEqualTo(LoanController.Role.SUSPENDED);

    zk.restart();
    await("a leads again", lc::isActing);
    await("then loans", () -> pools.count("training") == 4);
  }

  @Test
  void anExpiredSessionDeposesTheLeaderAndTheOtherTakesOver() throws Exception {
    CuratorFramework ca = client();
    LoanController a = controller("a", ca);
    await("a leads", a::isActing);
    CuratorFramework cb = client();
    LoanController b = controller("b", cb);
    long first = a.epoch();
    // b must be in the election before a's session dies, or a's re-created latch node may come first again.
    await("b is a candidate", () -> latchCandidates(cb) == 2);
    KillSession.kill(ca.getZookeeperClient().getZooKeeper());
    await("a stops acting", () -> !a.isActing());
    await("b leads", b::isActing);
    assertThat(b.epoch()).isGreaterThan(first);
    rate.set(100.0);
    await("b loans", () -> pools.count("training") == 3);
    assertThat(b.nodesLoaned()).isEqualTo(3);
    assertThat(a.nodesLoaned()).isZero();
  }
}
