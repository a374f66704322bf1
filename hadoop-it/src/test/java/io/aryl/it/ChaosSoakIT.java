package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.labels.LoanController;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bounded chaos soak: a stream of elastic and rigid jobs on a cluster whose inference nodes are
 * lent and reclaimed by the scheduler to meet the loan controller's target, which follows a demand
 * curve, while the active ResourceManager fails over (or restarts) and a NodeManager dies at seeded
 * random times. Afterwards it checks, and prints, that nothing was lost:
 *
 * <ul>
 *   <li>every submitted job finished;
 *   <li>no inference node was ever in neither pool, nor labelled inference while holding a training
 *       container;
 *   <li>no node is left fenced and every reclaim is done (a late one says so);
 *   <li>no worker was taken except after a PreemptionMessage the scheduler sent (a shrink or a
 *       reclaim), or with the NodeManager that died;
 *   <li>the scheduler's record of each inference node's place and the ResourceManager's labels
 *       agree.
 * </ul>
 *
 * Tagged {@value #TAG}: not part of the main build, run behind the {@code soak} profile (about a
 * minute; see the module's README for the command). {@code -Daryl.soak.seconds=600} soaks longer,
 * {@code -Daryl.soak.seed=N} replays another schedule, {@code -Daryl.soak.mode=restart} restarts a
 * single ResourceManager instead of failing over.
 */
@Tag(ChaosSoakIT.TAG)
class ChaosSoakIT {
  /**
   * The JUnit tag of soaks, which the main build leaves out (hadoop-it's pom, property
   * aryl.it.excluded-groups).
   */
  static final String TAG = "soak";

  private static final long SEED = Long.getLong("aryl.soak.seed", 20261201L);
  private static final long SECONDS = Long.getLong("aryl.soak.seconds", 60);
  private static final boolean RESTART =
      "restart".equals(System.getProperty("aryl.soak.mode", "failover"));
  private static final int INFERENCE = 3;
  private static final int TRAINING = 2;
  private static final long TICK_MS = 250;

  @TempDir Path dir;

  /**
   * One job of the stream: asks up to its max, and finishes after {@code workS} seconds at or above
   * its min.
   */
  private static final class SoakJob {
    final TestJob job;
    final int min;
    final int max;
    final double workS;
    int asked;
    double doneS;
    boolean finished;

    SoakJob(TestJob job, int min, int max, double workS) {
      this.job = job;
      this.min = min;
      this.max = max;
      this.workS = workS;
    }

    /** One tick: keeps its asks up to max, counts work, finishes when done. */
    void tick() throws Exception {
      if (finished) {
        return;
      }
      int outstanding = asked - job.received().size();
      int want = max - job.workers() - Math.max(0, outstanding);
      if (want > 0) {
        job.askWorkersAtOnce(want);
        asked += want;
      }
      if (job.workers() >= min) {
        doneS += TICK_MS / 1000.0;
      }
      if (doneS >= workS) {
        finished = true;
        job.finish();
      }
    }
  }

  /** What happened when, for the report. */
  private final List<String> events = new CopyOnWriteArrayList<>();

  @Test
  @DisplayName(
      "jobs, loans and reclaims through failovers and a lost NodeManager: every job finishes, nothing is lost,"
          + " and the scheduler's places and the labels agree")
  void soak() throws Exception {
    Random rnd = new Random(SEED);
    YarnConfiguration conf =
        RESTART
            ? ArylMiniCluster.restartableConf(dir.toFile())
            : ArylMiniCluster.haConf(dir.toFile());
    long lengthMs = SECONDS * 1000;
    // Chaos at seeded times: two takeovers of the ResourceManager, one NodeManager lost.
    List<Long> takeoversAt = List.of(at(rnd, 0.20, 0.35, lengthMs), at(rnd, 0.55, 0.75, lengthMs));
    long nodeLoss = at(rnd, 0.40, 0.80, lengthMs);
    events.add(
        "seed "
            + SEED
            + ", "
            + SECONDS
            + " s, "
            + (RESTART ? "restarts" : "failovers")
            + " at "
            + takeoversAt
            + " ms, a NodeManager lost at "
            + nodeLoss
            + " ms");

    try (LoanRig rig =
        new LoanRig(ArylMiniCluster.start("soak", conf, INFERENCE, TRAINING), INFERENCE)) {
      ArylMiniCluster cluster = rig.cluster;
      LoanController lc = rig.controller("soak", rig.client());
      LoanRig.PoolWatch watch = rig.watch();
      cluster.awaitShowingStatus(
          "the controller leads, its target 0 in force, every inference node home",
          () -> lc.isActing() && rig.targetFrom(lc, 0) && rig.count("inference") == INFERENCE);

      List<SoakJob> jobs = new ArrayList<>();
      long start = System.currentTimeMillis();
      long nextJob = 0;
      int lost = -1;
      int takeovers = 0;
      while (true) {
        long t = System.currentTimeMillis() - start;
        if (t >= lengthMs) {
          break;
        }
        rig.rate.set(demand(t, lengthMs));
        if (t >= nextJob && t < lengthMs * 0.7) {
          jobs.add(submit(cluster, rnd, jobs.size()));
          nextJob = t + 1500 + rnd.nextInt(1500);
        }
        if (takeovers < takeoversAt.size() && t >= takeoversAt.get(takeovers)) {
          Duration took = RESTART ? cluster.restartRm() : cluster.failover();
          events.add(
              (RESTART ? "restart" : "failover")
                  + " at "
                  + t
                  + " ms took "
                  + took.toMillis()
                  + " ms");
          takeovers++;
        }
        if (lost < 0 && t >= nodeLoss) {
          lost = nodeToLose(cluster, rnd);
          events.add(
              "NodeManager "
                  + cluster.nodeName(lost)
                  + " ("
                  + cluster.partitionOf(lost)
                  + ", "
                  + cluster.containersOn(lost)
                  + " containers) stopped at "
                  + t
                  + " ms");
          cluster.stopNodeManager(lost);
        }
        for (SoakJob j : jobs) {
          j.tick();
        }
        Thread.sleep(TICK_MS);
      }

      // Demand falls: whatever was reclaimed may be lent again; the jobs finish their work.
      rig.rate.set(0.0);
      long end = System.currentTimeMillis() + 120_000;
      while (jobs.stream().anyMatch(j -> !j.finished) && System.currentTimeMillis() < end) {
        for (SoakJob j : jobs) {
          j.tick();
        }
        Thread.sleep(TICK_MS);
      }
      // Demand rises again: every node still running comes home, and the reclaims settle.
      rig.rate.set(100.0 * INFERENCE);
      int gone = lost;
      cluster.awaitShowingStatus(
          "every running inference node home, no reclaim in flight",
          Duration.ofSeconds(90),
          () -> allHome(rig, gone) && noReclaimInFlight(cluster));
      ArylMiniCluster.await(
          "the scheduler's places and the labels agree",
          Duration.ofSeconds(10),
          () -> disagreementsNow(rig, gone).isEmpty());
      assertThat(rig.targetFrom(lc, 0))
          .as("the controller's target 0 in force: %s", rig.target())
          .isTrue();
      watch.close();

      SchedulerStatus status = cluster.status();
      report(jobs, status, lc, takeovers, gone, watch);

      assertThat(jobs)
          .as("every submitted job finished")
          .allSatisfy(
              j ->
                  assertThat(j.finished)
                      .as(
                          "%s: %.1f of %.1f s done, %d workers",
                          j.job.id(), j.doneS, j.workS, j.job.workers())
                      .isTrue());
      for (SoakJob j : jobs) {
        assertThat(cluster.client().getApplicationReport(j.job.id()).getFinalApplicationStatus())
            .as("%s final status", j.job.id())
            .isEqualTo(FinalApplicationStatus.SUCCEEDED);
      }
      assertThat(watch.violations).as("pool violations over %d samples", watch.samples).isEmpty();
      assertThat(status.nodes())
          .as("no node left fenced")
          .allSatisfy(n -> assertThat(n.fenced()).as(n.toString()).isFalse());
      assertThat(status.reclaimsInFlight()).as("no reclaim left in flight").isEmpty();
      assertThat(status.reclaimsDone())
          .as("every reclaim done")
          .allSatisfy(r -> assertThat(r.phase()).isEqualTo(ReclaimStatus.Phase.DONE));
      assertThat(unexplainedLosses(jobs, gone < 0 ? null : cluster.nodeName(gone)))
          .as("workers taken without a PreemptionMessage, off the lost node")
          .isEmpty();
      assertThat(disagreements(rig, status, gone))
          .as("the scheduler's places and the labels")
          .isEmpty();
    }
  }

  private static long at(Random rnd, double from, double to, long lengthMs) {
    return (long) (lengthMs * (from + rnd.nextDouble() * (to - from)));
  }

  /**
   * Requests per second at {@code t}: busy (all 3 servers), then quiet (loans), a burst (reclaims),
   * quiet again, and a partial rise before the end. 100 rps per server.
   */
  static double demand(long t, long lengthMs) {
    double f = t / (double) lengthMs;
    if (f < 0.08) {
      return 300;
    } else if (f < 0.40) {
      return 60;
    } else if (f < 0.55) {
      return 300;
    } else if (f < 0.85) {
      return 0;
    }
    return 200;
  }

  private SoakJob submit(ArylMiniCluster cluster, Random rnd, int n) throws Exception {
    boolean elastic = rnd.nextDouble() < 0.6;
    int gpus = 1 + rnd.nextInt(2);
    int min = elastic ? 1 + rnd.nextInt(2) : 2 + rnd.nextInt(3);
    int max = elastic ? min + 2 + rnd.nextInt(6) : min;
    double workS = 5 + rnd.nextInt(10);
    TestJob job =
        TestJob.submit(
            cluster,
            "soak-" + n,
            "training",
            TestJob.shape(min, max, gpus, (long) (workS * 60)),
            gpus,
            true);
    events.add(
        "job "
            + job.id()
            + ": "
            + (elastic ? "elastic " : "rigid ")
            + min
            + ".."
            + max
            + " x "
            + gpus
            + " GPU, "
            + workS
            + " s of work");
    return new SoakJob(job, min, max, workS);
  }

  /**
   * A loaned inference node if there is one (a reclaim may be on its way), else a training node.
   */
  private static int nodeToLose(ArylMiniCluster cluster, Random rnd) {
    List<Integer> loaned = new ArrayList<>();
    for (int i = 0; i < INFERENCE; i++) {
      if ("training".equals(cluster.partitionOf(i))) {
        loaned.add(i);
      }
    }
    return loaned.isEmpty()
        ? INFERENCE + rnd.nextInt(TRAINING)
        : loaned.get(rnd.nextInt(loaned.size()));
  }

  private static boolean allHome(LoanRig rig, int lost) {
    for (int i = 0; i < INFERENCE; i++) {
      if (i != lost && !"inference".equals(rig.cluster.partitionOf(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean noReclaimInFlight(ArylMiniCluster cluster) {
    try {
      return cluster.status().reclaimsInFlight().isEmpty();
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * Workers the job was given that completed with no PreemptionMessage before, unless they ran on
   * the NodeManager that died. (A surplus container the job hands straight back was never its
   * worker.)
   */
  private static List<String> unexplainedLosses(List<SoakJob> jobs, String lostNode) {
    List<String> out = new ArrayList<>();
    for (SoakJob j : jobs) {
      Map<ContainerId, String> nodeOf = new TreeMap<>();
      j.job.received().forEach(c -> nodeOf.put(c.getId(), c.getNodeId().toString()));
      Set<ContainerId> noticed = j.job.preemptionNotices();
      for (ContainerStatus s : j.job.completed()) {
        String node = nodeOf.get(s.getContainerId());
        boolean onLostNode = lostNode != null && lostNode.equals(node);
        if (node != null && !noticed.contains(s.getContainerId()) && !onLostNode) {
          out.add(
              s.getContainerId()
                  + " of "
                  + j.job.id()
                  + " on "
                  + nodeOf.get(s.getContainerId())
                  + ": exit "
                  + s.getExitStatus()
                  + " "
                  + s.getDiagnostics());
        }
      }
    }
    return out;
  }

  private static List<String> disagreementsNow(LoanRig rig, int lost) {
    try {
      return disagreements(rig, rig.cluster.status(), lost);
    } catch (Exception e) {
      return List.of(e.toString());
    }
  }

  /** Where the scheduler's view (owner, loan, place) and the labels disagree about a node. */
  private static List<String> disagreements(LoanRig rig, SchedulerStatus status, int lost) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < INFERENCE + TRAINING; i++) {
      if (i == lost) {
        continue;
      }
      String name = rig.cluster.nodeName(i);
      String label = rig.cluster.partitionOf(i);
      NodeStatus s = status.node(name);
      boolean inference = i < INFERENCE;
      if (s == null) {
        out.add(name + " missing from the scheduler's status");
        continue;
      }
      NodeStatus.Pool owner = inference ? NodeStatus.Pool.INFERENCE : NodeStatus.Pool.TRAINING;
      if (s.owner() != owner) {
        out.add(name + " owner " + s.owner() + ", expected " + owner);
      }
      if (s.loaned() != (inference && "training".equals(label))) {
        out.add(name + " loaned=" + s.loaned() + " but labelled " + label);
      }
      NodeStatus.Place expected =
          !inference
              ? null
              : "inference".equals(label) ? NodeStatus.Place.HOME : NodeStatus.Place.LENT;
      if (s.place() != expected) {
        out.add(name + " place " + s.place() + " but labelled " + label);
      }
    }
    return out;
  }

  private void report(
      List<SoakJob> jobs,
      SchedulerStatus status,
      LoanController lc,
      int takeovers,
      int lost,
      LoanRig.PoolWatch watch) {
    int notices = 0;
    int killed = 0;
    int completed = 0;
    Set<String> elastic = new HashSet<>();
    for (SoakJob j : jobs) {
      notices += j.job.preemptionNotices().size();
      for (ContainerStatus s : j.job.completed()) {
        completed++;
        if (s.getExitStatus() == ContainerExitStatus.PREEMPTED) {
          killed++;
        }
      }
      if (j.max > j.min) {
        elastic.add(j.job.id().toString());
      }
    }
    int reclaims = status.reclaimsDone().size();
    int late = 0;
    List<String> lateOnes = new ArrayList<>();
    for (ReclaimStatus r : status.reclaimsDone()) {
      if (r.late()) {
        late++;
        lateOnes.add(
            "reclaim "
                + r.id()
                + " took "
                + r.tookMs()
                + " ms, lost "
                + r.lostNodes()
                + ", replaced "
                + r.replacements()
                + ", short by "
                + r.shortBy());
      }
    }
    StringBuilder b = new StringBuilder("\nChaos soak report\n");
    events.forEach(e -> b.append("  ").append(e).append('\n'));
    b.append(
        String.format(
            "  %d %s survived; NodeManager lost: %s%n",
            takeovers, RESTART ? "restarts" : "failovers", lost < 0 ? "none" : "yes"));
    b.append(
        String.format(
            "  jobs: %d submitted (%d elastic), %d finished%n",
            jobs.size(), elastic.size(), jobs.stream().filter(j -> j.finished).count()));
    b.append(
        String.format(
            "  loan targets accepted from the controller: %d (epoch %d); reclaims: %d done, %d late%n",
            lc.targetsAccepted(), lc.epoch(), reclaims, late));
    lateOnes.forEach(l -> b.append("    ").append(l).append('\n'));
    b.append(
        String.format(
            "  workers: %d preemption notices, %d containers completed before their job ended, %d"
                + " killed after the grace (-102)%n",
            notices, completed, killed));
    b.append(
        String.format(
            "  pool samples: %d, violations: %d%n", watch.samples, watch.violations.size()));
    System.out.print(b);
  }
}
