package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.aryl.core.loan.LoanPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

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

  /**
   * The scheduler restarts or fails over to another ResourceManager: a new scheduler first recovers, and may not know
   * the reclaims asked of its predecessor. The controller runs on a clock the test sets, so that grace periods,
   * deadlines and backoffs are exact; its decisions still come every 50 ms of real time.
   */
  @Nested
  @DisplayName("across a restart or failover of the scheduler")
  class AcrossSchedulerFailover {
    static final long INTERVAL_MS = 50;
    static final long DEADLINE_MS = 30_000;
    static final long GRACE_MS = 10_000;

    private final AtomicLong clock = new AtomicLong(System.currentTimeMillis());
    private long t0;

    private LoanController onTestClock() throws Exception {
      return onTestClock(0);
    }

    private LoanController onTestClock(long loanHoldMs) throws Exception {
      pools.clock = clock::get;
      LoanController.Config cfg = new LoanController.Config("a", "inference", "training", "/aryl/lc", INTERVAL_MS,
          DEADLINE_MS, GRACE_MS, new LoanDecider.Settings(new LoanPolicy(100, 0, 0), loanHoldMs, 0, 4));
      LoanController lc = new LoanController(client(), cfg, List.of(() -> rate.get()), pools, clock::get);
      open.add(lc);
      lc.start();
      await("a leads", lc::isActing);
      return lc;
    }

    /** Two nodes loaned, then asked back at {@link #t0}: they are RECLAIMING under one reclaim due at t0 + 30 s. */
    private LoanController twoReclaiming() throws Exception {
      LoanController lc = onTestClock();
      rate.set(150.0);
      await("2 loaned", () -> inState(lc, LoanState.LOANED) == 2);
      t0 = clock.get();
      rate.set(400.0);
      await("2 reclaiming", () -> inState(lc, LoanState.RECLAIMING) == 2);
      assertThat(pools.reclaimRequests.get()).isEqualTo(1);
      return lc;
    }

    /** Waits until {@code n} more decisions have started: the last n - 1 saw whatever the test set before. */
    private void awaitTicks(LoanController lc, int n) throws InterruptedException {
      long until = lc.ticks() + n;
      await(n + " more decisions", () -> lc.ticks() >= until);
    }

    /**
     * Sets the clock and waits until a whole decision has run on it: from then on no decision mixes the time before
     * with what the test changes next.
     */
    private void setClock(LoanController lc, long ms) throws InterruptedException {
      clock.set(ms);
      awaitTicks(lc, 2);
    }

    private long reclaimingUnder(LoanController lc, long reclaimId) {
      return lc.ledgerView().stream().filter(e -> e.state() == LoanState.RECLAIMING && e.reclaimId() == reclaimId)
          .count();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> status(LoanController lc, String field) {
      return (Map<String, Object>) lc.status().get(field);
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> ledgerStatus(LoanController lc) {
      return (List<Map<String, Object>>) lc.status().get("ledger");
    }

    /** What the scheduler says during one step of a scenario. */
    enum Says {
      /** It lists the reclaim: the one the controller asked, or a successor that recovered it. */
      LISTS(false, false, false),
      /** Reachable, settled, and it does not know the reclaim. */
      FORGOT(false, true, false),
      /** A new scheduler waiting for the NodeManagers to re-register; it does not list the reclaim (yet). */
      RECOVERING(true, true, false),
      /** Its REST resource does not answer. */
      UNREACHABLE(false, true, true);

      final boolean recovering;
      final boolean forgets;
      final boolean down;

      Says(boolean recovering, boolean forgets, boolean down) {
        this.recovering = recovering;
        this.forgets = forgets;
        this.down = down;
      }

      void apply(FakePools pools) {
        pools.recovering = recovering;
        pools.forgetsReclaims = forgets;
        pools.schedulerDown = down;
      }
    }

    /** At {@code atMs} after the reclaim was asked for, the scheduler says {@code says}. */
    record Step(long atMs, Says says) {
      @Override
      public String toString() {
        return says + "@" + atMs;
      }
    }

    /** The clock first, then the scheduler: a period of not listing starts exactly at its step. */
    private void play(LoanController lc, List<Step> steps) throws InterruptedException {
      for (Step s : steps) {
        setClock(lc, t0 + s.atMs());
        s.says().apply(pools);
        awaitTicks(lc, 3);
      }
    }

    static Stream<Arguments> reclaimsThatStay() {
      long d = DEADLINE_MS;
      long g = GRACE_MS;
      return Stream.of(
          arguments("the scheduler recovers, long past the deadline and the grace",
              List.of(new Step(d + g + 1, Says.RECOVERING))),
          arguments("unknown for less than the grace, past the deadline",
              List.of(new Step(d + 1, Says.FORGOT), new Step(d + g, Says.FORGOT))),
          arguments("unknown for longer than the grace, before the deadline",
              List.of(new Step(1, Says.FORGOT), new Step(g + 1, Says.FORGOT))),
          arguments("unknown for longer than the grace in all, but listed again in between",
              List.of(new Step(d + 1, Says.FORGOT), new Step(d + g / 2, Says.LISTS),
                  new Step(d + g / 2 + 1, Says.FORGOT), new Step(d + g + 2, Says.FORGOT))),
          arguments("unknown for longer than the grace in all, but recovering in between",
              List.of(new Step(d + 1, Says.FORGOT), new Step(d + g / 2, Says.RECOVERING),
                  new Step(d + g / 2 + 1, Says.FORGOT), new Step(d + g + 2, Says.FORGOT))),
          arguments("unknown for longer than the grace in all, but unreachable in between",
              List.of(new Step(d + 1, Says.FORGOT), new Step(d + g / 2, Says.UNREACHABLE),
                  new Step(d + g / 2 + 1, Says.FORGOT), new Step(d + g + 2, Says.FORGOT))));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("reclaimsThatStay")
    @DisplayName("a reclaim the scheduler does not list stays RECLAIMING, and is not asked for again, when")
    void aReclaimStaysReclaiming(String name, List<Step> steps) throws Exception {
      LoanController lc = twoReclaiming();
      play(lc, steps);
      assertThat(reclaimingUnder(lc, 1)).as("both nodes still RECLAIMING under reclaim 1").isEqualTo(2);
      assertThat(pools.reclaimRequests.get()).as("no second reclaim").isEqualTo(1);
    }

    @Test
    @DisplayName("a reclaim the scheduler does not list while it recovers stays RECLAIMING; once it has recovered,"
        + " the grace starts")
    void aReclaimUnknownWhileRecoveringStays() throws Exception {
      LoanController lc = twoReclaiming();
      play(lc, List.of(new Step(DEADLINE_MS + 5 * GRACE_MS, Says.RECOVERING)));
      assertThat(reclaimingUnder(lc, 1)).isEqualTo(2);
      assertThat(status(lc, "decision").get("reason").toString()).contains("no decision: the scheduler is recovering");
      assertThat(status(lc, "scheduler")).containsEntry("reachable", true).containsEntry("recovering", true);

      long recovered = DEADLINE_MS + 5 * GRACE_MS + 1;
      play(lc, List.of(new Step(recovered, Says.FORGOT), new Step(recovered + GRACE_MS - 1, Says.FORGOT)));
      assertThat(reclaimingUnder(lc, 1)).as("the grace counts from the end of the recovery").isEqualTo(2);
      assertThat(ledgerStatus(lc)).filteredOn(m -> "RECLAIMING".equals(m.get("state"))).hasSize(2)
          .allSatisfy(m -> assertThat(m).containsEntry("unlistedSinceMs", t0 + recovered));
      assertThat(pools.reclaimRequests.get()).isEqualTo(1);
    }

    @Test
    @DisplayName("a reclaim unknown for longer than the grace goes back to LOANED after its deadline, and is asked"
        + " for anew")
    void aReclaimUnknownPastGraceAndDeadlineIsAskedForAnew() throws Exception {
      LoanController lc = twoReclaiming();
      play(lc, List.of(new Step(1, Says.FORGOT), new Step(DEADLINE_MS, Says.FORGOT)));
      assertThat(reclaimingUnder(lc, 1)).as("unknown for far longer than the grace, but the deadline is now")
          .isEqualTo(2);
      assertThat(pools.reclaimRequests.get()).isEqualTo(1);

      setClock(lc, t0 + DEADLINE_MS + 1);
      await("a second reclaim", () -> pools.reclaimRequests.get() == 2);
      await("both nodes reclaiming under it", () -> reclaimingUnder(lc, 2) == 2);
      assertThat(lc.ledgerView()).filteredOn(e -> e.state() == LoanState.RECLAIMING)
          .allSatisfy(e -> assertThat(e.deadlineMs()).isEqualTo(t0 + DEADLINE_MS + 1 + DEADLINE_MS));
    }

    @ParameterizedTest(name = "the scheduler is {0}")
    @EnumSource(value = Says.class, names = {"RECOVERING", "UNREACHABLE"})
    @DisplayName("no decision while the scheduler recovers or cannot be reached: nothing loaned, nothing reclaimed,"
        + " and the status says why")
    void noDecisionWhileTheSchedulerIsNotSettled(Says says) throws Exception {
      LoanController lc = onTestClock();
      rate.set(150.0);
      await("2 loaned", () -> inState(lc, LoanState.LOANED) == 2);

      says.apply(pools);
      awaitTicks(lc, 2); // no decision mixes the scheduler before with the demand after
      rate.set(0.0);
      awaitTicks(lc, 4);
      assertThat(pools.count("training")).as("the 2 idle nodes stay home").isEqualTo(2);
      rate.set(400.0);
      awaitTicks(lc, 4);
      assertThat(pools.reclaimRequests.get()).as("nothing asked back").isZero();
      String reason = status(lc, "decision").get("reason").toString();
      assertThat(reason).startsWith("no decision: the scheduler is " + says.name().toLowerCase());
      assertThat(status(lc, "scheduler")).containsEntry("reachable", says != Says.UNREACHABLE);

      Says.LISTS.apply(pools);
      await("the shortfall is asked back", () -> inState(lc, LoanState.RECLAIMING) == 2);
      assertThat(pools.reclaimRequests.get()).isEqualTo(1);
    }

    @Test
    @DisplayName("after a time without decisions, a loan waits for the whole hold again")
    void theHoldStartsAfreshAfterATimeWithoutDecisions() throws Exception {
      LoanController lc = onTestClock(1_000);
      await("4 home", () -> inState(lc, LoanState.HOME) == 4);
      long start = clock.get();
      rate.set(0.0);
      awaitTicks(lc, 3);
      setClock(lc, start + 600);
      Says.RECOVERING.apply(pools);
      awaitTicks(lc, 3);
      setClock(lc, start + 1_200);
      Says.LISTS.apply(pools);
      awaitTicks(lc, 3);
      assertThat(pools.count("training")).as("held since the recovery ended, not since demand fell").isZero();
      assertThat(status(lc, "decision").get("reason").toString()).contains("held 0 of 1000 ms");

      setClock(lc, start + 2_200);
      await("loaned once the hold has passed since the recovery", () -> pools.count("training") == 4);
    }

    @Test
    @DisplayName("a refused reclaim is retried after a growing backoff, counted, and the status says when")
    void aRefusedReclaimBacksOff() throws Exception {
      LoanController lc = onTestClock();
      rate.set(150.0);
      await("2 loaned", () -> inState(lc, LoanState.LOANED) == 2);
      pools.refusesReclaims = true;
      rate.set(400.0);
      await("a first refusal", () -> pools.reclaimRequests.get() == 1);

      long last = clock.get();
      int requests = 1;
      for (long delay : new long[] {50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 60000, 60000}) {
        clock.set(last + delay - 1);
        awaitTicks(lc, 3);
        assertThat(pools.reclaimRequests.get()).as("not asked again %d ms after a refusal", delay - 1)
            .isEqualTo(requests);
        assertThat(status(lc, "reclaimBackoff")).containsEntry("refusals", requests)
            .containsEntry("nextAttemptMs", last + delay);
        assertThat(status(lc, "counters")).containsEntry("reclaimsRefused", (long) requests);

        clock.set(last + delay);
        int expected = ++requests;
        await("asked again " + delay + " ms after the refusal", () -> pools.reclaimRequests.get() == expected);
        last += delay;
      }
      assertThat(pools.reclaimRequestsMs).as("one request at each backoff's end")
          .containsExactlyElementsOf(requestTimes(last));

      pools.refusesReclaims = false;
      clock.set(last + ReclaimBackoff.MAX_DELAY_MS);
      await("accepted at last", () -> inState(lc, LoanState.RECLAIMING) == 2);
      await("the backoff starts again", () -> lc.status().get("reclaimBackoff") == null);
      assertThat(lc.reclaimsRefused()).isEqualTo(14);
    }

    /** The times of the 14 refused requests, the last of them at {@code last}. */
    private List<Long> requestTimes(long last) {
      long[] delays = {50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 60000, 60000};
      List<Long> out = new ArrayList<>();
      long t = last;
      out.add(0, t);
      for (int i = delays.length - 1; i >= 0; i--) {
        t -= delays[i];
        out.add(0, t);
      }
      return out;
    }

    @Test
    @DisplayName("lastError survives a good decision, with its time, until a newer error replaces it")
    void lastErrorSurvivesAGoodTick() throws Exception {
      LoanController lc = onTestClock();
      await("4 home", () -> inState(lc, LoanState.HOME) == 4);
      assertThat(lc.status()).containsEntry("lastError", null).containsEntry("lastErrorMs", null);

      long t1 = clock.get() + 1_000;
      setClock(lc, t1);
      pools.down = true;
      await("the error shows", () -> String.valueOf(lc.status().get("lastError")).contains("RM down"));
      assertThat(lc.status()).containsEntry("lastErrorMs", t1);

      pools.down = false;
      setClock(lc, t1 + 1_000);
      awaitTicks(lc, 3);
      assertThat(status(lc, "decision").get("reason").toString()).doesNotStartWith("no decision");
      assertThat(lc.status().get("lastError").toString()).contains("the ResourceManager is unreachable: RM down");
      assertThat(lc.status()).containsEntry("lastErrorMs", t1);

      long t2 = t1 + 2_000;
      setClock(lc, t2);
      pools.schedulerDown = true;
      await("a newer error replaces it",
          () -> String.valueOf(lc.status().get("lastError")).contains("the scheduler is unreachable"));
      assertThat(lc.status()).containsEntry("lastErrorMs", t2);
    }
  }
}
