package io.aryl.it;

import static io.aryl.it.ArylStatus.doneWithId;
import static io.aryl.it.ArylStatus.onLoan;
import static io.aryl.it.ArylStatus.reclaim;
import static io.aryl.it.ArylStatus.roundMs;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reclaim whose node is lost while it drains: inference nodes 0-2 all on loan, training's own
 * node 3, an elastic job whose workers ignore the PreemptionMessage on all four. NodeManagers over
 * RPC ({@link ArylMiniCluster#restartableConf}): a stopping NodeManager unregisters and the RM
 * drops it at once.
 */
class ReclaimLostNodeIT {
  @TempDir Path dir;

  @Test
  @DisplayName(
      "a loaned node's NodeManager lost mid-reclaim: another loaned node is returned in its place by the"
          + " deadline, and the reclaim's record names both")
  void aNodeLostMidReclaimIsReplaced() throws Exception {
    YarnConfiguration conf = ArylMiniCluster.restartableConf(dir.toFile());
    conf.setLong("aryl.scheduler.shrink-grace-ms", 6000);
    try (ArylMiniCluster cluster = ArylMiniCluster.start("lost-node", conf, 3, 1);
        TestJob e =
            TestJob.submit(cluster, "e", "training", TestJob.shape(1, 32, 1, 36000), 1, false)) {
      e.askWorkersAtOnce(8);
      cluster.awaitShowingStatus(
          "E holds 8 workers on training's own node", () -> e.workers() == 8);
      for (int i = 0; i < 3; i++) {
        cluster.lend(i);
      }
      for (int i = 0; i < 3; i++) {
        String n = cluster.nodeName(i);
        cluster.awaitShowingStatus(n + " on loan", () -> onLoan(cluster, n));
      }
      e.askWorkersAtOnce(24);
      cluster.awaitShowingStatus("E holds 32 workers, 8 on each node", () -> e.workers() == 32);
      assertThat(e.workersByNode())
          .as("E's workers")
          .hasSize(4)
          .allSatisfy((n, w) -> assertThat(w).isEqualTo(8));

      long deadline = System.currentTimeMillis() + 20_000;
      ReclaimStatus started = reclaim(cluster, 1, deadline);
      long id = started.id();
      String lost = started.nodes().get(0);
      int lostIndex = indexOf(cluster, lost);
      Set<ContainerId> draining = RmRecoveryScenarios.idsOn(e.received(), lost);
      cluster.awaitShowingStatus(
          "E told to give up its workers on " + lost,
          () -> e.preemptionNotices().containsAll(draining));

      cluster.stopNodeManager(lostIndex);

      cluster.awaitShowingStatus(
          "reclaim " + id + " done by its deadline (plus 3 rounds)",
          Duration.ofMillis(
              Math.max(1000, deadline - System.currentTimeMillis() + 3 * roundMs(conf))),
          () -> {
            SchedulerStatus s = ArylStatus.orNull(cluster);
            return s != null && !doneWithId(s, id).isEmpty();
          });
      List<String> substitutes = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        if (i != lostIndex && "inference".equals(cluster.partitionOf(i))) {
          substitutes.add(cluster.nodeName(i));
        }
      }
      SchedulerStatus s = cluster.status();
      assertThat(substitutes)
          .as("loaned nodes returned in place of the lost %s; status %s", lost, s)
          .hasSize(1);
      ReclaimStatus done = doneWithId(s, id).get(0);
      assertThat(done.late()).as("late").isFalse();
      assertThat(done.finishedMs()).as("finishedMs vs the deadline").isLessThanOrEqualTo(deadline);
      assertThat(done.lostNodes()).as("lostNodes of %s", done).containsExactly(lost);
      assertThat(done.replacements())
          .as("replacements of %s", done)
          .isEqualTo(Map.of(lost, substitutes.get(0)));
    }
  }

  private static int indexOf(ArylMiniCluster cluster, String node) {
    for (int i = 0; i < 3; i++) {
      if (cluster.nodeName(i).equals(node)) {
        return i;
      }
    }
    throw new IllegalArgumentException(node + " is not a loaned node");
  }
}
