package io.aryl.it;

import static io.aryl.it.ArylMiniCluster.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gang admission on a real ResourceManager: two training nodes of 8 GPUs; A holds 12, B needs 8 at
 * once, C needs 4. The same scenario runs three ways: Aryl on, Aryl switched off, and the stock
 * CapacityScheduler. What the plan decides (B promised nothing, C backfilling, B admitted whole
 * later) is specified by aryl-yarn-scheduler's {@code engine.GangAdmissionTest}; here, that the
 * Capacity Scheduler allocates accordingly, and that with Aryl off the outcome is the stock one.
 */
class GangAdmissionIT {
  @TempDir Path dir;

  private record Outcome(int bWhileAHolds, int cWhileAHolds, int bAfterA, int bMaxWhileAHolds) {}

  private Outcome run(YarnConfiguration conf) throws Exception {
    try (ArylMiniCluster cluster = ArylMiniCluster.start("gang", conf, 0, 2);
        TestJob a =
            TestJob.submit(cluster, "a", "training", TestJob.shape(12, 12, 1, 600), 1, true)) {
      a.askWorkers(12);
      await("A holds 12 workers", Duration.ofSeconds(30), () -> a.workers() == 12);
      try (TestJob b =
              TestJob.submit(cluster, "b", "training", TestJob.shape(8, 8, 1, 100), 1, true);
          TestJob c =
              TestJob.submit(cluster, "c", "training", TestJob.shape(4, 4, 1, 1000), 1, true)) {
        b.askWorkers(8);
        Thread.sleep(500); // B asks first: a stock scheduler hands it the 4 free GPUs
        c.askWorkers(4);
        // Whoever gets them, the 4 free GPUs are the last: nothing else can be allocated while A
        // holds 12.
        await(
            "the 4 free GPUs taken by B or C",
            Duration.ofSeconds(30),
            () -> b.workers() + c.workers() == 4);
        int bWhile = b.workers();
        int cWhile = c.workers();
        int bMax = b.observedCounts().stream().mapToInt(Integer::intValue).max().orElse(0);
        a.finish();
        await("B runs its 8 workers after A", Duration.ofSeconds(30), () -> b.workers() == 8);
        return new Outcome(bWhile, cWhile, b.workers(), bMax);
      }
    }
  }

  @Test
  @DisplayName(
      "Aryl on: a gang that does not fit holds nothing, a smaller job backfills, the gang starts whole later")
  void arylHoldsNoPartialGang() throws Exception {
    Outcome o = run(ArylMiniCluster.testConf(dir.toFile()));
    assertThat(o.bMaxWhileAHolds()).as("B's workers while A held 12 of 16 GPUs").isZero();
    assertThat(o.cWhileAHolds()).as("C fits in the 4 free GPUs").isEqualTo(4);
    assertThat(o.bAfterA()).as("B once A is gone").isEqualTo(8);
  }

  @Test
  @DisplayName("Aryl off: exactly the stock CapacityScheduler's outcome, partial gang included")
  void arylOffBehavesLikeStock() throws Exception {
    YarnConfiguration off = ArylMiniCluster.testConf(dir.resolve("off").toFile());
    off.setBoolean("aryl.scheduler.enabled", false);
    Outcome arylOff = run(off);

    YarnConfiguration stock = ArylMiniCluster.testConf(dir.resolve("stock").toFile());
    stock.set(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class.getName());
    stock.set(
        "yarn.scheduler.capacity.root.training.ordering-policy",
        "fifo"); // nothing of Aryl's at all
    Outcome stockOutcome = run(stock);

    assertThat(arylOff).isEqualTo(stockOutcome);
    assertThat(stockOutcome.bWhileAHolds())
        .as("the stock scheduler gives B part of its gang")
        .isEqualTo(4);
  }
}
