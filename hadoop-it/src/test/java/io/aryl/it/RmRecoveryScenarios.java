package io.aryl.it;

import static io.aryl.it.ArylStatus.doneWithId;
import static io.aryl.it.ArylStatus.graceMs;
import static io.aryl.it.ArylStatus.onLoan;
import static io.aryl.it.ArylStatus.orNull;
import static io.aryl.it.ArylStatus.reclaim;
import static io.aryl.it.ArylStatus.roundMs;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.RecoveryStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.labels.LoanController;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Aryl keeps when the ResourceManager goes away: which nodes inference owns, reclaims in
 * flight with their fences and pending kills, and the jobs' workers while their nodes re-register.
 * Each scenario runs once across a real restart ({@link RmRestartIT}) and once across a real
 * failover to the standby ({@link RmFailoverIT}).
 */
abstract class RmRecoveryScenarios {
  /** How long the new scheduler may take, once it runs, to show what it recovered. */
  static final Duration RECOVERED = Duration.ofSeconds(15);

  @TempDir Path dir;

  /** The cluster configuration of the mode. */
  abstract YarnConfiguration conf(File workDir);

  /**
   * Takes the active ResourceManager away and returns once another one runs: a restart or a
   * failover.
   */
  abstract void restartOrFailOver(ArylMiniCluster cluster) throws Exception;

  /** "restart" or "failover", for messages. */
  abstract String event();

  // ---------------------------------------------------------------------------------------------------------------

  @Test
  @DisplayName("a node on loan is still shown on loan afterwards, and a reclaim brings it home")
  void aNodeOnLoanStaysOnLoan() throws Exception {
    try (ArylMiniCluster cluster =
        ArylMiniCluster.start(event() + "-loan-survives", conf(dir.toFile()), 1, 1)) {
      String loaned = cluster.nodeName(0);
      cluster.lend(0); // lent, through the scheduler as the loan controller lends
      cluster.awaitShowingStatus(
          loaned + " shown owner=inference, loaned=true", () -> onLoan(cluster, loaned));

      restartOrFailOver(cluster);

      cluster.awaitShowingStatus(
          loaned + " still shown owner=inference, loaned=true after the " + event(),
          RECOVERED,
          () -> onLoan(cluster, loaned));
      awaitRecovered(cluster);
      ReclaimStatus r = reclaim(cluster, 1, 0);
      assertThat(r.nodes()).containsExactly(loaned);
      cluster.awaitShowingStatus(
          loaned + " back in the inference pool", () -> "inference".equals(cluster.partitionOf(0)));
    }
  }

  @Test
  @DisplayName(
      "a reclaim in flight resumes: its node stays fenced and takes no new worker, workers ignoring the"
          + " PreemptionMessage are killed, the node comes home by the deadline, and the reclaim is recorded once under its"
          + " id")
  void aReclaimInFlightResumes() throws Exception {
    YarnConfiguration conf = conf(dir.toFile());
    conf.setLong(
        "aryl.scheduler.shrink-grace-ms", 7000); // the drain outlasts the restart or failover
    try (ArylMiniCluster cluster = ArylMiniCluster.start(event() + "-reclaim-resumes", conf, 1, 1);
        TestJob e =
            TestJob.submit(cluster, "e", "training", TestJob.shape(1, 16, 1, 36000), 1, false)) {
      String loaned = cluster.nodeName(0);
      e.askWorkersAtOnce(8);
      cluster.awaitShowingStatus(
          "E holds 8 workers on training's own node", () -> e.workers() == 8);
      cluster.lend(0);
      cluster.awaitShowingStatus(loaned + " on loan", () -> onLoan(cluster, loaned));
      e.askWorkersAtOnce(8);
      cluster.awaitShowingStatus(
          "E holds 8 more workers, on the loaned node",
          () -> e.workers() == 16 && e.workersByNode().getOrDefault(loaned, 0) == 8);
      Set<ContainerId> draining = idsOn(e.received(), loaned);
      assertThat(e.launchFailures()).as("workers that could not be launched").isEmpty();

      long deadline = System.currentTimeMillis() + 20_000;
      ReclaimStatus started = reclaim(cluster, 1, deadline);
      long id = started.id();
      assertThat(started.nodes()).containsExactly(loaned);
      cluster.awaitShowingStatus(
          "E told to give up its workers on " + loaned,
          () -> e.preemptionNotices().containsAll(draining));

      restartOrFailOver(cluster);

      SchedulerStatus after = cluster.status();
      NodeStatus shown = after.node(loaned);
      assertThat(shown != null && (shown.fenced() || "inference".equals(shown.label())))
          .as(
              "right after the %s, %s is still fenced (or already home); status %s",
              event(), loaned, after)
          .isTrue();
      e.askWorkers(8); // E asks again for the workers it is losing
      long round = roundMs(conf);
      cluster.awaitShowingStatus(
          loaned + " back in the inference pool by the deadline (plus 3 rounds)",
          Duration.ofMillis(Math.max(1000, deadline - System.currentTimeMillis() + 3 * round)),
          () -> "inference".equals(cluster.partitionOf(0)));
      Thread.sleep(4 * round); // a few more rounds: nothing may land there

      assertThat(idsOn(e.received(), loaned))
          .as("workers E was ever given on %s", loaned)
          .containsExactlyInAnyOrderElementsOf(draining);
      assertThat(statusesOf(e, draining))
          .as("E's workers on %s, which ignored the PreemptionMessage", loaned)
          .hasSize(draining.size())
          .allSatisfy(c -> assertThat(c.getExitStatus()).isEqualTo(ContainerExitStatus.PREEMPTED));
      SchedulerStatus s = cluster.status();
      assertThat(s.reclaimsInFlight()).as("reclaims in flight; status %s", s).isEmpty();
      assertThat(doneWithId(s, id))
          .as("reclaim %d among the finished ones; status %s", id, s)
          .hasSize(1);
      assertThat(s.reclaimsDone()).as("finished reclaims").hasSize(1);
      ReclaimStatus done = doneWithId(s, id).get(0);
      assertThat(done.late()).as("late").isFalse();
      assertThat(done.finishedMs()).as("finishedMs vs the deadline").isLessThanOrEqualTo(deadline);
      assertThat(done.tookMs())
          .as("ms to the relabel: the workers had their grace")
          .isGreaterThanOrEqualTo(graceMs(conf));

      cluster.lend(0); // lent again
      cluster.awaitShowingStatus(loaned + " on loan again", () -> onLoan(cluster, loaned));
      assertThat(reclaim(cluster, 1, 0).id())
          .as("id of a reclaim started after the " + event())
          .isGreaterThan(id);
    }
  }

  @Test
  @DisplayName(
      "a NodeManager re-registering later than the shrink grace destroys nothing: the job keeps every worker,"
          + " is told of no preemption, and none of its containers completes")
  void aLateNodeManagerLosesNothing() throws Exception {
    YarnConfiguration conf = conf(dir.toFile());
    long grace = graceMs(conf);
    long delay = grace + 3000;
    try (ArylMiniCluster cluster = ArylMiniCluster.start(event() + "-late-node", conf, 0, 2);
        TestJob job =
            TestJob.submit(cluster, "j", "training", TestJob.shape(12, 16, 1, 36000), 1, false)) {
      job.askWorkersAtOnce(16);
      cluster.awaitShowingStatus("the job holds 16 workers", () -> job.workers() == 16);
      assertThat(job.workersByNode())
          .isEqualTo(Map.of(cluster.nodeName(0), 8, cluster.nodeName(1), 8));
      assertThat(job.launchFailures()).as("workers that could not be launched").isEmpty();
      String late = cluster.nodeName(0);
      cluster.delayRegistration(0, delay);

      restartOrFailOver(cluster);

      assertThat(cluster.registered(0)).as("%s re-registers %d ms late", late, delay).isFalse();
      assertThat(cluster.scheduler().getNumClusterNodes())
          .as("nodes registered while %s is held back", late)
          .isEqualTo(2);
      SchedulerStatus whileAway = orNull(cluster);
      cluster.awaitShowingStatus(
          late + " re-registered", Duration.ofMillis(delay + 10_000), () -> cluster.registered(0));
      Thread.sleep(
          grace + 4 * roundMs(conf)); // a drain started at the return would have killed by now

      assertThat(job.completed()).as("containers of the job that completed").isEmpty();
      assertThat(job.preemptionNotices()).as("containers the job was told to give up").isEmpty();
      assertThat(job.workers()).isEqualTo(16);
      RecoveryStatus recovery = whileAway == null ? null : whileAway.recovery();
      assertThat(recovery).as("status while %s was away", late).isNotNull();
      assertThat(recovery.recovering()).as("recovering, in %s", whileAway).isTrue();
      assertThat(recovery.waitingForNodes())
          .as("nodes waited for, in %s", whileAway)
          .contains(late);
    }
  }

  @Test
  @DisplayName(
      "the loan controller carries on: the target in force is read back, the reclaim that meets a lowered"
          + " target brings its node home by its deadline, and a later target goes through the new ResourceManager")
  void theLoanControllerCarriesOn() throws Exception {
    YarnConfiguration conf = conf(dir.toFile());
    conf.setLong(
        "aryl.scheduler.shrink-grace-ms", 7000); // the drain outlasts the restart or failover
    try (LoanRig rig =
        new LoanRig(ArylMiniCluster.start(event() + "-loan-controller", conf, 3, 1), 3)) {
      ArylMiniCluster cluster = rig.cluster;
      LoanController lc = rig.controller("a", rig.client());
      cluster.awaitShowingStatus(
          "the controller leads with target 0", () -> lc.isActing() && rig.targetFrom(lc, 0));
      rig.rate.set(100.0);
      cluster.awaitShowingStatus(
          "target 2, 2 nodes lent", () -> rig.targetFrom(lc, 2) && rig.count("training") == 2);
      try (TestJob job =
          TestJob.submit(cluster, "t", "training", TestJob.shape(1, 24, 1, 36000), 1, false)) {
        job.askWorkersAtOnce(24);
        cluster.awaitShowingStatus(
            "training fills its node and both lent ones", () -> job.workers() == 24);
        rig.rate.set(200.0);
        cluster.awaitShowingStatus(
            "target 1, one node being reclaimed",
            () -> {
              SchedulerStatus s = orNull(cluster);
              return rig.targetFrom(lc, 1) && s != null && s.reclaimsInFlight().size() == 1;
            });
        ReclaimStatus reclaim = cluster.status().reclaimsInFlight().get(0);
        int index = rig.indexOf(reclaim.nodes().get(0));

        restartOrFailOver(cluster);
        SchedulerStatus after = orNull(cluster);
        assertThat(after == null ? null : after.loanTarget())
            .as("the target, read back after the %s", event())
            .isNotNull()
            .extracting(t -> t.maxOnLoan())
            .isEqualTo(1);

        long round = roundMs(conf);
        cluster.awaitShowingStatus(
            reclaim.nodes().get(0) + " relabelled inference by its deadline (plus 3 rounds)",
            Duration.ofMillis(
                Math.max(1000, reclaim.deadlineMs() - System.currentTimeMillis() + 3 * round)),
            () -> "inference".equals(cluster.partitionOf(index)));
        assertThat(rig.count("training"))
            .as("the other node stays lent: the target allows 1")
            .isEqualTo(1);

        rig.rate.set(300.0);
        cluster.awaitShowingStatus(
            "target 0, the other lent node reclaimed through the new ResourceManager",
            () -> rig.targetFrom(lc, 0) && rig.count("inference") == 3 && rig.noReclaimInFlight());
        SchedulerStatus s = cluster.status();
        assertThat(doneWithId(s, reclaim.id()))
            .as("the first reclaim, done; status %s", s)
            .hasSize(1)
            .allSatisfy(r -> assertThat(r.late()).as("late").isFalse());
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------------

  /**
   * Waits until Aryl no longer reports itself recovering (it changes nothing, and takes no reclaim,
   * until then).
   */
  static void awaitRecovered(ArylMiniCluster cluster) throws InterruptedException {
    cluster.awaitShowingStatus(
        "Aryl recovered",
        RECOVERED,
        () -> {
          SchedulerStatus s = orNull(cluster);
          return s != null && (s.recovery() == null || !s.recovery().recovering());
        });
  }

  static Set<ContainerId> idsOn(List<Container> containers, String node) {
    return containers.stream()
        .filter(c -> c.getNodeId().toString().equals(node))
        .map(Container::getId)
        .collect(Collectors.toSet());
  }

  static List<ContainerStatus> statusesOf(TestJob job, Set<ContainerId> ids) {
    return job.completed().stream().filter(s -> ids.contains(s.getContainerId())).toList();
  }
}
