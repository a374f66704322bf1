package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.ArylPaths;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Returning loaned nodes to inference on a real ResourceManager. Nodes 0 and 1 are inference nodes
 * lent to training, node 2 is training's own. An elastic job E (min 1, max 16) and an inelastic job
 * F (8 workers) fill all 24 GPUs, F alone on one loaned node. Reclaiming one node must take E's
 * flexible workers (a shrink), not F (a preemption), and must relabel the node only once nothing
 * runs on it.
 */
class ReclaimIT {
  private static final String RECLAIMS = ArylPaths.RECLAIMS;

  @TempDir Path dir;

  /** The cluster with both inference nodes on loan, E and F placed as the scenario needs. */
  private record Loaned(ArylMiniCluster cluster, TestJob e, TestJob f, String fNode)
      implements AutoCloseable {
    @Override
    public void close() throws IOException {
      try (cluster;
          e;
          f) {
        // closes the jobs, then the cluster
      }
    }
  }

  private Loaned loanAndFill(String name, boolean eCooperative) throws Exception {
    ArylMiniCluster cluster =
        ArylMiniCluster.start(name, ArylMiniCluster.testConf(dir.toFile()), 2, 1);
    TestJob e = null;
    TestJob f = null;
    try {
      // E starts on training's own node, so that F can then have a loaned node to itself. Its
      // predicted runtime is
      // long enough that every extra worker is clearly worth a re-scale: at 1 h, the 16th worker
      // saves less than the
      // 30 s re-scale, and whether E ends at 15 or 16 hangs on when its asks meet a round.
      e = TestJob.submit(cluster, "e", "training", TestJob.shape(1, 16, 1, 36000), 1, eCooperative);
      e.askWorkersAtOnce(8);
      TestJob eJob = e;
      cluster.awaitShowingStatus("E holds 8 workers", () -> eJob.workers() == 8);
      assertThat(e.workersByNode()).isEqualTo(Map.of(cluster.nodeName(2), 8));

      cluster.lend(0);
      cluster.lend(1);
      cluster.awaitShowingStatus(
          "the status shows 2 loaned nodes", () -> loanedNodes(cluster).size() == 2);
      assertThat(loanedNodes(cluster))
          .containsExactlyInAnyOrder(cluster.nodeName(0), cluster.nodeName(1));

      f = TestJob.submit(cluster, "f", "training", TestJob.shape(8, 8, 1, 600), 1, true);
      f.askWorkersAtOnce(8);
      TestJob fJob = f;
      cluster.awaitShowingStatus("F holds its 8 workers", () -> fJob.workers() == 8);
      assertThat(f.workersByNode())
          .as(
              "F lands whole on one loaned node (best fit); E holds %s, status %s",
              e.workersByNode(), cluster.status())
          .hasSize(1);
      String fNode = f.workersByNode().keySet().iterator().next();
      assertThat(fNode).isIn(cluster.nodeName(0), cluster.nodeName(1));

      e.askWorkersAtOnce(8);
      cluster.awaitShowingStatus("E grows to 16 workers", () -> eJob.workers() == 16);
      for (int i = 0; i < 3; i++) {
        String node = cluster.nodeName(i);
        assertThat(
                e.workersByNode().getOrDefault(node, 0) + f.workersByNode().getOrDefault(node, 0))
            .as("E %s and F %s fill %s", e.workersByNode(), f.workersByNode(), node)
            .isEqualTo(8);
      }
      assertThat(e.preemptionNotices()).isEmpty();
      assertThat(f.preemptionNotices()).isEmpty();
      return new Loaned(cluster, e, f, fNode);
    } catch (Throwable t) {
      // Release what was started, the jobs first; a job's close() throws nothing.
      if (f != null) {
        f.close();
      }
      if (e != null) {
        e.close();
      }
      cluster.close();
      throw t;
    }
  }

  @Test
  @DisplayName(
      "a reclaim shrinks an elastic job rather than preempt an inelastic one, and relabels only an empty node")
  void reclaimShrinksElasticJobAndRelabelsEmptyNode() throws Exception {
    try (Loaned s = loanAndFill("reclaim", true)) {
      Reclaimed r = reclaimOne(s);

      assertThat(statusesOf(s.e(), s.e().preemptionNotices()))
          .as("E released its noticed workers itself: none was killed")
          .hasSize(8)
          .allSatisfy(
              c -> assertThat(c.getExitStatus()).isNotEqualTo(ContainerExitStatus.PREEMPTED));
      long grace = graceMs(s.cluster().conf());
      assertThat(r.tookMs())
          .as("ms from the request to the relabel: released workers need no grace")
          .isLessThan(grace);
    }
  }

  @Test
  @DisplayName(
      "workers that ignore the PreemptionMessage are killed after the grace before the node is relabelled")
  void reclaimKillsUncooperativeWorkersBeforeRelabel() throws Exception {
    try (Loaned s = loanAndFill("reclaim-kill", false)) {
      Reclaimed r = reclaimOne(s);

      assertThat(statusesOf(s.e(), s.e().preemptionNotices()))
          .as("E's noticed workers were killed")
          .hasSize(8)
          .allSatisfy(c -> assertThat(c.getExitStatus()).isEqualTo(ContainerExitStatus.PREEMPTED));
      long grace = graceMs(s.cluster().conf());
      long round = roundMs(s.cluster().conf());
      // The grace, the round that kills, the round that relabels, and one round for the kill to
      // reach the scheduler.
      assertThat(r.tookMs())
          .as("ms from the request to the relabel")
          .isGreaterThanOrEqualTo(grace)
          .isLessThanOrEqualTo(grace + 3 * round);
    }
  }

  @Test
  @DisplayName(
      "a reclaim of more nodes than are loaned, or with a malformed body, answers 400 and starts nothing")
  void reclaimRefusesWhatItCannotDo() throws Exception {
    try (ArylMiniCluster cluster =
        ArylMiniCluster.start("refuse", ArylMiniCluster.testConf(dir.toFile()), 2, 1)) {
      cluster.lend(0);
      cluster.lend(1);
      cluster.awaitShowingStatus(
          "the status shows 2 loaned nodes", () -> loanedNodes(cluster).size() == 2);

      ArylMiniCluster.Http tooMany = cluster.post(RECLAIMS, "{\"nodes\":3}");
      assertThat(tooMany.status()).as(tooMany.body()).isEqualTo(400);
      assertThat(error(tooMany)).contains("asked for 3").contains("only 2 are loaned");

      ArylMiniCluster.Http badNodes = cluster.post(RECLAIMS, "{\"nodes\":\"one\"}");
      assertThat(badNodes.status()).as(badNodes.body()).isEqualTo(400);
      assertThat(error(badNodes)).startsWith("nodes ").contains("\"one\"");

      ArylMiniCluster.Http zero = cluster.post(RECLAIMS, "{\"nodes\":0}");
      assertThat(zero.status()).as(zero.body()).isEqualTo(400);
      assertThat(error(zero)).startsWith("nodes ");

      ArylMiniCluster.Http badDeadline =
          cluster.post(RECLAIMS, "{\"nodes\":1,\"deadlineMs\":\"soon\"}");
      assertThat(badDeadline.status()).as(badDeadline.body()).isEqualTo(400);
      assertThat(error(badDeadline)).startsWith("deadlineMs ").contains("\"soon\"");

      ArylMiniCluster.Http notJson = cluster.post(RECLAIMS, "nodes=1");
      assertThat(notJson.status()).as(notJson.body()).isEqualTo(400);
      assertThat(error(notJson)).contains("not JSON");

      SchedulerStatus status = cluster.status();
      assertThat(status.reclaimsInFlight()).isEmpty();
      assertThat(status.reclaimsDone()).isEmpty();
      assertThat(loanedNodes(cluster)).hasSize(2);
      assertThat(cluster.partitionOf(0)).isEqualTo("training");
      assertThat(cluster.partitionOf(1)).isEqualTo("training");
    }
  }

  // ---------------------------------------------------------------------------------------------------------------

  /** The outcome of reclaiming one node, once checked against what both scenarios share. */
  private record Reclaimed(String node, long tookMs) {}

  /**
   * Asks for one node back and checks what every reclaim here must do: the node without F is
   * chosen; F never loses a worker; the node is relabelled inference, never while a container runs
   * on it; the record shows an on-time shrink of E's 8 workers there and no preemption.
   */
  private Reclaimed reclaimOne(Loaned s) throws Exception {
    ArylMiniCluster cluster = s.cluster();
    TestJob e = s.e();
    TestJob f = s.f();
    Map<String, Integer> eBefore = e.workersByNode();
    RelabelWatch watch = new RelabelWatch(cluster, 0, 1);
    try {
      long deadline = System.currentTimeMillis() + 20_000;
      ReclaimStatus reclaim = ArylStatus.reclaim(cluster, 1, deadline);
      assertThat(reclaim.nodes()).hasSize(1);
      String chosen = reclaim.nodes().get(0);
      int chosenIndex = chosen.equals(cluster.nodeName(0)) ? 0 : 1;
      assertThat(chosen)
          .as("the reclaimed node")
          .isIn(cluster.nodeName(0), cluster.nodeName(1))
          .as("least cost: the node of E's flexible workers, not F's")
          .isNotEqualTo(s.fNode());
      assertThat(reclaim.deadlineMs()).isEqualTo(deadline);
      assertThat(reclaim.jobs())
          .as("what the reclaim does to each job")
          .isEqualTo(Map.of(e.id().toString(), ReclaimStatus.Action.SHRINK));

      cluster.awaitShowingStatus(
          "the reclaimed node is back in the inference pool",
          () -> "inference".equals(cluster.partitionOf(chosenIndex)));
      Thread.sleep(4 * roundMs(cluster.conf())); // a few more rounds: nothing may land there
      watch.close();
      assertThat(watch.violations())
          .as("moments the node was labelled inference with containers on it")
          .isEmpty();
      assertThat(watch.sawInference(chosenIndex)).isTrue();
      assertThat(cluster.partitionOf(chosenIndex)).isEqualTo("inference");
      assertThat(cluster.containersOn(chosenIndex)).isZero();
      assertThat(cluster.partitionOf(1 - chosenIndex))
          .as("the other loaned node")
          .isEqualTo("training");

      // F never lost a worker; E lost exactly its workers on the node and kept the rest.
      assertThat(f.workers()).isEqualTo(8);
      assertThat(f.preemptionNotices()).isEmpty();
      assertThat(f.completed()).isEmpty();
      assertNeverBelowAfterReaching(f, 8);
      assertThat(e.preemptionNotices())
          .as("E is told about its workers on the node")
          .hasSize(eBefore.get(chosen));
      Map<String, Integer> eExpected = new java.util.TreeMap<>(eBefore);
      eExpected.remove(chosen);
      assertThat(e.workersByNode()).as("E keeps its workers elsewhere").isEqualTo(eExpected);
      assertNeverBelowAfterReaching(e, 1);

      SchedulerStatus status = cluster.status();
      assertThat(status.reclaimsInFlight()).isEmpty();
      assertThat(status.reclaimsDone()).hasSize(1);
      ReclaimStatus done = status.reclaimsDone().get(0);
      assertThat(done.phase()).isEqualTo(ReclaimStatus.Phase.DONE);
      assertThat(done.nodes()).containsExactly(chosen);
      assertThat(done.containersShrunk()).isEqualTo(eBefore.get(chosen)).isPositive();
      assertThat(done.containersPreempted()).isZero();
      assertThat(done.late()).isFalse();
      assertThat(done.finishedMs()).isLessThanOrEqualTo(deadline);
      assertThat(loanedNodes(cluster)).containsExactly(cluster.nodeName(1 - chosenIndex));
      return new Reclaimed(chosen, done.tookMs());
    } finally {
      watch.close();
    }
  }

  /**
   * Samples the nodes' partition and container count every few milliseconds, and remembers every
   * moment a node was in the inference partition with a container on it: relabelling a busy node
   * does not stop what runs there.
   */
  private static final class RelabelWatch implements AutoCloseable {
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final Set<Integer> inference = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    RelabelWatch(ArylMiniCluster cluster, int... nodes) {
      thread =
          new Thread(
              () -> {
                while (running.get()) {
                  for (int i : nodes) {
                    if ("inference".equals(cluster.partitionOf(i))) {
                      inference.add(i);
                      int n = cluster.containersOn(i);
                      if (n > 0) {
                        violations.add(
                            cluster.nodeName(i)
                                + " labelled inference with "
                                + n
                                + " container(s)");
                      }
                    }
                  }
                  try {
                    Thread.sleep(2);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "relabel-watch");
      thread.setDaemon(true);
      thread.start();
    }

    List<String> violations() {
      return List.copyOf(violations);
    }

    boolean sawInference(int node) {
      return inference.contains(node);
    }

    @Override
    public void close() {
      running.set(false);
      try {
        thread.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void assertNeverBelowAfterReaching(TestJob job, int floor) {
    List<Integer> counts = job.observedCounts();
    int first = -1;
    for (int i = 0; first < 0 && i < counts.size(); i++) {
      if (counts.get(i) >= floor) {
        first = i;
      }
    }
    assertThat(first).as("%s reached %d workers", job.id(), floor).isGreaterThanOrEqualTo(0);
    assertThat(counts.subList(first, counts.size()))
        .as("%s's workers after first holding %d (-1 = failed heartbeat)", job.id(), floor)
        .allMatch(n -> n >= floor);
  }

  private static List<ContainerStatus> statusesOf(TestJob job, Set<ContainerId> ids) {
    List<ContainerStatus> out = new ArrayList<>();
    for (ContainerStatus s : job.completed()) {
      if (ids.contains(s.getContainerId())) {
        out.add(s);
      }
    }
    return out;
  }

  private static long graceMs(YarnConfiguration conf) {
    return conf.getLong("aryl.scheduler.shrink-grace-ms", -1);
  }

  private static long roundMs(YarnConfiguration conf) {
    return conf.getLong("aryl.scheduler.round-interval-ms", -1);
  }

  /** Names of the nodes the status reports as loaned. */
  private static Set<String> loanedNodes(ArylMiniCluster cluster) {
    try {
      Set<String> out = new HashSet<>();
      for (NodeStatus n : cluster.status().nodes()) {
        if (n.loaned()) {
          out.add(n.node());
        }
      }
      return out;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String error(ArylMiniCluster.Http answer) throws Exception {
    String error = ArylStatus.error(answer);
    assertThat(error).as(answer.body()).isNotNull();
    return error;
  }
}
