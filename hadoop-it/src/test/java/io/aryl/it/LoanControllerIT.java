package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.loan.LoanDemand;
import io.aryl.api.status.LoanTargetStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.labels.LoanController;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loan controller on a real ResourceManager running ArylScheduler, with an embedded ZooKeeper:
 * inference nodes 0-2 (8 GPUs each), training's own node 3. Demand is set by the test; 100 rps per
 * server, no margin, no hold. The controller sends the loan target; the scheduler lends and
 * reclaims to meet it.
 */
class LoanControllerIT {

  @TempDir Path dir;

  private LoanRig rig(String name) throws Exception {
    return new LoanRig(
        ArylMiniCluster.start(name, ArylMiniCluster.testConf(dir.toFile()), 3, 1), 3);
  }

  @Test
  @DisplayName(
      "demand falls: the target rises, the scheduler lends idle inference nodes and training uses them;"
          + " demand rises: the target is lowered and they come back by its deadline")
  void targetRisesAsDemandFallsAndFallsAsItRises() throws Exception {
    try (LoanRig rig = rig("loan")) {
      ArylMiniCluster cluster = rig.cluster;
      LoanController lc = rig.controller("a", rig.client());
      LoanRig.PoolWatch watch = rig.watch();
      cluster.awaitShowingStatus(
          "the controller leads and its target 0 is in force",
          () -> lc.isActing() && rig.targetFrom(lc, 0));
      Thread.sleep(600);
      assertThat(rig.count("training")).as("300 rps needs all 3 servers").isZero();

      long fallMs = System.currentTimeMillis();
      rig.rate.set(100.0);
      cluster.awaitShowingStatus(
          "target 2 in force and 2 idle inference nodes lent",
          () -> rig.targetFrom(lc, 2) && rig.count("training") == 2);
      long lentAfterMs = System.currentTimeMillis() - fallMs;
      SchedulerStatus lent = cluster.status();
      assertThat(lent.loanedNodes()).as("the scheduler sees the loans").hasSize(2);
      assertThat(lent.loanTarget().onLoan()).isEqualTo(2);
      Set<String> onLoan =
          lent.nodes().stream()
              .filter(n -> n.place() == NodeStatus.Place.LENT)
              .map(NodeStatus::node)
              .collect(Collectors.toSet());
      assertThat(onLoan).hasSize(2);
      assertThat(lc.status()).containsEntry("role", "LEADER");

      try (TestJob job =
          TestJob.submit(cluster, "t", "training", TestJob.shape(1, 24, 1, 3600), 1, false)) {
        job.askWorkersAtOnce(24);
        cluster.awaitShowingStatus(
            "training fills its node and both lent ones", () -> job.workers() == 24);
        assertThat(job.workersByNode())
            .as("workers on the lent nodes")
            .containsKeys(onLoan.toArray(String[]::new));

        long riseMs = System.currentTimeMillis();
        rig.rate.set(300.0);
        cluster.awaitShowingStatus("target 0 in force", () -> rig.targetFrom(lc, 0));
        LoanTargetStatus lowered = rig.target();
        assertThat(lowered.returnByMs())
            .as("the rest back within the controller's deadline")
            .isBetween(riseMs, System.currentTimeMillis() + LoanRig.DEADLINE_MS);
        cluster.awaitShowingStatus(
            "both lent nodes back home, the reclaim done",
            () -> rig.count("inference") == 3 && rig.noReclaimInFlight());
        long homeAfterMs = System.currentTimeMillis() - riseMs;

        SchedulerStatus s = cluster.status();
        assertThat(s.reclaimsDone()).as("one reclaim of both nodes").hasSize(1);
        ReclaimStatus done = s.reclaimsDone().get(0);
        assertThat(done.nodes()).containsExactlyInAnyOrderElementsOf(onLoan);
        assertThat(done.late()).isFalse();
        assertThat(done.deadlineMs()).as("the target's deadline").isEqualTo(lowered.returnByMs());
        assertThat(done.finishedMs()).isLessThanOrEqualTo(done.deadlineMs());
        assertThat(homeAfterMs)
            .as("ms from the rise to both nodes home")
            .isLessThan(LoanRig.DEADLINE_MS);
        assertThat(lowered.demand())
            .as("the demand the target was decided on, kept with it by the scheduler")
            .isEqualTo(new LoanDemand(300, 300, 3, 0));
        cluster.awaitShowingStatus(
            "the controller measured the reclaim it drove",
            () -> reclaimTimeToServe(lc).get("measured").equals(1));
        assertThat((Long) reclaimTimeToServe(lc).get("lastMs"))
            .as(
                "from its decision to the reclaim's end: at least the reclaim, at most the rise to home"
                    + " (the decision's time is its round's start, up to one interval before it read"
                    + " the rise)")
            .isBetween(done.tookMs(), homeAfterMs + 200);
        assertThat(s.nodes().stream().filter(n -> n.place() != null))
            .as("every inference node home")
            .allSatisfy(n -> assertThat(n.place()).isEqualTo(NodeStatus.Place.HOME));
        // The job hears of its workers' end on its next heartbeat, after the scheduler finished the
        // reclaim.
        cluster.awaitShowingStatus(
            "the job told its workers on the lent nodes ended",
            () -> job.workersByNode().keySet().stream().noneMatch(onLoan::contains));
        assertThat(job.workersByNode())
            .as("training keeps its own node")
            .containsOnlyKeys(cluster.nodeName(3));
        watch.close();
        assertThat(watch.violations).isEmpty();
        assertThat(watch.samples).isPositive();
        System.out.printf(
            "LoanControllerIT: lent %d ms after the fall; home %d ms after the rise (reclaim took %d"
                + " ms, %d containers preempted, %d shrunk); the controller measured %d ms%n",
            lentAfterMs,
            homeAfterMs,
            done.tookMs(),
            done.containersPreempted(),
            done.containersShrunk(),
            (Long) reclaimTimeToServe(lc).get("lastMs"));
      }
    }
  }

  /** The controller's {@code /status} {@code decision.timeToServe.reclaim}. */
  private static Map<?, ?> reclaimTimeToServe(LoanController lc) {
    Map<?, ?> decision = (Map<?, ?>) lc.status().get("decision");
    return decision == null
        ? Map.of("measured", 0)
        : (Map<?, ?>) ((Map<?, ?>) decision.get("timeToServe")).get("reclaim");
  }

  @Test
  @DisplayName(
      "ZooKeeper down: no target is sent and nothing new is lent, while the scheduler keeps scheduling")
  void withoutZooKeeperNothingIsLent() throws Exception {
    try (LoanRig rig = rig("zk-down")) {
      ArylMiniCluster cluster = rig.cluster;
      LoanController lc = rig.controller("a", rig.client());
      cluster.awaitShowingStatus(
          "the controller leads and its target 0 is in force",
          () -> lc.isActing() && rig.targetFrom(lc, 0));
      long epoch = lc.epoch();

      rig.zk.stop();
      cluster.awaitShowingStatus("the controller stops acting", () -> !lc.isActing());
      long received = rig.target().receivedMs();
      rig.rate.set(0.0);
      try (TestJob job =
          TestJob.submit(cluster, "t", "training", TestJob.shape(1, 8, 1, 3600), 1, true)) {
        job.askWorkersAtOnce(8);
        cluster.awaitShowingStatus("training still gets its 8 workers", () -> job.workers() == 8);
        Thread.sleep(2000);
        assertThat(job.workersByNode()).isEqualTo(Map.of(cluster.nodeName(3), 8));
      }
      assertThat(rig.count("inference")).as("nothing lent without ZooKeeper").isEqualTo(3);
      assertThat(rig.target().receivedMs())
          .as("no target sent without ZooKeeper")
          .isEqualTo(received);
      assertThat(rig.target().maxOnLoan()).as("the target in force stands").isZero();
      assertThat(lc.role()).isEqualTo(LoanController.Role.SUSPENDED);

      rig.zk.restart();
      cluster.awaitShowingStatus(
          "with ZooKeeper back, a newer epoch raises the target and the idle nodes are lent",
          () -> rig.targetFrom(lc, 3) && rig.count("training") == 3);
      assertThat(lc.epoch()).isGreaterThan(epoch);
    }
  }
}
