package io.aryl.it;

import static io.aryl.it.LoanRig.inState;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.SchedulerStatus;
import io.aryl.labels.LoanController;
import io.aryl.labels.LoanState;
import io.aryl.labels.Pools;
import io.aryl.labels.YarnPools;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two loan controllers against one ResourceManager and one embedded ZooKeeper: leadership changes hands safely. */
class LoanControllerHaIT {
  /** The controllers' leader latch, under the zkRoot LoanRig gives them. */
  private static final String LATCH = "/aryl/loan-controller/leader";
  @TempDir Path dir;

  private LoanRig rig(String name) throws Exception {
    return new LoanRig(ArylMiniCluster.start(name, ArylMiniCluster.testConf(dir.toFile()), 3, 1), 3);
  }

  /** Pools that kill their controller's ZooKeeper client right after the scheduler accepted a reclaim. */
  private static final class DiesAfterReclaim implements Pools {
    private final YarnPools pools;
    private final CuratorFramework zk;

    DiesAfterReclaim(YarnPools pools, CuratorFramework zk) {
      this.pools = pools;
      this.zk = zk;
    }

    @Override
    public List<PoolNode> nodes() throws IOException {
      return pools.nodes();
    }

    @Override
    public void relabel(String node, String label) throws IOException {
      pools.relabel(node, label);
    }

    @Override
    public SchedulerReclaim requestReclaim(int nodes, long deadlineMs) throws IOException, ReclaimRefusedException {
      SchedulerReclaim r = pools.requestReclaim(nodes, deadlineMs);
      zk.close(); // the leader dies before it can record the answer
      return r;
    }

    @Override
    public SchedulerView scheduler() throws IOException {
      return pools.scheduler();
    }
  }

  @Test
  @DisplayName("the leader dies in the middle of a reclaim: the other controller finishes it, no node in both pools or"
      + " in neither")
  void theOtherControllerFinishesAReclaimItsLeaderStarted() throws Exception {
    try (LoanRig rig = rig("ha-reclaim")) {
      ArylMiniCluster cluster = rig.cluster;
      CuratorFramework za = rig.client();
      LoanController a = rig.controller("a", za, new DiesAfterReclaim(rig.pools(), za));
      cluster.awaitShowingStatus("a leads", a::isActing);
      LoanController b = rig.controller("b", rig.client(), rig.pools());
      LoanRig.PoolWatch watch = rig.watch();

      rig.rate.set(100.0);
      cluster.awaitShowingStatus("a loans 2 nodes", () -> rig.count("training") == 2
          && inState(a, LoanState.LOANED) == 2);
      try (TestJob job = TestJob.submit(cluster, "t", "training", TestJob.shape(1, 24, 1, 3600), 1, false)) {
        job.askWorkersAtOnce(24);
        // 23 is as full as 24 for this test: a round that saw one of the GPUs still busy plans 23, and growing a
        // 3600 s job from 23 to 24 workers gains less than the 30 s a re-scale costs, so it stays at 23.
        cluster.awaitShowingStatus("training fills all 3 of its nodes",
            () -> job.workers() >= 23 && job.workersByNode().size() == 3);

        long riseMs = System.currentTimeMillis();
        rig.rate.set(300.0);
        cluster.awaitShowingStatus("b takes over", b::isActing);
        long takeoverMs = System.currentTimeMillis() - riseMs;
        assertThat(a.isActing()).isFalse();
        cluster.awaitShowingStatus("b records the reclaim a asked for", () -> b.reclaimsAdopted() == 1);
        assertThat(cluster.status().reclaimsInFlight()).as("still draining when adopted").hasSize(1);
        cluster.awaitShowingStatus("both nodes home", () -> rig.count("inference") == 3
            && inState(b, LoanState.HOME) == 3);
        long homeMs = System.currentTimeMillis() - riseMs;

        SchedulerStatus s = cluster.status();
        assertThat(s.reclaimsInFlight()).isEmpty();
        assertThat(s.reclaimsDone()).as("one reclaim: adopted, not asked for again").hasSize(1);
        assertThat(s.reclaimsDone().get(0).late()).isFalse();
        assertThat(a.reclaimsRequested()).as("a asked once").isEqualTo(1);
        assertThat(b.reclaimsRequested()).as("b asked for nothing itself").isZero();
        assertThat(b.ledgerView()).as("entries written under epochs up to b's").allSatisfy(
            e -> assertThat(e.epoch()).isLessThanOrEqualTo(b.epoch()));
        assertThat(homeMs).isLessThan(LoanRig.DEADLINE_MS);
        watch.close();
        assertThat(watch.violations).as("moments a node was in neither pool or relabelled busy").isEmpty();
        assertThat(rig.ledgerMatchesLabels(b)).isTrue();
        System.out.printf("LoanControllerHaIT: b led %d ms after the rise; both nodes home %d ms after the rise%n",
            takeoverMs, homeMs);
      }
    }
  }

  @Test
  @DisplayName("ZooKeeper session expiry: the leader stops acting at once and the other leads under a later epoch")
  void anExpiredSessionDeposesTheLeader() throws Exception {
    try (LoanRig rig = rig("ha-expiry")) {
      ArylMiniCluster cluster = rig.cluster;
      CuratorFramework za = rig.client();
      LoanController a = rig.controller("a", za, rig.pools());
      cluster.awaitShowingStatus("a leads", () -> a.isActing() && inState(a, LoanState.HOME) == 3);
      CuratorFramework zb = rig.client();
      LoanController b = rig.controller("b", zb, rig.pools());
      long first = a.epoch();
      // b must be in the election before a's session dies, or a's re-created latch node may come first again.
      cluster.awaitShowingStatus("b is a candidate", () -> latchCandidates(zb) == 2);
      // ...and watching a's latch node. Curator 5.2's LeaderLatch sends a candidate whose predecessor vanished before
      // that watch was set to the back of the line, behind the node a re-creates after the expiry, and a leads again.
      cluster.awaitShowingStatus("b watches a's latch node", () -> watchesALatchNode(rig));

      long killMs = System.currentTimeMillis();
      KillSession.kill(za.getZookeeperClient().getZooKeeper());
      cluster.awaitShowingStatus("a stops acting", () -> !a.isActing());
      long stoppedMs = System.currentTimeMillis() - killMs;
      cluster.awaitShowingStatus("b leads", b::isActing);
      long bLeadsMs = System.currentTimeMillis() - killMs;
      assertThat(b.epoch()).isGreaterThan(first);

      rig.rate.set(100.0);
      cluster.awaitShowingStatus("b loans 2 nodes", () -> rig.count("training") == 2);
      Thread.sleep(600);
      assertThat(b.nodesLoaned()).isEqualTo(2);
      assertThat(a.nodesLoaned()).as("the deposed leader did nothing").isZero();
      assertThat(a.isActing()).isFalse();
      assertThat(rig.ledgerMatchesLabels(b)).isTrue();
      System.out.printf("LoanControllerHaIT: a stopped acting %d ms after its session expired; b led after %d ms%n",
          stoppedMs, bLeadsMs);
    }
  }

  /** Only a standby watches a latch node: its predecessor's. */
  private static boolean watchesALatchNode(LoanRig rig) {
    try {
      return rig.watchedPaths().stream().anyMatch(p -> p.startsWith(LATCH + "/"));
    } catch (IOException e) {
      return false;
    }
  }

  private static int latchCandidates(CuratorFramework c) {
    try {
      return c.getChildren().forPath(LATCH).size();
    } catch (Exception e) {
      return 0;
    }
  }
}
