package io.aryl.core.reclaim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How good the least-cost greedy is: on random small clusters its cost is compared with the optimum
 * (brute force over every N-subset of the eligible servers) and with the two ablations, all priced
 * by the same {@link ReclaimCandidates#costOf}.
 */
@DisplayName("Reclaim quality")
class ReclaimQualityTest {
  private static final long SEED = 0x5EC1A1L;
  private static final int INSTANCES = 200;
  private static final int MAX_RECLAIM = 4;
  private static final ReclaimCostModel COSTS = ReclaimCostModel.defaults();
  private static final GpuType A100 = GpuType.of("A100");
  private static final GpuType T4 = GpuType.of("T4", 0.3);
  private static final double EPS = 1e-6;

  /** Running totals for one reclaim size (or all sizes). */
  private static final class Tally {
    int cases;
    int ratioCases; // cases where the ratio greedy / optimum is defined
    double ratioSum;
    double worstRatio = 1;
    int nonzeroWhereOptimumZero;
    int greedyOptimal;
    int optimumPositive; // cases where even the best choice touches a job
    double optimumSum;
    double greedySum;
    double randomSum;
    double fewestBusySum;

    void add(double optimum, double greedy, double random, double fewestBusy) {
      cases++;
      optimumSum += optimum;
      greedySum += greedy;
      randomSum += random;
      fewestBusySum += fewestBusy;
      if (greedy <= optimum + EPS) {
        greedyOptimal++;
      }
      if (optimum > EPS) {
        optimumPositive++;
        double ratio = greedy / optimum;
        ratioCases++;
        ratioSum += ratio;
        worstRatio = Math.max(worstRatio, ratio);
      } else if (greedy <= EPS) {
        ratioCases++; // both free: as good as it gets
        ratioSum += 1;
      } else {
        nonzeroWhereOptimumZero++;
      }
    }

    double meanRatio() {
      return ratioSum / ratioCases;
    }

    String row(String label) {
      return String.format(
          Locale.ROOT,
          "%-5s %6d %9.4f %9.4f %8d %9.1f%% %10.3f %10.3f %10.3f",
          label,
          cases,
          meanRatio(),
          worstRatio,
          nonzeroWhereOptimumZero,
          100.0 * greedyOptimal / cases,
          optimumSum / greedySum,
          randomSum / greedySum,
          fewestBusySum / greedySum);
    }
  }

  @Test
  void least_cost_greedy_is_near_optimal_and_cheaper_than_random_or_fewest_busy_gpus() {
    SplittableRandom rnd = new SplittableRandom(SEED);
    Tally all = new Tally();
    Tally[] byN = new Tally[MAX_RECLAIM + 1];
    for (int n = 1; n <= MAX_RECLAIM; n++) {
      byN[n] = new Tally();
    }

    for (int instance = 0; instance < INSTANCES; instance++) {
      ClusterState state = randomCluster(rnd);
      for (int n = 1; n <= MAX_RECLAIM; n++) {
        ReclaimRequest request = ReclaimRequest.any(n);
        ReclaimCandidates candidates = new ReclaimCandidates(state, request, COSTS);
        double optimum = bruteForceOptimum(candidates, n);

        double greedy = costChecked(state, request, candidates, ServerChooser.leastCost());
        double random =
            costChecked(state, request, candidates, ServerChooser.random(instance * 31L + n));
        double fewestBusy = costChecked(state, request, candidates, ServerChooser.fewestBusyGpus());

        // Nothing beats the optimum: if anything did, brute force or costOf would be wrong.
        assertThat(greedy).isGreaterThanOrEqualTo(optimum - EPS);
        assertThat(random).isGreaterThanOrEqualTo(optimum - EPS);
        assertThat(fewestBusy).isGreaterThanOrEqualTo(optimum - EPS);
        // With one server the greedy's first pick is the cheapest server: optimal by construction.
        if (n == 1) {
          assertThat(greedy).isCloseTo(optimum, within(EPS));
        }

        all.add(optimum, greedy, random, fewestBusy);
        byN[n].add(optimum, greedy, random, fewestBusy);
      }
    }

    System.out.println(
        "Reclaim quality: "
            + INSTANCES
            + " random clusters x N = 1.."
            + MAX_RECLAIM
            + " (ratio = greedy / optimum; 'opt/greedy', 'random/greedy', 'busy/greedy' = mean cost relative to greedy)");
    System.out.println(
        "N      cases mean-ratio worst-ratio  nz@opt0  greedy-opt opt/greedy random/greedy busy/greedy");
    for (int n = 1; n <= MAX_RECLAIM; n++) {
      System.out.println(byN[n].row(Integer.toString(n)));
    }
    System.out.println(all.row("all"));
    System.out.println(
        "cases where every choice touches a job (optimum > 0): "
            + all.optimumPositive
            + " of "
            + all.cases);

    // Else the comparison would be vacuous: mostly idle servers make every strategy free.
    assertThat(all.optimumPositive).isGreaterThan(all.cases / 2);

    assertThat(all.greedySum).as("greedy's mean cost vs random's").isLessThan(all.randomSum);
    assertThat(all.greedySum)
        .as("greedy's mean cost vs fewest-busy-GPUs'")
        .isLessThan(all.fewestBusySum);
    // The requirement is a mean ratio <= 1.10. Measured with this seed: mean 1.024 (worst 2.00,
    // optimal in 90.5% of
    // cases; single-server greedy alone: mean 1.042, worst 2.38), so the bound is tightened to 1.04
    // to catch a
    // regression. The worst cases are inherent to a myopic greedy: it takes cheap shrinks first,
    // then must preempt
    // where the optimum makes a different set of shrinks.
    assertThat(all.meanRatio()).as("greedy's mean ratio to the optimum").isLessThanOrEqualTo(1.04);
  }

  /** Runs the planner with {@code chooser}, checks the plan's shape, and returns its cost. */
  private static double costChecked(
      ClusterState state,
      ReclaimRequest request,
      ReclaimCandidates candidates,
      ServerChooser chooser) {
    ReclaimPlan plan = new ReclaimPlanner(COSTS, chooser).plan(state, request);
    assertThat(plan.isFeasible()).isTrue();
    assertThat(plan.servers()).hasSize(request.servers()).doesNotHaveDuplicates();
    assertThat(candidates.eligible()).containsAll(plan.servers());
    double cost = candidates.costOf(plan.servers());
    assertThat(plan.costGpuS()).isCloseTo(cost, within(EPS));
    return cost;
  }

  /** The least cost over every {@code n}-subset of the eligible servers. */
  private static double bruteForceOptimum(ReclaimCandidates candidates, int n) {
    List<String> eligible = candidates.eligible();
    double[] best = {Double.POSITIVE_INFINITY};
    enumerate(eligible, n, 0, new ArrayList<>(), candidates, best);
    return best[0];
  }

  private static void enumerate(
      List<String> eligible,
      int n,
      int from,
      List<String> chosen,
      ReclaimCandidates candidates,
      double[] best) {
    if (chosen.size() == n) {
      best[0] = Math.min(best[0], candidates.costOf(chosen));
      return;
    }
    for (int i = from; i <= eligible.size() - (n - chosen.size()); i++) {
      chosen.add(eligible.get(i));
      enumerate(eligible, n, i + 1, chosen, candidates, best);
      chosen.remove(chosen.size() - 1);
    }
  }

  /**
   * 2-3 training servers (8 GPUs), 6-10 loaned servers (4 or 8 GPUs), 4-12 jobs: half elastic, 1-4
   * GPUs per worker, checkpointed 0-60 min ago, each worker placed on a random server with room (so
   * jobs span servers). Jobs that cannot place their minimum stay queued.
   */
  static ClusterState randomCluster(SplittableRandom rnd) {
    List<Server> servers = new ArrayList<>();
    int training = rnd.nextInt(2, 4);
    for (int i = 0; i < training; i++) {
      servers.add(Server.training("t" + i, A100, 8));
    }
    int loaned = rnd.nextInt(6, 11);
    for (int i = 0; i < loaned; i++) {
      servers.add(
          Server.loaned(String.format(Locale.ROOT, "i%02d", i), T4, rnd.nextBoolean() ? 4 : 8));
    }
    Map<String, Integer> free = new HashMap<>();
    servers.forEach(s -> free.put(s.id(), s.gpus()));

    List<Job> jobs = new ArrayList<>();
    Map<String, Allocation> allocations = new HashMap<>();
    int jobCount = rnd.nextInt(4, 13);
    int[] gpuChoices = {1, 1, 2, 4};
    for (int j = 0; j < jobCount; j++) {
      int gpw = gpuChoices[rnd.nextInt(gpuChoices.length)];
      boolean elastic = rnd.nextBoolean();
      int min = rnd.nextInt(1, 4);
      int max = elastic ? min + rnd.nextInt(1, 5) : min;
      Job job =
          Job.builder(String.format(Locale.ROOT, "j%02d", j))
              .gpusPerWorker(gpw)
              .workers(min, max)
              .remainingS(3600)
              .sinceCheckpointS(rnd.nextDouble(0, 3600))
              .build();
      jobs.add(job);

      int want = rnd.nextInt(min, max + 1);
      Map<String, Integer> placed = new HashMap<>();
      int count = 0;
      for (int w = 0; w < want; w++) {
        List<String> fits = new ArrayList<>();
        for (Server s : servers) {
          if (free.get(s.id()) - placed.getOrDefault(s.id(), 0) * gpw >= gpw) {
            fits.add(s.id());
          }
        }
        if (fits.isEmpty()) {
          break;
        }
        placed.merge(fits.get(rnd.nextInt(fits.size())), 1, Integer::sum);
        count++;
      }
      if (count >= min) {
        placed.forEach((s, w) -> free.merge(s, -w * gpw, Integer::sum));
        allocations.put(job.id(), Allocation.of(placed));
      }
    }
    return ClusterState.of(0, servers, jobs, allocations);
  }
}
