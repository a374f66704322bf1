package io.aryl.it;

import static io.aryl.it.LoanRig.inState;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.loan.LoanControllerReport;
import io.aryl.api.status.LoanControllerStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.labels.LoanController;
import io.aryl.labels.LoanState;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loan controller on a real ResourceManager running ArylScheduler, with an embedded ZooKeeper: inference nodes 0-2
 * (8 GPUs each), training's own node 3. Demand is set by the test; 100 rps per server, no margin, no hold.
 */
class LoanControllerIT {

  @TempDir Path dir;

  private LoanRig rig(String name) throws Exception {
    return new LoanRig(ArylMiniCluster.start(name, ArylMiniCluster.testConf(dir.toFile()), 3, 1), 3);
  }

  @Test
  @DisplayName("demand falls: idle inference nodes are loaned and used by training; demand rises: they come back in"
      + " time")
  void loansWhenDemandFallsAndReclaimsWhenItRises() throws Exception {
    try (LoanRig rig = rig("loan")) {
      ArylMiniCluster cluster = rig.cluster;
      LoanController lc = rig.controller("a", rig.client(), rig.pools());
      LoanRig.PoolWatch watch = rig.watch();
      cluster.awaitShowingStatus("the controller leads and records 3 nodes home",
          () -> lc.isActing() && inState(lc, LoanState.HOME) == 3);
      Thread.sleep(600);
      assertThat(rig.count("training")).as("300 rps needs all 3 servers").isZero();

      long fallMs = System.currentTimeMillis();
      rig.rate.set(100.0);
      cluster.awaitShowingStatus("2 idle inference nodes loaned", () -> rig.count("training") == 2
          && inState(lc, LoanState.LOANED) == 2);
      long loanedAfterMs = System.currentTimeMillis() - fallMs;
      assertThat(cluster.status().loanedNodes()).as("the scheduler sees the loans").hasSize(2);
      LoanControllerStatus shown = cluster.status().loanController();
      assertThat(shown.role()).as("the controller's state, in the scheduler's REST resource")
          .isEqualTo(LoanControllerReport.LEADER);
      assertThat(shown.instance()).isEqualTo(lc.instanceId());

      try (TestJob job = TestJob.submit(cluster, "t", "training", TestJob.shape(1, 24, 1, 3600), 1, false)) {
        job.askWorkersAtOnce(24);
        cluster.awaitShowingStatus("training fills its node and both loaned ones", () -> job.workers() == 24);
        Set<String> loaned = new HashSet<>();
        lc.ledgerView().stream().filter(e -> e.state() == LoanState.LOANED).forEach(e -> loaned.add(e.node()));
        assertThat(job.workersByNode()).as("workers on the loaned nodes").containsKeys(loaned.toArray(String[]::new));

        long riseMs = System.currentTimeMillis();
        rig.rate.set(300.0);
        cluster.awaitShowingStatus("both loaned nodes back home", () -> rig.count("inference") == 3
            && inState(lc, LoanState.HOME) == 3);
        long homeAfterMs = System.currentTimeMillis() - riseMs;

        SchedulerStatus s = cluster.status();
        assertThat(s.reclaimsDone()).as("one reclaim of both nodes").hasSize(1);
        ReclaimStatus done = s.reclaimsDone().get(0);
        assertThat(done.nodes()).hasSize(2);
        assertThat(done.late()).isFalse();
        assertThat(done.finishedMs()).isLessThanOrEqualTo(done.deadlineMs());
        assertThat(homeAfterMs).as("ms from the rise to both nodes home").isLessThan(LoanRig.DEADLINE_MS);
        assertThat(lc.reclaimsRequested()).isEqualTo(1);
        assertThat(job.workersByNode()).as("training keeps its own node").containsOnlyKeys(cluster.nodeName(3));
        watch.close();
        assertThat(watch.violations).isEmpty();
        assertThat(watch.samples).isPositive();
        System.out.printf("LoanControllerIT: loaned %d ms after the fall; home %d ms after the rise (reclaim took %d"
            + " ms, %d containers preempted, %d shrunk)%n", loanedAfterMs, homeAfterMs, done.tookMs(),
            done.containersPreempted(), done.containersShrunk());
      }
      assertThat(rig.ledgerMatchesLabels(lc)).isTrue();
    }
  }

  @Test
  @DisplayName("ZooKeeper down: nothing new is loaned while the scheduler keeps scheduling")
  void withoutZooKeeperNothingIsLoanedAndTheSchedulerKeepsScheduling() throws Exception {
    try (LoanRig rig = rig("zk-down")) {
      ArylMiniCluster cluster = rig.cluster;
      LoanController lc = rig.controller("a", rig.client(), rig.pools());
      cluster.awaitShowingStatus("the controller leads", () -> lc.isActing() && inState(lc, LoanState.HOME) == 3);

      rig.zk.stop();
      cluster.awaitShowingStatus("the controller stops acting", () -> !lc.isActing());
      rig.rate.set(0.0);
      try (TestJob job = TestJob.submit(cluster, "t", "training", TestJob.shape(1, 8, 1, 3600), 1, true)) {
        job.askWorkersAtOnce(8);
        cluster.awaitShowingStatus("training still gets its 8 workers", () -> job.workers() == 8);
        Thread.sleep(2000);
        assertThat(job.workersByNode()).isEqualTo(Map.of(cluster.nodeName(3), 8));
      }
      assertThat(rig.count("inference")).as("nothing loaned without ZooKeeper").isEqualTo(3);
      assertThat(lc.nodesLoaned()).isZero();
      assertThat(lc.role()).isEqualTo(LoanController.Role.SUSPENDED);

      rig.zk.restart();
      cluster.awaitShowingStatus("with ZooKeeper back, the idle nodes are loaned", () -> rig.count("training") == 3);
    }
  }
}
