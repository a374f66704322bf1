package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.LoanTargetStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.labels.LoanController;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loan controllers against ResourceManagers that fail over, with one embedded ZooKeeper: leadership
 * changes hands on either side, or both at once, and the target in force, the loans and the
 * reclaims that meet it are kept.
 */
class LoanControllerHaIT {
  /** The controllers' leader latch, under the zkRoot LoanRig gives them. */
  private static final String LATCH = "/aryl/loan-controller/leader";

  @TempDir Path dir;

  @Test
  @DisplayName(
      "a ResourceManager failover, then a controller failover, then both at once: the target in force and"
          + " the lent nodes are kept throughout, and the last leader brings them home through the last RM")
  void failoversOnEitherSideLoseNothing() throws Exception {
    try (LoanRig rig =
        new LoanRig(
            ArylMiniCluster.start("ha-both", ArylMiniCluster.haConf(dir.toFile()), 3, 1), 3)) {
      ArylMiniCluster cluster = rig.cluster;
      CuratorFramework za = rig.client();
      LoanController a = rig.controller("a", za);
      cluster.awaitShowingStatus("a leads", a::isActing);
      CuratorFramework zb = rig.client();
      LoanController b = rig.controller("b", zb);
      CuratorFramework zc = rig.client();
      LoanController c = rig.controller("c", zc);
      LoanRig.PoolWatch pools = rig.watch();

      rig.rate.set(100.0);
      cluster.awaitShowingStatus(
          "a's target 2 in force, 2 nodes lent",
          () -> rig.targetFrom(a, 2) && rig.count("training") == 2);
      Set<String> lent =
          cluster.status().nodes().stream()
              .filter(n -> n.place() == NodeStatus.Place.LENT)
              .map(NodeStatus::node)
              .collect(Collectors.toSet());
      try (TargetWatch targets = new TargetWatch(rig, lent);
          TestJob job =
              TestJob.submit(cluster, "t", "training", TestJob.shape(1, 24, 1, 36000), 1, false)) {
        job.askWorkersAtOnce(24);
        cluster.awaitShowingStatus(
            "training fills all 3 of its nodes",
            () -> job.workers() >= 23 && job.workersByNode().size() == 3);

        // 1. The ResourceManager fails over: the new scheduler reads the target back.
        cluster.failover();
        SchedulerStatus afterRm = ArylStatus.orNull(cluster);
        assertThat(afterRm.loanTarget())
            .as("the target, read back by the new RM before any is sent: %s", afterRm)
            .isNotNull();
        assertThat(afterRm.loanTarget().maxOnLoan()).isEqualTo(2);
        assertThat(afterRm.loanTarget().epoch()).isEqualTo(a.epoch());
        cluster.awaitShowingStatus(
            "a's target accepted by the new RM",
            () ->
                rig.targetFrom(a, 2)
                    && rig.target().receivedMs() > afterRm.loanTarget().receivedMs());

        // 2. The controller fails over: b leads under a newer epoch and keeps the target.
        awaitWatched(rig, "b watches a's latch node", zb, "a");
        long aEpoch = a.epoch();
        KillSession.kill(za.getZookeeperClient().getZooKeeper());
        cluster.awaitShowingStatus("b's target 2 in force", () -> rig.targetFrom(b, 2));
        assertThat(b.epoch()).isGreaterThan(aEpoch);

        // 3. Both at once: b's session dies as the active RM stops; c leads against the new RM.
        awaitWatched(rig, "c watches b's latch node", zc, "b");
        long bEpoch = b.epoch();
        KillSession.kill(zb.getZookeeperClient().getZooKeeper());
        cluster.failover();
        cluster.awaitShowingStatus(
            "c's target 2 in force in the new RM", () -> rig.targetFrom(c, 2));
        assertThat(c.epoch()).isGreaterThan(bEpoch);
        assertThat(a.isActing() || b.isActing()).as("the deposed leaders act no more").isFalse();

        assertThat(targets.lowest).as("the lowest target seen through all three").isEqualTo(2);
        assertThat(targets.sentHome).as("lent nodes seen home before demand rose").isEmpty();
        assertThat(cluster.status().reclaimsDone()).as("nothing reclaimed").isEmpty();
        assertThat(cluster.status().reclaimsInFlight()).isEmpty();

        // 4. Demand rises: c lowers the target, and the last RM brings both nodes home by its
        // deadline.
        targets.stop();
        long riseMs = System.currentTimeMillis();
        rig.rate.set(300.0);
        cluster.awaitShowingStatus(
            "both lent nodes home, the reclaim done",
            () -> rig.count("inference") == 3 && rig.noReclaimInFlight());
        long homeMs = System.currentTimeMillis() - riseMs;
        SchedulerStatus s = cluster.status();
        assertThat(s.loanTarget().maxOnLoan()).isZero();
        assertThat(s.loanTarget().controller()).isEqualTo("c");
        assertThat(s.reclaimsDone()).as("one reclaim of both").hasSize(1);
        assertThat(s.reclaimsDone().get(0).nodes()).containsExactlyInAnyOrderElementsOf(lent);
        assertThat(s.reclaimsDone().get(0).late()).isFalse();
        assertThat(homeMs).isLessThan(LoanRig.DEADLINE_MS);
        pools.close();
        assertThat(pools.violations)
            .as("moments a node was in neither pool or lent busy")
            .isEmpty();
        System.out.printf(
            "LoanControllerHaIT: both nodes home %d ms after the rise, through three failovers%n",
            homeMs);
      }
    }
  }

  @Test
  @DisplayName(
      "ZooKeeper session expiry: the leader stops acting at once and the other leads under a later epoch;"
          + " the deposed leader sends nothing more")
  void anExpiredSessionDeposesTheLeader() throws Exception {
    try (LoanRig rig =
        new LoanRig(
            ArylMiniCluster.start("ha-expiry", ArylMiniCluster.testConf(dir.toFile()), 3, 1), 3)) {
      ArylMiniCluster cluster = rig.cluster;
      CuratorFramework za = rig.client();
      LoanController a = rig.controller("a", za);
      cluster.awaitShowingStatus(
          "a leads with target 0", () -> a.isActing() && rig.targetFrom(a, 0));
      CuratorFramework zb = rig.client();
      LoanController b = rig.controller("b", zb);
      long first = a.epoch();
      // b must be in the election and watching a's latch node before a's session dies: Curator
      // 5.2's LeaderLatch sends
      // a candidate whose predecessor vanished before that watch was set to the back of the line.
      awaitWatched(rig, "b watches a's latch node", zb, "a");

      long killMs = System.currentTimeMillis();
      KillSession.kill(za.getZookeeperClient().getZooKeeper());
      cluster.awaitShowingStatus("a stops acting", () -> !a.isActing());
      long stoppedMs = System.currentTimeMillis() - killMs;
      cluster.awaitShowingStatus("b leads", b::isActing);
      long bLeadsMs = System.currentTimeMillis() - killMs;
      assertThat(b.epoch()).isGreaterThan(first);

      rig.rate.set(100.0);
      cluster.awaitShowingStatus(
          "b's target 2 lends 2 nodes", () -> rig.targetFrom(b, 2) && rig.count("training") == 2);
      long accepted = a.targetsAccepted();
      Thread.sleep(600);
      assertThat(a.targetsAccepted())
          .as("the deposed leader sent nothing more")
          .isEqualTo(accepted);
      assertThat(a.isActing()).isFalse();
      System.out.printf(
          "LoanControllerHaIT: a stopped acting %d ms after its session expired; b led after %d ms%n",
          stoppedMs, bLeadsMs);
    }
  }

  /**
   * Waits until the embedded ZooKeeper holds a watch on {@code predecessor}'s latch node: only a
   * standby watches a latch node, its predecessor's.
   */
  private static void awaitWatched(LoanRig rig, String what, CuratorFramework c, String predecessor)
      throws InterruptedException {
    rig.cluster.awaitShowingStatus(
        what,
        () -> {
          try {
            String node = latchNodeOf(c, predecessor);
            return node != null && rig.watchedPaths().contains(node);
          } catch (Exception e) {
            return false;
          }
        });
  }

  /** The latch node of the instance {@code id} (its data), or null. */
  private static String latchNodeOf(CuratorFramework c, String id) throws Exception {
    for (String child : c.getChildren().forPath(LATCH)) {
      String path = LATCH + "/" + child;
      if (id.equals(new String(c.getData().forPath(path), StandardCharsets.UTF_8))) {
        return path;
      }
    }
    return null;
  }

  /**
   * Samples the target in force and the lent nodes' pools every few milliseconds: the lowest target
   * seen, and any lent node seen home. The moments without an active ResourceManager, or before a
   * node re-registered, show nothing.
   */
  private static final class TargetWatch implements AutoCloseable {
    volatile int lowest = Integer.MAX_VALUE;
    final Set<String> sentHome = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    TargetWatch(LoanRig rig, Set<String> lent) {
      List<Integer> indices = lent.stream().map(rig::indexOf).toList();
      thread =
          new Thread(
              () -> {
                while (running.get()) {
                  LoanTargetStatus t = rig.target();
                  if (t != null) {
                    lowest = Math.min(lowest, t.maxOnLoan());
                  }
                  for (int i : indices) {
                    if ("inference".equals(rig.cluster.partitionOf(i))) {
                      sentHome.add(rig.cluster.nodeName(i));
                    }
                  }
                  try {
                    Thread.sleep(20);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "target-watch");
      thread.setDaemon(true);
      thread.start();
    }

    /** Stops sampling; what was seen stays readable. */
    void stop() {
      running.set(false);
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void close() {
      stop();
    }
  }
}
