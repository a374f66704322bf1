package io.aryl.core.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.Job;
import io.aryl.core.speedup.SpeedupModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How far {@link GreedyKnapsack} falls short of {@link ExactKnapsack} on instances shaped like a
 * cluster's phase 2: many elastic jobs, each group built by {@link ElasticAllocator#groupFor} from
 * a power-law speedup and a random remaining time, half of them running (so they pay a re-scale to
 * change width). The greedy is what large clusters get, so its gap is what they lose.
 */
@DisplayName("GreedyKnapsack gap to the optimum")
class GreedyGapTest {
  private static final long SEED = 0xE1A571CL;
  private static final int INSTANCES = 300;
  private static final double RESCALE_OVERHEAD_S = 30;
  private static final int[] GPUS_PER_WORKER = {1, 2, 4, 8};

  @Test
  void greedy_is_within_one_percent_of_the_optimum_on_average_on_cluster_like_instances() {
    SplittableRandom rnd = new SplittableRandom(SEED);
    double gapSum = 0;
    double maxGap = 0;
    int exactHits = 0;
    for (int i = 0; i < INSTANCES; i++) {
      List<KnapsackGroup> groups = clusterLikeGroups(rnd);
      int total = 0;
      for (KnapsackGroup g : groups) {
        total += g.weight(g.maxItem());
      }
      int capacity = (int) Math.round(total * rnd.nextDouble(0.2, 0.6));

      int[] exact = ExactKnapsack.solve(groups, capacity);
      int[] greedy = GreedyKnapsack.solve(groups, capacity);
      KnapsackTest.assertFeasible(groups, capacity, exact);
      KnapsackTest.assertFeasible(groups, capacity, greedy);
      double exactValue = ElasticAllocator.value(groups, exact);
      double greedyValue = ElasticAllocator.value(groups, greedy);

      // The optimum is positive here (at 20% capacity some job always gains far more than a 30 s
      // re-scale), so
      // the relative gap is defined; the greedy can never beat it.
      assertThat(exactValue).isPositive();
      assertThat(greedyValue).isLessThanOrEqualTo(exactValue + 1e-6 * exactValue);
      double gap = (exactValue - greedyValue) / exactValue;
      gapSum += gap;
      maxGap = Math.max(maxGap, gap);
      if (gap <= 1e-12) {
        exactHits++;
      }
    }
    double meanGap = gapSum / INSTANCES;
    System.out.printf(
        Locale.ROOT,
        "GreedyKnapsack vs ExactKnapsack over %d instances: mean gap %.4f%%, max gap %.4f%%, optimal in %d%n",
        INSTANCES,
        100 * meanGap,
        100 * maxGap,
        exactHits);

    // Required: a mean gap of at most 1%. Measured with this seed: mean 0.0023%, max 0.061%,
    // optimal in 165 of 300.
    assertThat(meanGap).as("mean relative gap (exact - greedy) / exact").isLessThanOrEqualTo(0.01);
  }

  /**
   * 30-200 elastic jobs: 1, 2, 4 or 8 GPUs per worker, min 1-4 workers, 1-8 extra workers,
   * throughput {@code n^e} with e in [0.5, 0.95], predicted remaining time log-uniform in 10
   * min..24 h, half running at a random current width.
   */
  private static List<KnapsackGroup> clusterLikeGroups(SplittableRandom rnd) {
    int n = rnd.nextInt(30, 201);
    List<KnapsackGroup> groups = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int extra = rnd.nextInt(1, 9);
      int min = rnd.nextInt(1, 5);
      double remaining = Math.exp(rnd.nextDouble(Math.log(600), Math.log(86_400)));
      Job job =
          Job.builder("j" + i)
              .gpusPerWorker(GPUS_PER_WORKER[rnd.nextInt(GPUS_PER_WORKER.length)])
              .workers(min, min + extra)
              .remainingS(remaining)
              .speedup(SpeedupModel.powerLaw(rnd.nextDouble(0.5, 0.95)))
              .build();
      boolean running = rnd.nextBoolean();
      int current = running ? rnd.nextInt(0, extra + 1) : 0;
      groups.add(ElasticAllocator.groupFor(job, extra, current, running, RESCALE_OVERHEAD_S));
    }
    return groups;
  }
}
