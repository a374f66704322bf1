package io.aryl.core;

import io.aryl.core.admission.Admission;
import io.aryl.core.elastic.ElasticAllocator;
import io.aryl.core.elastic.KnapsackGroup;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.placement.BaseSplit;
import io.aryl.core.placement.FreeGpuIndex;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.placement.ServerTable;
import io.aryl.core.placement.WorkerRole;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One scheduling round of the Aryl policy: a {@link ClusterState} in, a {@link Plan} out. Pure: the same state
 * always gives the same plan, and nothing outside the arguments is read.
 *
 * <ol>
 *   <li>Running jobs keep their base workers where they are; their flexible workers are re-decided.
 *   <li>Phase 1, {@link Admission}: queued jobs' base gangs, all or nothing, shortest predicted first, with a
 *       starvation guard; placed best-fit decreasing, base workers preferring the training pool's own servers.
 *   <li>Phase 2, {@link ElasticAllocator}: the GPUs left are shared among elastic jobs by a multiple-choice
 *       knapsack on predicted JCT reduction. Flexible workers stay where they run when they can (no needless
 *       moves) and new ones go best-fit, preferring loaned servers.
 * </ol>
 */
public final class RoundPlanner {
  private final PolicyConfig config;
  private final Admission admission;
  private final ElasticAllocator allocator;

  public RoundPlanner(PolicyConfig config) {
    this.config = config;
    this.admission = new Admission(config.jobOrder(), config.starvationWaitS(), config.speedAware());
    this.allocator = new ElasticAllocator(config.exactKnapsackOpsLimit());
  }

  public PolicyConfig config() {
    return config;
  }

  /** A job's workers by dense server index (sparse, sorted), split into base and flexible. */
  private static final class Placed {
    final Job job;
    final boolean running;
    final TreeMap<Integer, Integer> base = new TreeMap<>();
    final TreeMap<Integer, Integer> flexibleNow = new TreeMap<>();
    final TreeMap<Integer, Integer> extras = new TreeMap<>();
    int flexibleNowCount;
    boolean[] types;

    Placed(Job job, boolean running) {
      this.job = job;
      this.running = running;
    }
  }

  public Plan plan(ClusterState state) {
    ServerTable table = new ServerTable(state.servers());
    int n = table.size();
    int[] spare = new int[n];
    int[] flexible = new int[n];
    for (int s = 0; s < n; s++) {
      spare[s] = table.gpus(s);
    }

    List<Placed> placed = new ArrayList<>();
    List<Job> queued = new ArrayList<>();
    for (Job job : state.jobs()) {
      Allocation a = state.allocation(job.id());
      if (a.isEmpty()) {
        queued.add(job);
        continue;
      }
      Placed p = splitBaseAndFlexible(job, a, table);
      p.base.forEach((s, w) -> spare[s] -= w * job.gpusPerWorker());
      p.flexibleNow.forEach((s, w) -> flexible[s] += w * job.gpusPerWorker());
      placed.add(p);
    }
    GpuBudget budget = new GpuBudget(table, spare, flexible);

    List<Placed> running = List.copyOf(placed);
    Admission.Result admitted = admission.admit(queued, state.nowS(), budget, () -> releases(running));
    for (Map.Entry<Job, int[]> e : admitted.admitted().entrySet()) {
      Placed p = new Placed(e.getKey(), false);
      for (int s : e.getValue()) {
        p.base.merge(s, 1, Integer::sum);
      }
      placed.add(p);
    }

    if (config.elastic()) {
      growElastic(placed, budget, table);
    }

    Map<String, Allocation> targets = new TreeMap<>();
    for (Placed p : placed) {
      Map<String, Integer> workers = new HashMap<>();
      p.base.forEach((s, w) -> workers.merge(table.id(s), w, Integer::sum));
      p.extras.forEach((s, w) -> workers.merge(table.id(s), w, Integer::sum));
      targets.put(p.job.id(), Allocation.of(workers));
    }
    return Plan.between(state, targets);
  }

  /**
   * Which of a running job's workers are its base: those on the training pool's own open servers first, then on
   * loaned open servers, then on fenced ones, each by server order. The rest are flexible.
   */
  /** When running jobs are predicted to end and free their base GPUs: needed only if a starving job reserves. */
  private static List<Admission.Release> releases(List<Placed> running) {
    List<Admission.Release> releases = new ArrayList<>();
    for (Placed p : running) {
      int workers = p.job.minWorkers() + p.flexibleNowCount;
      double endsIn = p.job.predictedRuntimeAt(workers);
      p.base.forEach((s, w) -> releases.add(new Admission.Release(endsIn, s, w * p.job.gpusPerWorker())));
    }
    return releases;
  }

  private static Placed splitBaseAndFlexible(Job job, Allocation a, ServerTable table) {
    Placed p = new Placed(job, true);
    p.flexibleNowCount = BaseSplit.split(job, a, table,
        Comparator.comparingInt((Integer s) -> !table.open(s) ? 2 : table.loaned(s) ? 1 : 0), p.base, p.flexibleNow);
    return p;
  }

  private void growElastic(List<Placed> placed, GpuBudget budget, ServerTable table) {
    FreeGpuIndex spare = budget.spareIndex();
    int capacity = 0;
    for (int s = 0; s < table.size(); s++) {
      if (table.open(s)) {
        capacity += spare.free(s);
      }
    }
    List<Placed> elastic = new ArrayList<>();
    List<KnapsackGroup> groups = new ArrayList<>();
    Map<Long, Integer> fitCache = new HashMap<>();
    for (Placed p : placed) {
      if (!p.job.isElastic()) {
        continue;
      }
      p.types = table.allowedTypes(p.job);
      if (config.speedAware()) {
        p.types = table.atLeastAsFast(p.types, slowestBaseSpeed(p, table));
      }
      long key = p.job.gpusPerWorker() * 1_000_003L + typeMask(p.types);
      int fit = fitCache.computeIfAbsent(key, k -> spare.fittingWorkers(p.job.gpusPerWorker(), p.types));
      int current = p.flexibleNowCount;
      elastic.add(p);
      groups.add(ElasticAllocator.groupFor(p.job, fit, current, p.running, config.rescaleOverheadS()));
    }
    if (elastic.isEmpty() || capacity == 0) {
      return;
    }
    int[] want = allocator.allocate(groups, capacity);

    // Largest workers first (best-fit decreasing); ties by job id for determinism.
    Integer[] order = new Integer[elastic.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingInt((Integer i) -> -elastic.get(i).job.gpusPerWorker())
        .thenComparing(i -> elastic.get(i).job.id()));

    // Keep flexible workers where they already run, as far as wanted and still spare.
    int[] got = new int[elastic.size()];
    for (int i : order) {
      Placed p = elastic.get(i);
      int g = p.job.gpusPerWorker();
      for (int pass = 0; pass < 2 && got[i] < want[i]; pass++) {
        boolean loanedPass = pass == 0;
        for (Map.Entry<Integer, Integer> e : p.flexibleNow.entrySet()) {
          int s = e.getKey();
          if (got[i] >= want[i] || !table.open(s) || table.loaned(s) != loanedPass || !p.types[table.typeIndex(s)]) {
            continue;
          }
          int keep = Math.min(Math.min(e.getValue(), want[i] - got[i]), spare.free(s) / g);
          if (keep > 0) {
            budget.take(s, keep * g);
            p.extras.merge(s, keep, Integer::sum);
            got[i] += keep;
          }
        }
      }
    }
    // New flexible workers, best fit, loaned servers first.
    for (int i : order) {
      got[i] += placeExtras(elastic.get(i), want[i] - got[i], budget);
    }
    // What fragmentation left over goes to jobs that still gain from it, largest gain per GPU first.
    Integer[] byGain = order.clone();
    Arrays.sort(byGain, Comparator.comparingDouble((Integer i) -> -marginalPerGpu(groups.get(i), got[i]))
        .thenComparing(i -> elastic.get(i).job.id()));
    for (int i : byGain) {
      KnapsackGroup g = groups.get(i);
      while (got[i] < g.maxItem() && g.value(got[i] + 1) > g.value(got[i])) {
        if (placeExtras(elastic.get(i), 1, budget) == 0) {
          break;
        }
        got[i]++;
      }
    }
  }

  private static double slowestBaseSpeed(Placed p, ServerTable table) {
    double slowest = Double.POSITIVE_INFINITY;
    for (int s : p.base.keySet()) {
      slowest = Math.min(slowest, table.server(s).gpuType().trainingSpeed());
    }
    return slowest;
  }

  private static int placeExtras(Placed p, int count, GpuBudget budget) {
    int g = p.job.gpusPerWorker();
    int placedCount = 0;
    for (int w = 0; w < count; w++) {
      int s = budget.spareIndex().bestFit(g, p.types, WorkerRole.FLEXIBLE);
      if (s < 0) {
        break;
      }
      budget.take(s, g);
      p.extras.merge(s, 1, Integer::sum);
      placedCount++;
    }
    return placedCount;
  }

  private static double marginalPerGpu(KnapsackGroup g, int k) {
    return k >= g.maxItem() ? Double.NEGATIVE_INFINITY : (g.value(k + 1) - g.value(k)) / g.unitWeight();
  }

  private static long typeMask(boolean[] types) {
    long m = 0;
    for (int t = 0; t < types.length && t < 63; t++) {
      if (types[t]) {
        m |= 1L << t;
      }
    }
    return m;
  }
}
