package io.aryl.core.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.model.Job;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The multiple-choice knapsack of phase 2: {@link ExactKnapsack} must be optimal (checked against
 * enumerating every combination), {@link GreedyKnapsack} must always be feasible, and {@link
 * ElasticAllocator} must pick between them by the DP's operation count and build each job's group
 * as documented.
 */
@DisplayName("Knapsack")
class KnapsackTest {
  private static final int INSTANCES_PER_FAMILY = 300;
  private static final double EPS = 1e-9;

  record Instance(List<KnapsackGroup> groups, int capacity) {}

  /** Draws a random instance of one family. */
  @FunctionalInterface
  interface Family {
    Instance draw(SplittableRandom rnd);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Reference: every combination

  /** The best total value over all choices of one item per group within the capacity. */
  static double bruteForce(List<KnapsackGroup> groups, int capacity) {
    return bruteForce(groups, 0, capacity);
  }

  private static double bruteForce(List<KnapsackGroup> groups, int from, int left) {
    if (from == groups.size()) {
      return 0;
    }
    KnapsackGroup g = groups.get(from);
    double best = Double.NEGATIVE_INFINITY;
    for (int k = 0; k <= g.maxItem() && g.weight(k) <= left; k++) {
      best = Math.max(best, g.value(k) + bruteForce(groups, from + 1, left - g.weight(k)));
    }
    return best;
  }

  /** Every group gets a valid item and the chosen items fit. */
  static void assertFeasible(List<KnapsackGroup> groups, int capacity, int[] choice) {
    assertThat(choice).hasSize(groups.size());
    int weight = 0;
    for (int i = 0; i < groups.size(); i++) {
      assertThat(choice[i]).as("item of group %d", i).isBetween(0, groups.get(i).maxItem());
      weight += groups.get(i).weight(choice[i]);
    }
    assertThat(weight)
        .as("total weight of %s", java.util.Arrays.toString(choice))
        .isLessThanOrEqualTo(capacity);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Random families

  private static final int[] UNITS_1248 = {1, 2, 4, 8};

  /**
   * 1-5 groups of 0-5 extra items each (up to 6^5 combinations), unit weights from {@code units}.
   */
  private static List<KnapsackGroup> groups(SplittableRandom rnd, int[] units, ValueShape shape) {
    int n = rnd.nextInt(1, 6);
    List<KnapsackGroup> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int items = rnd.nextInt(0, 6);
      out.add(new KnapsackGroup(units[rnd.nextInt(units.length)], shape.values(rnd, items)));
    }
    return out;
  }

  private static int maxWeight(List<KnapsackGroup> groups) {
    return groups.stream().mapToInt(g -> g.weight(g.maxItem())).sum();
  }

  /** A capacity from 0 to a little beyond what all groups' largest items weigh together. */
  private static int someCapacity(SplittableRandom rnd, List<KnapsackGroup> groups) {
    return rnd.nextInt(0, maxWeight(groups) + 4);
  }

  @FunctionalInterface
  interface ValueShape {
    double[] values(SplittableRandom rnd, int maxItem);
  }

  /** Increasing with falling increments: a JCT reduction with diminishing returns. */
  static double[] concave(SplittableRandom rnd, int maxItem) {
    double[] v = new double[maxItem + 1];
    double step = rnd.nextDouble(1, 100);
    for (int k = 1; k <= maxItem; k++) {
      v[k] = v[k - 1] + step;
      step *= rnd.nextDouble(0.3, 1.0);
    }
    return v;
  }

  /** Item 0 is worth 0, later items anything in [-50, 50]. */
  static double[] anySign(SplittableRandom rnd, int maxItem) {
    double[] v = new double[maxItem + 1];
    for (int k = 1; k <= maxItem; k++) {
      v[k] = rnd.nextDouble(-50, 50);
    }
    return v;
  }

  /** Rises to a random peak, then falls (possibly below 0): too many workers hurt. */
  static double[] peakThenFall(SplittableRandom rnd, int maxItem) {
    double[] v = new double[maxItem + 1];
    int peak = rnd.nextInt(0, maxItem + 1);
    for (int k = 1; k <= maxItem; k++) {
      v[k] = v[k - 1] + (k <= peak ? rnd.nextDouble(1, 40) : -rnd.nextDouble(1, 40));
    }
    return v;
  }

  /**
   * A running job that pays a re-scale to leave its current width: every item but one is lowered.
   */
  static double[] runningJob(SplittableRandom rnd, int maxItem) {
    double[] v = concave(rnd, maxItem);
    int current = rnd.nextInt(0, maxItem + 1);
    double rescale = rnd.nextDouble(0, 60);
    for (int k = 0; k <= maxItem; k++) {
      if (k != current) {
        v[k] -= rescale;
      }
    }
    return v;
  }

  static Stream<Arguments> families() {
    return Stream.of(
        family(
            "concave values, unit weights 1/2/4/8",
            rnd -> {
              List<KnapsackGroup> g = groups(rnd, UNITS_1248, KnapsackTest::concave);
              return new Instance(g, someCapacity(rnd, g));
            }),
        family(
            "negative values at k > 0",
            rnd -> {
              List<KnapsackGroup> g = groups(rnd, UNITS_1248, KnapsackTest::anySign);
              return new Instance(g, someCapacity(rnd, g));
            }),
        family(
            "values that fall after a peak",
            rnd -> {
              List<KnapsackGroup> g = groups(rnd, UNITS_1248, KnapsackTest::peakThenFall);
              return new Instance(g, someCapacity(rnd, g));
            }),
        family(
            "running jobs: item 0 may be negative, the current width is a spike",
            rnd -> {
              List<KnapsackGroup> g = groups(rnd, UNITS_1248, KnapsackTest::runningJob);
              return new Instance(g, someCapacity(rnd, g));
            }),
        family(
            "capacity 0: only item 0 fits",
            rnd -> {
              List<KnapsackGroup> g = groups(rnd, UNITS_1248, KnapsackTest::runningJob);
              return new Instance(g, 0);
            }),
        family(
            "capacity beyond every group's largest item",
            rnd -> {
              List<KnapsackGroup> g = groups(rnd, UNITS_1248, KnapsackTest::peakThenFall);
              return new Instance(g, maxWeight(g) + rnd.nextInt(0, 10));
            }),
        // gcd 2: the DP works in units of 2 GPUs; an odd capacity must be rounded down, never up.
        family(
            "gcd reduction: unit weights 2/4/8 only, odd capacity",
            rnd -> {
              List<KnapsackGroup> g = groups(rnd, new int[] {2, 4, 8}, KnapsackTest::anySign);
              return new Instance(g, 2 * rnd.nextInt(0, maxWeight(g) / 2 + 2) + 1);
            }),
        // gcd 3 (units 3, 6, 9): a capacity like 10 is 3 units, 9 GPUs.
        family(
            "gcd reduction: unit weights 3/6/9, any capacity",
            rnd -> {
              List<KnapsackGroup> g = groups(rnd, new int[] {3, 6, 9}, KnapsackTest::concave);
              return new Instance(g, someCapacity(rnd, g));
            }),
        // gcd of {4, 6} is 2, not the smallest unit: reducing by 4 would be wrong.
        family(
            "gcd reduction: unit weights 4/6, gcd smaller than every unit",
            rnd -> {
              List<KnapsackGroup> g = groups(rnd, new int[] {4, 6}, KnapsackTest::peakThenFall);
              return new Instance(g, someCapacity(rnd, g));
            }));
  }

  private static Arguments family(String name, Family family) {
    return Arguments.of(name, family);
  }

  // ---------------------------------------------------------------------------------------------------------
  // ExactKnapsack and GreedyKnapsack against brute force

  @ParameterizedTest(name = "{0}")
  @MethodSource("families")
  void exact_knapsack_finds_the_best_value_of_all_combinations(String name, Family family) {
    SplittableRandom rnd = new SplittableRandom(name.hashCode());
    for (int i = 0; i < INSTANCES_PER_FAMILY; i++) {
      Instance in = family.draw(rnd);

      int[] choice = ExactKnapsack.solve(in.groups(), in.capacity());

      assertFeasible(in.groups(), in.capacity(), choice);
      assertThat(ElasticAllocator.value(in.groups(), choice))
          .as("%s, capacity %d", in.groups(), in.capacity())
          .isCloseTo(bruteForce(in.groups(), in.capacity()), within(EPS));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("families")
  void greedy_knapsack_stays_within_capacity_and_never_beats_the_optimum(
      String name, Family family) {
    SplittableRandom rnd = new SplittableRandom(name.hashCode() + 1L);
    for (int i = 0; i < INSTANCES_PER_FAMILY; i++) {
      Instance in = family.draw(rnd);

      int[] choice = GreedyKnapsack.solve(in.groups(), in.capacity());

      assertFeasible(in.groups(), in.capacity(), choice);
      // Better than the optimum would mean an infeasible choice slipped through or brute force is
      // wrong.
      assertThat(ElasticAllocator.value(in.groups(), choice))
          .isLessThanOrEqualTo(bruteForce(in.groups(), in.capacity()) + EPS);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("families")
  void greedy_knapsack_chooses_as_taking_all_hull_steps_in_sorted_order(
      String name, Family family) {
    SplittableRandom rnd = new SplittableRandom(name.hashCode() + 2L);
    for (int i = 0; i < INSTANCES_PER_FAMILY; i++) {
      Instance in = family.draw(rnd);
      // Loose capacities too, where every step fits and the steps are taken as they are made.
      int capacity = rnd.nextBoolean() ? in.capacity() : maxWeight(in.groups()) + rnd.nextInt(0, 4);

      assertThat(GreedyKnapsack.solve(in.groups(), capacity))
          .as("%s, capacity %d", in.groups(), capacity)
          .containsExactly(SortedGreedy.solve(in.groups(), capacity));
    }
  }

  /**
   * The greedy as first written: every hull step of every group sorted, then taken while it fits.
   */
  private static final class SortedGreedy {
    record Step(int group, int fromK, int toK, int weight, double efficiency) {}

    static int[] solve(List<KnapsackGroup> groups, int capacity) {
      int[] choice = new int[groups.size()];
      List<Step> steps = new ArrayList<>();
      for (int i = 0; i < groups.size(); i++) {
        KnapsackGroup g = groups.get(i);
        List<Integer> hull = new ArrayList<>(List.of(0));
        for (int k = 1; k <= Math.min(g.maxItem(), capacity / g.unitWeight()); k++) {
          if (g.value(k) <= g.value(hull.get(hull.size() - 1))) {
            continue;
          }
          while (hull.size() >= 2
              && !turnsRight(g, hull.get(hull.size() - 2), hull.get(hull.size() - 1), k)) {
            hull.remove(hull.size() - 1);
          }
          hull.add(k);
        }
        for (int h = 1; h < hull.size(); h++) {
          int w = g.weight(hull.get(h)) - g.weight(hull.get(h - 1));
          double gain = g.value(hull.get(h)) - g.value(hull.get(h - 1));
          steps.add(new Step(i, hull.get(h - 1), hull.get(h), w, gain / w));
        }
      }
      steps.sort(
          Comparator.comparingDouble((Step s) -> -s.efficiency())
              .thenComparingInt(Step::group)
              .thenComparingInt(Step::fromK));
      int left = capacity;
      boolean[] closed = new boolean[choice.length];
      for (Step s : steps) {
        if (closed[s.group()] || choice[s.group()] != s.fromK()) {
          continue;
        }
        if (s.weight() <= left) {
          choice[s.group()] = s.toK();
          left -= s.weight();
        } else {
          closed[s.group()] = true;
        }
      }
      for (int i = 0; i < choice.length && left > 0; i++) {
        KnapsackGroup g = groups.get(i);
        int from = choice[i];
        int bestK = from;
        double bestGain = 0;
        for (int k = from + 1; k <= g.maxItem() && g.weight(k) - g.weight(from) <= left; k++) {
          if (g.value(k) - g.value(from) > bestGain) {
            bestGain = g.value(k) - g.value(from);
            bestK = k;
          }
        }
        left -= g.weight(bestK) - g.weight(from);
        choice[i] = bestK;
      }
      return choice;
    }

    static boolean turnsRight(KnapsackGroup g, int a, int b, int c) {
      return (g.value(b) - g.value(a)) / (b - a) > (g.value(c) - g.value(b)) / (c - b);
    }
  }

  @Test
  void greedy_knapsack_stays_within_capacity_on_larger_instances() {
    // Too many combinations to enumerate: feasibility, and the choice of the sorted greedy, across
    // tight and loose
    // capacities; values rounded to fours half of the time, so that steps of different groups tie.
    SplittableRandom rnd = new SplittableRandom(7);
    for (int i = 0; i < 2000; i++) {
      int n = rnd.nextInt(1, 40);
      List<KnapsackGroup> groups = new ArrayList<>();
      for (int j = 0; j < n; j++) {
        int items = rnd.nextInt(0, 12);
        double[] values =
            switch (rnd.nextInt(4)) {
              case 0 -> concave(rnd, items);
              case 1 -> anySign(rnd, items);
              case 2 -> peakThenFall(rnd, items);
              default -> runningJob(rnd, items);
            };
        if (i % 2 == 1) {
          for (int k = 0; k < values.length; k++) {
            values[k] = Math.round(values[k] / 4) * 4.0;
          }
        }
        groups.add(new KnapsackGroup(UNITS_1248[rnd.nextInt(4)], values));
      }
      int capacity = rnd.nextInt(0, maxWeight(groups) + 2);

      int[] choice = GreedyKnapsack.solve(groups, capacity);

      assertFeasible(groups, capacity, choice);
      assertThat(choice)
          .as("%s, capacity %d", groups, capacity)
          .containsExactly(SortedGreedy.solve(groups, capacity));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void exact_knapsack_on_hand_worked_cases(
      String name, List<KnapsackGroup> groups, int capacity, int[] expected) {
    assertThat(ExactKnapsack.solve(groups, capacity)).containsExactly(expected);
  }

  static Stream<Arguments> exact_knapsack_on_hand_worked_cases() {
    return Stream.of(
        Arguments.of("no groups", List.of(), 10, new int[0]),
        // A: 1 GPU each, [0, 1, 1.5]; B: 2 GPUs, [0, 1.9]; capacity 2. Options: A1 = 1, A2 = 1.5,
        // B1 = 1.9.
        Arguments.of(
            "heavier but better item over two efficient ones", trap(), 2, new int[] {0, 1}),
        // A: 3 GPUs, [0, 5]; B: 6 GPUs, [0, 8]; capacity 8 = 2 units of 3 (6 GPUs). Both (9 GPUs,
        // 13) do not fit;
        // B alone (8) beats A alone (5). Rounding the capacity up to 3 units would wrongly take
        // both.
        Arguments.of(
            "capacity not a multiple of the gcd is rounded down",
            List.of(
                new KnapsackGroup(3, new double[] {0, 5}),
                new KnapsackGroup(6, new double[] {0, 8})),
            8,
            new int[] {0, 1}),
        // [0, 10, 3]: item 1 (10) beats item 2 (3) although both fit.
        Arguments.of(
            "a value that falls after its peak stops at the peak",
            List.of(new KnapsackGroup(1, new double[] {0, 10, 3})),
            5,
            new int[] {1}),
        // [0, -5, -1]: every extra worker loses value, so none.
        Arguments.of(
            "negative values are never taken for free capacity",
            List.of(new KnapsackGroup(1, new double[] {0, -5, -1})),
            5,
            new int[] {0}),
        // Running at item 2: [-30, 70, 200]; item 0 costs the re-scale, so staying at 2 (200) is
        // best.
        Arguments.of(
            "a running job stays at its current width when that is best",
            List.of(new KnapsackGroup(2, new double[] {-30, 70, 200})),
            4,
            new int[] {2}),
        // Same group, capacity 2: item 2 (4 GPUs) no longer fits; item 1 (70) beats item 0 (-30).
        Arguments.of(
            "a negative item 0 is left when anything better fits",
            List.of(new KnapsackGroup(2, new double[] {-30, 70, 200})),
            2,
            new int[] {1}));
  }

  /**
   * A: 1 GPU per item, [0, 1, 1.5]; B: 2 GPUs, [0, 1.9]. At capacity 2 the greedy and the optimum
   * differ.
   */
  private static List<KnapsackGroup> trap() {
    return List.of(
        new KnapsackGroup(1, new double[] {0, 1, 1.5}),
        new KnapsackGroup(2, new double[] {0, 1.9}));
  }

  @Test
  void greedy_knapsack_fills_by_value_per_gpu_and_can_miss_the_optimum() {
    // Hull steps by value per GPU: A 0->1 (1/GPU), B 0->1 (0.95/GPU), A 1->2 (0.5/GPU). A 0->1
    // takes 1 GPU; B's
    // 2 GPUs do not fit in the 1 left, so B closes; A 1->2 takes the last GPU: value 1.5, the
    // optimum is 1.9.
    assertThat(GreedyKnapsack.solve(trap(), 2)).containsExactly(2, 0);
  }

  @Test
  void greedy_knapsack_ranks_a_group_by_its_convex_hull_not_its_first_increment() {
    // A: 1 GPU per item, [0, 1, 2, 9]: increments 1, 1, 7, but the hull is a single step 0->3 at
    // 3/GPU.
    // B: 1 GPU, [0, 2.9] (2.9/GPU). Capacity 3: A's hull step goes first and fills it: {3, 0},
    // value 9 (optimal).
    // Ranked by raw increments, B (2.9) would beat A's first increments (1/GPU): {2, 1}, value 4.9.
    List<KnapsackGroup> groups =
        List.of(
            new KnapsackGroup(1, new double[] {0, 1, 2, 9}),
            new KnapsackGroup(1, new double[] {0, 2.9}));

    assertThat(GreedyKnapsack.solve(groups, 3)).containsExactly(3, 0);
  }

  @Test
  void greedy_knapsack_spends_leftover_capacity_on_the_best_single_upgrade() {
    // A: 1 GPU per item, [0, 1, 5]: item 1 lies under the hull, whose only step is 0->2 (5 for 2
    // GPUs, 2.5/GPU).
    // B: 1 GPU, [0, 3] (3/GPU). Capacity 2: B goes first (1 GPU left); A's 2-GPU step does not fit,
    // so A closes.
    // The final pass still fits A's item 1 (+1) in the last GPU: {1, 1}, value 4 (the optimum, A at
    // 2, is 5).
    List<KnapsackGroup> groups =
        List.of(
            new KnapsackGroup(1, new double[] {0, 1, 5}),
            new KnapsackGroup(1, new double[] {0, 3}));

    assertThat(GreedyKnapsack.solve(groups, 2)).containsExactly(1, 1);
  }

  // ---------------------------------------------------------------------------------------------------------
  // ExactKnapsack.cost and ElasticAllocator's choice of solver

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void exact_knapsack_cost_counts_cells_times_items_that_fit(
      String name, List<KnapsackGroup> groups, int capacity, long expected) {
    assertThat(ExactKnapsack.cost(groups, capacity)).isEqualTo(expected);
  }

  static Stream<Arguments> exact_knapsack_cost_counts_cells_times_items_that_fit() {
    return Stream.of(
        Arguments.of("no groups", List.of(), 100, 0L),
        // gcd 1, 2 + 1 = 3 cells; A: min(3 items, 2/1 + 1 = 3) = 3 -> 9; B: min(2, 2/2 + 1 = 2) = 2
        // -> 6; 15.
        Arguments.of("two groups, gcd 1", trap(), 2, 15L),
        // gcd 3, 8/3 + 1 = 3 cells; A: min(2, 8/3 + 1 = 3) = 2 -> 6; B: min(2, 8/6 + 1 = 2) = 2 ->
        // 6; 12.
        Arguments.of(
            "gcd 3",
            List.of(
                new KnapsackGroup(3, new double[] {0, 5}),
                new KnapsackGroup(6, new double[] {0, 8})),
            8,
            12L),
        // gcd 4, 8/4 + 1 = 3 cells; min(6 items, 8/4 + 1 = 3) = 3 -> 9: items beyond the capacity
        // are not counted.
        Arguments.of(
            "items heavier than the capacity are not counted",
            List.of(new KnapsackGroup(4, new double[] {0, 1, 2, 3, 4, 5})),
            8,
            9L),
        // 0/2 + 1 = 1 cell; min(3, 0/2 + 1 = 1) = 1 -> 1.
        Arguments.of("capacity 0", List.of(new KnapsackGroup(2, new double[] {0, 1, 2})), 0, 1L));
  }

  @Test
  void elastic_allocator_solves_exactly_up_to_the_ops_limit_and_greedily_above() {
    // The trap costs 15 ops (see above): exact gives {0, 1} (1.9), greedy {2, 0} (1.5).
    assertThat(ExactKnapsack.cost(trap(), 2)).isEqualTo(15L);

    assertThat(new ElasticAllocator(15).allocate(trap(), 2)).containsExactly(0, 1);
    assertThat(new ElasticAllocator(14).allocate(trap(), 2)).containsExactly(2, 0);
    assertThat(new ElasticAllocator(0).allocate(trap(), 2)).containsExactly(2, 0);
    assertThat(new ElasticAllocator().allocate(trap(), 2)).containsExactly(0, 1);
  }

  @Test
  void elastic_allocator_returns_what_the_chosen_solver_returns() {
    SplittableRandom rnd = new SplittableRandom(11);
    int differing = 0;
    for (int i = 0; i < 2000; i++) {
      List<KnapsackGroup> groups = groups(rnd, UNITS_1248, KnapsackTest::runningJob);
      int capacity = someCapacity(rnd, groups);
      long cost = ExactKnapsack.cost(groups, capacity);
      int[] exact = ExactKnapsack.solve(groups, capacity);
      int[] greedy = GreedyKnapsack.solve(groups, capacity);

      assertThat(new ElasticAllocator(cost).allocate(groups, capacity)).containsExactly(exact);
      if (cost > 0) {
        assertThat(new ElasticAllocator(cost - 1).allocate(groups, capacity))
            .containsExactly(greedy);
      }
      if (!java.util.Arrays.equals(exact, greedy)) {
        differing++;
      }
    }
    // Else the two checks above could not tell the solvers apart.
    assertThat(differing).isPositive();
  }

  @Test
  void elastic_allocator_refuses_negative_limits_and_capacities() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ElasticAllocator(-1))
        .withMessageContaining("exactOpsLimit")
        .withMessageContaining("-1");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ElasticAllocator().allocate(trap(), -2))
        .withMessageContaining("capacityGpus")
        .withMessageContaining("-2");
  }

  // ---------------------------------------------------------------------------------------------------------
  // ElasticAllocator.groupFor

  /**
   * 2..6 workers of 2 GPUs, linear speedup, 1200 s predicted at min. At min + i workers it runs
   * {@code 1200 * 2 / (2 + i)} s, so the reduction is 0, 400, 600, 720, 800 for i = 0..4.
   */
  private static Job elasticJob() {
    return Job.builder("j").gpusPerWorker(2).workers(2, 6).remainingS(1200).build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void group_for_values_each_width_by_its_predicted_jct_reduction(
      String name,
      Job job,
      int maxExtra,
      int currentExtra,
      boolean running,
      double rescale,
      double[] expected) {
    KnapsackGroup g = ElasticAllocator.groupFor(job, maxExtra, currentExtra, running, rescale);

    assertThat(g.unitWeight()).isEqualTo(job.gpusPerWorker());
    assertThat(g.maxItem()).isEqualTo(expected.length - 1);
    for (int k = 0; k < expected.length; k++) {
      assertThat(g.value(k)).as("item %d", k).isCloseTo(expected[k], within(1e-9));
    }
  }

  static Stream<Arguments> group_for_values_each_width_by_its_predicted_jct_reduction() {
    Job j = elasticJob();
    return Stream.of(
        Arguments.of(
            "starting job: item 0 is 0, no re-scale charged",
            j,
            4,
            0,
            false,
            50.0,
            new double[] {0, 400, 600, 720, 800}),
        Arguments.of(
            "capped by max - min (4) when more could be placed",
            j,
            10,
            0,
            false,
            50.0,
            new double[] {0, 400, 600, 720, 800}),
        Arguments.of(
            "capped by maxExtra when fewer can be placed",
            j,
            2,
            0,
            false,
            50.0,
            new double[] {0, 400, 600}),
        Arguments.of("no room at all: only item 0", j, 0, 0, false, 50.0, new double[] {0}),
        Arguments.of("negative maxExtra is no room", j, -3, 0, false, 50.0, new double[] {0}),
        // Every width but the current one (0) pays 50: 400 - 50, 600 - 50, ...
        Arguments.of(
            "running at min: re-scale charged to every item but 0",
            j,
            4,
            0,
            true,
            50.0,
            new double[] {0, 350, 550, 670, 750}),
        // Current width 2 extras keeps 600; item 0 becomes 0 - 50.
        Arguments.of(
            "running with 2 extras: item 0 pays the re-scale too",
            j,
            4,
            2,
            true,
            50.0,
            new double[] {-50, 350, 600, 670, 750}),
        // The job runs 4 extras but only 2 fit now: every offered width is a change.
        Arguments.of(
            "running wider than now allowed: every item pays",
            j,
            2,
            4,
            true,
            50.0,
            new double[] {-50, 350, 550}),
        Arguments.of(
            "inelastic job: only item 0",
            Job.builder("g").gpusPerWorker(4).workers(3, 3).remainingS(1200).build(),
            8,
            0,
            false,
            50.0,
            new double[] {0}));
  }

  @Test
  void group_for_uses_the_predicted_not_the_true_remaining_time() {
    // Predicted 1200 s (true 9999 s) at 2..6 workers: the same reductions as elasticJob(), 0, 400,
    // 600, 720, 800.
    Job job =
        Job.builder("j")
            .gpusPerWorker(2)
            .workers(2, 6)
            .remainingS(9999)
            .predictedRemainingS(1200)
            .build();

    KnapsackGroup g = ElasticAllocator.groupFor(job, 4, 0, false, 0);

    assertThat(g).isEqualTo(new KnapsackGroup(2, new double[] {0, 400, 600, 720, 800}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void elastic_value_weights_every_item_by_the_job(
      String name, ElasticValue value, double remainingS, double weight) {
    Job job = Job.builder("j").gpusPerWorker(2).workers(2, 6).remainingS(remainingS).build();
    assertThat(value.weight(job)).isCloseTo(weight, within(1e-12));
    KnapsackGroup plain = ElasticAllocator.groupFor(job, 4, 2, true, 50);
    KnapsackGroup weighted = ElasticAllocator.groupFor(job, 4, 2, true, 50, value);
    for (int k = 0; k <= plain.maxItem(); k++) {
      assertThat(weighted.value(k))
          .as("item %d", k)
          .isCloseTo(plain.value(k) * weight, within(1e-9));
    }
  }

  static Stream<Arguments> elastic_value_weights_every_item_by_the_job() {
    return Stream.of(
        Arguments.of("the paper: seconds, unweighted", ElasticValue.JCT_REDUCTION, 7200.0, 1.0),
        Arguments.of(
            "shortest remaining first: 2 h left weighs 1/4",
            ElasticValue.SHORTEST_REMAINING_FIRST,
            7200.0,
            0.25),
        Arguments.of(
            "shortest remaining first: 30 min left weighs 4",
            ElasticValue.SHORTEST_REMAINING_FIRST,
            1800.0,
            4.0),
        Arguments.of(
            "shortest remaining first: under a minute weighs as a minute",
            ElasticValue.SHORTEST_REMAINING_FIRST,
            5.0,
            3600.0));
  }
}
