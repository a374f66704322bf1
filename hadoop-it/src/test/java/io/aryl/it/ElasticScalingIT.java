package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.SchedulerStatus;
import java.io.File;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Elastic scaling on a real ResourceManager: two training nodes of 8 GPUs, one cluster for the
 * class. An elastic job E (min 2, max 16, one GPU per worker) grows into the idle cluster, never
 * beyond what its ApplicationMaster asks for; an inelastic job Q (8 workers) then needs room, and E
 * gives back its flexible workers, either by releasing them when told (cooperative) or by being
 * killed once the grace is over. The round's decisions (growing only as far as the asks, the newest
 * flexible workers asked back for a gang, the kill at the grace) are specified by
 * aryl-yarn-scheduler's {@code engine.RoundEngineTest}; here, what a real ApplicationMaster
 * receives and how fast: allocations, PreemptionMessages, containers preempted with exit status
 * -102.
 */
class ElasticScalingIT extends OneClusterPerClass {
  /** Waits are generous: other builds share this machine. What is asserted stays strict. */
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Two training nodes of 8 GPUs, for every test of the class. */
  @Override
  protected ArylMiniCluster startCluster(File dir) throws Exception {
    return ArylMiniCluster.start("elastic-scaling", ArylMiniCluster.testConf(dir), 0, 2);
  }

  private static long graceMs(YarnConfiguration conf) {
    return conf.getLong("aryl.scheduler.shrink-grace-ms", -1);
  }

  private static long roundMs(YarnConfiguration conf) {
    return conf.getLong("aryl.scheduler.round-interval-ms", -1);
  }

  /**
   * Submits E and lets it grow to all 16 GPUs. Predicted at 10 h on its 2 base workers: its 16th
   * worker saves 5 min, far more than a re-scale costs (30 s). At 1 h the 16th saved 30 s, the
   * re-scale's price exactly, so a job that reached 15 first (its workers allocated over two
   * heartbeats under load) was rightly never grown to 16.
   */
  private static TestJob growElasticJob(ArylMiniCluster cluster, boolean cooperative)
      throws Exception {
    TestJob e =
        TestJob.submit(cluster, "e", "training", TestJob.shape(2, 16, 1, 36_000), 1, cooperative);
    e.askWorkersAtOnce(16);
    cluster.awaitShowingStatus("E holds 16 workers", () -> e.workers() == 16);
    return e;
  }

  @Test
  @DisplayName("an elastic job grows to max on an idle cluster")
  void elasticJobGrowsToMax() throws Exception {
    try (TestJob e = growElasticJob(cluster, true)) {
      assertThat(e.workersByNode())
          .as("E's workers by node")
          .isEqualTo(Map.of(cluster.nodeName(0), 8, cluster.nodeName(1), 8));
      assertThat(e.preemptionNotices()).as("notices to a job alone on the cluster").isEmpty();
      assertThat(e.completed()).isEmpty();

      ApplicationStatus app = application(cluster, e);
      assertThat(app.targetWorkers()).isEqualTo(16);
      assertThat(app.belowMaxBecause()).as("at its maximum: no reason to give").isNull();
      cluster.awaitShowingStatus(
          "the status shows E's 16 workers",
          () -> uncheckedApplication(cluster, e).actualWorkers() == 16);

      Thread.sleep(4 * roundMs(cluster.conf()));
      assertThat(e.workers()).as("E stays at its max").isEqualTo(16);
      assertThat(e.observedCounts()).as("E never exceeds its max").allMatch(n -> n <= 16);
    }
  }

  @Test
  @DisplayName(
      "an ApplicationMaster asking for larger containers than its aryl.gpus-per-worker gets the declared size")
  void containersAreHeldToTheDeclaredShape() throws Exception {
    // Declares 1 GPU per worker (what the caps and the plan count), asks for 4-GPU containers.
    try (TestJob e =
        TestJob.submit(cluster, "e", "training", TestJob.shape(2, 4, 1, 3600), 4, true)) {
      e.askWorkersAtOnce(4);
      cluster.awaitShowingStatus("E holds 4 workers", () -> e.workers() == 4);
      assertThat(e.received())
          .as("E's containers")
          .hasSize(4)
          .allSatisfy(
              c -> assertThat(c.getResource().getResourceValue("yarn.io/gpu")).isEqualTo(1));
      long used = cluster.status().nodes().stream().mapToLong(NodeStatus::usedGpus).sum();
      assertThat(used).as("GPUs in use on the cluster").isEqualTo(4);
    }
  }

  @Test
  @DisplayName("an elastic job is promised no more workers than its ApplicationMaster asks for")
  void promisesFollowTheAsks() throws Exception {
    try (TestJob e =
        TestJob.submit(cluster, "e", "training", TestJob.shape(2, 16, 1, 3600), 1, true)) {
      // Each batch is a fresh chance for a round to run between the allocation and the
      // ApplicationMaster's next ask,
      // when the ask it last sent still counts the workers it has just been given.
      for (int want = 4; want <= 12; want += 4) {
        int target = want;
        e.askWorkersAtOnce(4);
        cluster.awaitShowingStatus("E holds " + want + " workers", () -> e.workers() == target);
        cluster.awaitShowingStatus(
            "E's ask is spent", () -> uncheckedApplication(cluster, e).askedWorkers() == 0);
        Thread.sleep(3 * roundMs(cluster.conf()));
        ApplicationStatus app = application(cluster, e);
        assertThat(app.targetWorkers())
            .as("E's target once it holds all it asked for: %s", app)
            .isEqualTo(want);
        assertThat(app.belowMaxBecause())
            .as("why E runs below its 16")
            .isEqualTo(
                "its ApplicationMaster asks for no more: it holds and asks for "
                    + want
                    + " workers in all");
        assertThat(e.workers()).isEqualTo(want);
      }
    }
  }

  @Test
  @DisplayName("it shrinks when a queued job needs room, and keeps running")
  void elasticJobShrinksForQueuedJob() throws Exception {
    try (TestJob e = growElasticJob(cluster, true);
        TestJob q =
            TestJob.submit(cluster, "q", "training", TestJob.shape(8, 8, 1, 600), 1, true)) {
      q.askWorkersAtOnce(8);
      cluster.awaitShowingStatus("Q holds its 8 workers", () -> q.workers() == 8);
      cluster.awaitShowingStatus("E is down to 8 workers", () -> e.workers() == 8);
      Thread.sleep(4 * roundMs(cluster.conf())); // a few more rounds: nothing moves any more

      assertThat(q.workers()).isEqualTo(8);
      assertThat(e.workers()).as("E ends with the 8 GPUs Q left").isEqualTo(8);
      assertSharesFullCluster(cluster, e, q);

      assertThat(e.preemptionNotices())
          .as("E is told about exactly the 8 workers it gives back")
          .hasSize(8);
      assertThat(statusesOf(e, e.preemptionNotices()))
          .as("E released every noticed worker itself: none was killed")
          .hasSize(8)
          .allSatisfy(
              s -> assertThat(s.getExitStatus()).isNotEqualTo(ContainerExitStatus.PREEMPTED));
      assertThat(e.completed()).as("only the noticed workers ended").hasSize(8);
      assertThat(q.preemptionNotices()).isEmpty();
      assertThat(q.completed()).isEmpty();
      assertNeverBelowMinAfterReaching(e, 2);
    }
  }

  @Test
  @DisplayName("a worker that ignores the PreemptionMessage is killed after the grace")
  void uncooperativeWorkersAreKilledAfterGrace() throws Exception {
    long grace = graceMs(cluster.conf());
    long round = roundMs(cluster.conf());
    assertThat(grace).isEqualTo(2000);
    try (TestJob e = growElasticJob(cluster, false);
        TestJob q =
            TestJob.submit(cluster, "q", "training", TestJob.shape(8, 8, 1, 600), 1, true)) {
      long askedAt = System.currentTimeMillis();
      q.askWorkersAtOnce(8);

      // Watch closely when E hears of its workers' end and when they are gone.
      Map<ContainerId, Long> noticedAt = new HashMap<>();
      Map<ContainerId, Long> completedAt = new HashMap<>();
      long end = System.nanoTime() + WAIT.toNanos();
      while ((noticedAt.size() < 8 || completedAt.size() < 8) && System.nanoTime() < end) {
        long now = System.currentTimeMillis();
        e.preemptionNotices().forEach(id -> noticedAt.putIfAbsent(id, now));
        e.completed().forEach(s -> completedAt.putIfAbsent(s.getContainerId(), now));
        Thread.sleep(10);
      }
      assertThat(noticedAt).as("E's workers named in a PreemptionMessage").hasSize(8);
      assertThat(completedAt.keySet())
          .as("E's completed workers are exactly the noticed ones")
          .isEqualTo(noticedAt.keySet());
      assertThat(statusesOf(e, noticedAt.keySet()))
          .as("killed, not released")
          .allSatisfy(s -> assertThat(s.getExitStatus()).isEqualTo(ContainerExitStatus.PREEMPTED));
      for (ContainerId id : noticedAt.keySet()) {
        // Marked (and noticed) only after Q asked, so never killed before a full grace from then.
        assertThat(completedAt.get(id) - askedAt)
            .as("ms from Q's ask to %s's kill", id)
            .isGreaterThanOrEqualTo(grace);
        // Noticed after the mark; killed by the first round after the grace, seen by the AM a
        // heartbeat later.
        assertThat(completedAt.get(id) - noticedAt.get(id))
            .as("ms from %s's notice to its kill", id)
            .isLessThanOrEqualTo(grace + 4 * round);
      }

      cluster.awaitShowingStatus("Q starts", () -> q.workers() == 8);
      Thread.sleep(4 * round);
      assertThat(e.workers()).as("E keeps running with the GPUs Q left").isEqualTo(8);
      assertSharesFullCluster(cluster, e, q);
      assertNeverBelowMinAfterReaching(e, 2);
      assertThat(q.completed()).isEmpty();
    }
  }

  /**
   * Every GPU of both nodes is held by E or Q, none by two (placement is best fit per worker, so Q
   * may span both).
   */
  private static void assertSharesFullCluster(ArylMiniCluster cluster, TestJob e, TestJob q) {
    for (int i = 0; i < 2; i++) {
      String node = cluster.nodeName(i);
      assertThat(e.workersByNode().getOrDefault(node, 0) + q.workersByNode().getOrDefault(node, 0))
          .as("workers of E %s and Q %s on %s", e.workersByNode(), q.workersByNode(), node)
          .isEqualTo(8);
    }
  }

  private static void assertNeverBelowMinAfterReaching(TestJob job, int min) {
    List<Integer> counts = job.observedCounts();
    int first = -1;
    for (int i = 0; first < 0 && i < counts.size(); i++) {
      if (counts.get(i) >= min) {
        first = i;
      }
    }
    assertThat(first).as("the job reached its minimum").isGreaterThanOrEqualTo(0);
    assertThat(counts.subList(first, counts.size()))
        .as("workers held after first reaching the minimum %d (-1 = failed heartbeat)", min)
        .allMatch(n -> n >= min);
  }

  private static List<ContainerStatus> statusesOf(TestJob job, Set<ContainerId> ids) {
    return job.completed().stream()
        .filter(s -> ids.contains(s.getContainerId()))
        .collect(Collectors.toList());
  }

  private static ApplicationStatus application(ArylMiniCluster cluster, TestJob job)
      throws Exception {
    SchedulerStatus s = cluster.status();
    ApplicationStatus a = s.application(job.id().toString());
    if (a == null) {
      throw new AssertionError(job.id() + " is not in " + s);
    }
    return a;
  }

  private static ApplicationStatus uncheckedApplication(ArylMiniCluster cluster, TestJob job) {
    try {
      return application(cluster, job);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
