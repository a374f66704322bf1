package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.SchedulerStatus;
import io.aryl.api.status.TeamStatus;
import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The training pool shared by two teams, {@code root.training.vision} (60% of the training
 * partition) and {@code root.training.nlp} (40%), on two training nodes of 8 GPUs: 16 GPUs, of
 * which vision is guaranteed 9 and nlp 6. Each team's jobs are real applications of its queue; the
 * ResourceManager runs Aryl from the templates. The round's decisions (what is asked back, from
 * whom, the guarantees) are specified by aryl-yarn-scheduler's {@code engine.TeamGuaranteesTest};
 * here, that they reach real applications through the Capacity Scheduler's queues.
 */
@DisplayName(
    "Teams: each child queue of the training queue is guaranteed its capacity's share; borrowed GPUs go back")
class TeamsIT extends OneClusterPerClass {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final long ROUND_MS = 250;
  private static final long GRACE_MS = 2000;

  /**
   * The templates' cluster with the training queue split into two team queues, 60/40 in the
   * training partition.
   */
  static YarnConfiguration teamsConf(File dir) {
    YarnConfiguration conf = ArylMiniCluster.testConf(dir);
    String training = "yarn.scheduler.capacity.root.training";
    // A parent queue's ordering-policy names how its children are ordered; the plan-aware policy is
    // a leaf's.
    conf.unset(training + ".ordering-policy");
    conf.set(training + ".queues", "vision,nlp");
    for (String[] team : List.of(new String[] {"vision", "60"}, new String[] {"nlp", "40"})) {
      String q = training + "." + team[0];
      conf.set(q + ".capacity", team[1]);
      conf.set(q + ".accessible-node-labels", "training");
      conf.set(q + ".accessible-node-labels.training.capacity", team[1]);
      conf.set(q + ".accessible-node-labels.training.maximum-capacity", "100");
      conf.set(q + ".default-node-label-expression", "training");
      conf.set(q + ".ordering-policy", "io.aryl.yarn.PlanAwareOrderingPolicy");
      // A team borrows beyond its capacity: its one user may go up to the whole partition.
      conf.set(q + ".user-limit-factor", "10");
    }
    conf.setLong("aryl.scheduler.round-interval-ms", ROUND_MS);
    conf.setLong("aryl.scheduler.shrink-grace-ms", GRACE_MS);
    return conf;
  }

  /** Two training nodes of 8 GPUs split between two teams, for every test of the class. */
  @Override
  protected ArylMiniCluster startCluster(File dir) throws Exception {
    return ArylMiniCluster.start("teams", teamsConf(dir), 0, 2);
  }

  @Test
  @DisplayName(
      "vision takes back what nlp borrowed: nlp's extras shrink (notice, then kill after the grace), vision"
          + " starts within a round plus the grace, nlp keeps its base and its guarantee")
  void ownerTakesBackBorrowedGpus() throws Exception {
    try (TestJob nlp =
        TestJob.submit(cluster, "nlp-elastic", "nlp", TestJob.shape(1, 4, 4, 3600), 4, false)) {
      nlp.askWorkersAtOnce(4);
      cluster.awaitShowingStatus(
          "nlp's elastic job borrows every idle GPU of vision", WAIT, () -> nlp.workers() == 4);
      Container base = nlp.received().get(0);

      try (TestJob vision =
          TestJob.submit(cluster, "vision-gang", "vision", TestJob.shape(2, 2, 4, 600), 4, true)) {
        long asked = System.currentTimeMillis();
        vision.askWorkersAtOnce(2);
        cluster.awaitShowingStatus(
            "vision's gang of 2 x 4 GPUs starts", WAIT, () -> vision.workers() == 2);
        long startedMs = System.currentTimeMillis() - asked;
        System.out.printf(
            "vision's gang started %d ms after it asked (round %d ms, grace %d ms)%n",
            startedMs, ROUND_MS, GRACE_MS);
        // Its ask reaches the RM on its next heartbeat, the next round shrinks nlp, nlp's extras
        // are killed after the
        // grace (nlp ignores the notice), the next node heartbeats allocate: one round plus the
        // grace, plus slack for
        // the heartbeats on a loaded machine.
        assertThat(startedMs)
            .as("ms from vision's ask to its gang")
            .isLessThan(GRACE_MS + 2 * ROUND_MS + 3000);

        // nlp's AM hears that its two extras were killed on its own next heartbeat, which may come
        // after vision's.
        ArylMiniCluster.await(
            "nlp hears its two extras are gone", Duration.ofSeconds(10), () -> nlp.workers() <= 2);
        assertThat(nlp.workers())
            .as("nlp keeps 2 workers: 8 GPUs, above its guarantee of 6")
            .isEqualTo(2);
        Set<ContainerId> noticed = nlp.preemptionNotices();
        assertThat(noticed).as("nlp was told which two workers go before they went").hasSize(2);
        assertThat(noticed)
            .as("its base worker is not among them: flexible workers go first")
            .doesNotContain(base.getId());
        List<ContainerStatus> preempted =
            nlp.completed().stream()
                .filter(s -> s.getExitStatus() == ContainerExitStatus.PREEMPTED)
                .toList();
        assertThat(preempted)
            .as("nlp ignored the notice: the two were killed after the grace")
            .hasSize(2);
        assertThat(preempted)
            .extracting(ContainerStatus::getContainerId)
            .containsExactlyInAnyOrderElementsOf(noticed);
        List<Integer> counts = nlp.observedCounts();
        assertThat(counts.subList(counts.indexOf(4), counts.size()))
            .as("once it held 4, nlp never fell below 2 workers (8 GPUs) on the way")
            .allMatch(n -> n < 0 || n >= 2);
        assertThat(vision.preemptionNotices()).isEmpty();
        // Guarantees are shares of the GPUs the plan may use: while nlp's two extras drain, their
        // GPUs are outside
        // it, and a round that ran then shows less. The first round after the drains shows the
        // shares of all 15.
        cluster.awaitShowingStatus(
            "the guarantees of a round after the drains",
            WAIT,
            () -> {
              SchedulerStatus status = ArylStatus.orNull(cluster);
              return status != null
                  && status.teams().stream().mapToInt(TeamStatus::guaranteedGpus).sum() == 15;
            });
        List<TeamStatus> teams = cluster.status().teams();
        assertThat(teams).extracting(TeamStatus::team).containsExactly("nlp", "vision");
        assertThat(teams).extracting(TeamStatus::guaranteedGpus).containsExactly(6, 9);
        vision.finish();
      }
      nlp.finish();
    }
  }

  @Test
  @DisplayName(
      "a plain application's GPU asks in a team queue are demand: an elastic job's extras shrink for it,"
          + " and the plain application is never told to give anything back")
  void plainApplicationIsServed() throws Exception {
    try (TestJob elastic =
        TestJob.submit(cluster, "nlp-elastic", "nlp", TestJob.shape(1, 4, 4, 3600), 4, true)) {
      elastic.askWorkersAtOnce(4);
      cluster.awaitShowingStatus(
          "the elastic job takes every GPU", WAIT, () -> elastic.workers() == 4);

      // No aryl.* tag: an ordinary application asking for two 4-GPU containers.
      try (TestJob plain = TestJob.submit(cluster, "plain-gpu-app", "vision", Set.of(), 4, false)) {
        plain.askWorkersAtOnce(2);
        cluster.awaitShowingStatus(
            "the plain application gets both containers", WAIT, () -> plain.workers() == 2);
        assertThat(elastic.workers()).as("the elastic job shrank by its extras only").isEqualTo(2);
        Thread.sleep(GRACE_MS + 4 * ROUND_MS);
        assertThat(plain.preemptionNotices())
            .as("Aryl never asks a plain application for its containers")
            .isEmpty();
        assertThat(plain.workers()).isEqualTo(2);
        assertThat(plain.completed()).as("and never kills one").isEmpty();
        plain.finish();
      }
      elastic.finish();
    }
  }
}
