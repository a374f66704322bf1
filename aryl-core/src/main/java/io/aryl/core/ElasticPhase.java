package io.aryl.core;

import io.aryl.core.elastic.ElasticAllocator;
import io.aryl.core.elastic.KnapsackGroup;
import io.aryl.core.model.BelowMax;
import io.aryl.core.placement.FreeGpuIndex;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.placement.ServerTable;
import io.aryl.core.placement.WorkerRole;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Phase 2 of a round: the GPUs base demand left over are shared among elastic jobs by a
 * multiple-choice knapsack ({@link ElasticAllocator}), then placed. Flexible workers stay where
 * they run when they can (no needless moves); new ones go best-fit, preferring loaned servers.
 *
 * <p>With tenants, each tenant's idle guarantee (its guarantee less its base workers' GPUs on the
 * own servers) is first offered to its own elastic jobs, by the same knapsack; then every GPU still
 * spare goes to every tenant's elastic jobs by value, as without tenants. A tenant's own unused
 * quota is idle only when its own jobs do not want it: alone on its guarantee its elastic jobs
 * would grow into it.
 */
final class ElasticPhase {
  private final PolicyConfig config;
  private final ElasticAllocator allocator;

  ElasticPhase(PolicyConfig config) {
    this.config = config;
    this.allocator = new ElasticAllocator(config.exactKnapsackOpsLimit());
  }

  /**
   * What phase 2 chose: per elastic job (in {@code jobs} order) its knapsack group, the extras the
   * knapsack chose for it ({@code want}) and the extras it got.
   */
  @SuppressWarnings("ArrayRecordComponent") // counts per job of a round, never compared
  record Growth(List<PlacedJob> jobs, List<KnapsackGroup> groups, int[] want, int[] got) {
    static final Growth NONE = new Growth(List.of(), List.of(), new int[0], new int[0]);
  }

  /**
   * Gives extras to the elastic jobs of {@code placed} that are not settled, taking their GPUs from
   * the budget.
   */
  Growth grow(List<PlacedJob> placed, GpuBudget budget, ServerTable table) {
    return grow(placed, budget, table, null);
  }

  /**
   * As {@link #grow(List, GpuBudget, ServerTable)}; {@code idleQuota} (null: no tenants) gives each
   * tenant's GPUs its own elastic jobs may take first.
   */
  Growth grow(
      List<PlacedJob> placed, GpuBudget budget, ServerTable table, Map<String, Integer> idleQuota) {
    FreeGpuIndex spare = budget.spareIndex();
    List<PlacedJob> elastic = new ArrayList<>(placed.size());
    List<KnapsackGroup> groups = new ArrayList<>(placed.size());
    FitCache fits = new FitCache(spare);
    for (PlacedJob p : placed) {
      if (!p.job.isElastic() || p.settled) {
        continue;
      }
      p.types = table.allowedTypes(p.job);
      if (config.speedAware()) {
        p.types = table.ofSpeed(p.types, p.baseSpeed(table));
      }
      int fit = fits.workers(p.job.gpusPerWorker(), p.types);
      elastic.add(p);
      groups.add(
          ElasticAllocator.groupFor(
              p.job,
              fit,
              p.flexibleNowCount,
              p.running,
              config.rescaleOverheadS(),
              config.elasticValue()));
    }
    if (elastic.isEmpty()) {
      return Growth.NONE;
    }
    int[] want = allocatePerTypeSet(elastic, groups, spare, table, idleQuota);

    // Largest workers first (best-fit decreasing); ties by job id for determinism.
    int n = elastic.size();
    int[] gpus = new int[n];
    String[] ids = new String[n];
    for (int i = 0; i < n; i++) {
      gpus[i] = elastic.get(i).job.gpusPerWorker();
      ids[i] = elastic.get(i).job.id();
    }
    int[] byId = IndexOrder.byId(ids);
    int[] order = IndexOrder.bySizeFalling(byId, gpus);

    // Keep flexible workers where they already run, as far as wanted and still spare.
    int[] got = new int[elastic.size()];
    for (int i : order) {
      PlacedJob p = elastic.get(i);
      int g = p.job.gpusPerWorker();
      for (int pass = 0; pass < 2 && got[i] < want[i]; pass++) {
        boolean loanedPass = pass == 0;
        for (int k = 0; k < p.flexibleNow.size(); k++) {
          int s = p.flexibleNow.server(k);
          if (got[i] >= want[i]
              || !table.open(s)
              || table.loaned(s) != loanedPass
              || !p.types[table.typeIndex(s)]) {
            continue;
          }
          int keep =
              Math.min(Math.min(p.flexibleNow.workers(k), want[i] - got[i]), spare.free(s) / g);
          if (keep > 0) {
            budget.take(s, keep * g);
            p.extras.add(s, keep);
            got[i] += keep;
          }
        }
      }
    }
    // New flexible workers, best fit, loaned servers first.
    for (int i : order) {
      got[i] += placeExtras(elastic.get(i), want[i] - got[i], budget);
    }
    // What fragmentation left over goes to jobs that still gain from it, largest gain per GPU
    // first; nothing to
    // order when no server has room for the smallest worker.
    int room = spare.maxFree();
    int smallest = Integer.MAX_VALUE;
    for (int g : gpus) {
      smallest = Math.min(smallest, g);
    }
    if (room < smallest) {
      return new Growth(elastic, groups, want, got);
    }
    // Only jobs that gain from one more worker take part: the others would place none and change no
    // room, so
    // leaving them out of the order (most jobs of a round, at their widest) changes nothing but the
    // sort's length.
    int[] gaining = new int[n];
    int gainingCount = 0;
    for (int i : byId) {
      if (gainsFromOneMore(groups.get(i), got[i])) {
        gaining[gainingCount++] = i;
      }
    }
    double[] loss = new double[n]; // minus the gain per GPU of one more worker
    for (int k = 0; k < gainingCount; k++) {
      int i = gaining[k];
      loss[i] = -marginalPerGpu(groups.get(i), got[i]);
    }
    for (int i : IndexOrder.byKeyRising(Arrays.copyOf(gaining, gainingCount), loss)) {
      KnapsackGroup g = groups.get(i);
      if (gpus[i] > room) {
        continue; // no server has room for one of its workers, and none gains room here
      }
      while (gainsFromOneMore(g, got[i])) {
        if (placeExtras(elastic.get(i), 1, budget) == 0) {
          if (allTrue(elastic.get(i).types)) {
            room = gpus[i] - 1; // no open server of any type has room for gpus[i]
          }
          break;
        }
        got[i]++;
      }
      if (room < smallest) {
        break;
      }
    }
    return new Growth(elastic, groups, want, got);
  }

  /**
   * Why phase 2 left each job of {@code growth} below its {@code maxWorkers}, into {@code out} by
   * job id, read off what it decided (each job's knapsack group, the extras the knapsack chose and
   * those placed) and the GPUs {@code budget} has left spare after it:
   *
   * <ul>
   *   <li>it got fewer extras than the knapsack chose for it, or every extra the spare GPUs of its
   *       types held when phase 2 began ({@link KnapsackGroup#maxItem()}): no room ({@link
   *       BelowMax.NoRoom});
   *   <li>otherwise the knapsack chose fewer than fitted. If room is left for one more of its
   *       workers, one more was not worth its pause ({@link BelowMax.NotWorthThePause}): the pass
   *       after placement gives one more worker to every job that gains from it while there is room
   *       for one. If no room is left and a wider item that fitted was worth more, the GPUs went to
   *       jobs worth more per GPU ({@link BelowMax.OthersWorthMore}); if none was, not worth the
   *       pause.
   * </ul>
   */
  void whyBelowMax(Growth growth, GpuBudget budget, ServerTable table, Map<String, BelowMax> out) {
    Map<Long, Room> rooms = null; // the same for every job of one worker size and set of types
    for (int i = 0; i < growth.jobs().size(); i++) {
      PlacedJob p = growth.jobs().get(i);
      int got = growth.got()[i];
      if (p.job.minWorkers() + got >= p.job.maxWorkers()) {
        continue;
      }
      if (rooms == null) {
        rooms = new HashMap<>();
      }
      int gpus = p.job.gpusPerWorker();
      Room room =
          rooms.computeIfAbsent(
              gpus * 1_000_003L + ServerTable.mask(p.types),
              k -> Room.of(gpus, p.types, budget, table));
      KnapsackGroup g = growth.groups().get(i);
      if (got < growth.want()[i] || got >= g.maxItem()) {
        out.put(
            p.job.id(),
            room.noRoom()); // what the knapsack chose did not fit, or nothing more fitted at all
        continue;
      }
      int worth =
          0; // with no room left: the fewest more workers that fitted and were worth more than it
      // got
      for (int more = 1; room.fitting() == 0 && got + more <= g.maxItem() && worth == 0; more++) {
        if (g.value(got + more) > g.value(got)) {
          worth = more;
        }
      }
      out.put(
          p.job.id(),
          worth > 0
              ? new BelowMax.OthersWorthMore(worth, gainS(p, got, worth), pauseS(p, got, worth))
              : new BelowMax.NotWorthThePause(gainS(p, got, 1), pauseS(p, got, 1)));
    }
  }

  /** Predicted seconds {@code more} workers save a job running {@code got} extras. */
  private static double gainS(PlacedJob p, int got, int more) {
    int width = p.job.minWorkers() + got;
    return p.job.predictedRuntimeAt(width) - p.job.predictedRuntimeAt(width + more);
  }

  /**
   * The re-scale pause {@code more} workers add to a job running {@code got} extras, as {@link
   * ElasticAllocator#groupFor} prices items: a running job pays one whenever its width changes, so
   * only the item of the extras it runs now pays none.
   */
  private double pauseS(PlacedJob p, int got, int more) {
    boolean pausesWider = p.running && got + more != p.flexibleNowCount;
    boolean pausesNow = p.running && got != p.flexibleNowCount;
    return pausesWider && !pausesNow ? config.rescaleOverheadS() : 0;
  }

  /**
   * What the budget has left for workers of one size on a set of types: how many fit, and the spare
   * GPUs as {@link BelowMax.NoRoom} says them.
   */
  private record Room(int fitting, BelowMax.NoRoom noRoom) {
    static Room of(int gpus, boolean[] types, GpuBudget budget, ServerTable table) {
      int spare = 0;
      int largest = 0;
      int fitting = 0;
      for (int s = 0; s < table.size(); s++) {
        if (table.open(s) && types[table.typeIndex(s)]) {
          int free = budget.spare(s);
          spare += free;
          largest = Math.max(largest, free);
          fitting += free / gpus;
        }
      }
      List<String> names = new ArrayList<>();
      for (int t = 0; t < types.length; t++) {
        if (types[t]) {
          names.add(table.types().get(t).name());
        }
      }
      return new Room(fitting, new BelowMax.NoRoom(names, spare, largest));
    }
  }

  /**
   * The knapsack, solved once per set of GPU types the jobs may grow on, each against the spare
   * GPUs of its own types: one capacity over all types would count slow GPUs that jobs bound to
   * fast ones can never use, and the choice among those jobs would then fall to placement order
   * instead of value. Jobs whose type sets overlap without being equal share one knapsack over the
   * union of their types.
   */
  private int[] allocatePerTypeSet(
      List<PlacedJob> elastic,
      List<KnapsackGroup> groups,
      FreeGpuIndex spare,
      ServerTable table,
      Map<String, Integer> idleQuota) {
    Map<String, Integer> quotaLeft = idleQuota == null ? null : new HashMap<>(idleQuota);
    int n = elastic.size();
    long[] masks = new long[n];
    for (int i = 0; i < n; i++) {
      masks[i] = ServerTable.mask(elastic.get(i).types);
    }
    List<Long> unions = new ArrayList<>(); // disjoint: a mask that overlaps several merges them
    for (long m : masks) {
      long merged = m;
      for (int u = unions.size() - 1; u >= 0; u--) {
        if ((unions.get(u) & merged) != 0) {
          merged |= unions.remove(u);
        }
      }
      unions.add(merged);
    }
    int[] want = new int[n];
    for (long union : unions) {
      List<Integer> members = new ArrayList<>(n);
      List<KnapsackGroup> sub = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        if (masks[i] != 0 && (masks[i] & ~union) == 0) {
          members.add(i);
          sub.add(groups.get(i));
        }
      }
      int capacity = 0;
      for (int s = 0; s < table.size(); s++) {
        if (table.open(s) && (union >>> table.typeIndex(s) & 1) != 0) {
          capacity += spare.free(s);
        }
      }
      if (members.isEmpty() || capacity == 0) {
        continue;
      }
      int[] chosen =
          quotaLeft == null
              ? allocator.allocate(sub, capacity)
              : ownersFirst(members, sub, capacity, elastic, quotaLeft);
      for (int k = 0; k < members.size(); k++) {
        want[members.get(k)] = chosen[k];
      }
    }
    return want;
  }

  /**
   * One knapsack with tenants: each tenant's jobs first share what is left of its idle quota (at
   * most the capacity left), then every job may grow further by value on the capacity left, its
   * first-stage extras kept (the second knapsack's item j of a job is its first-stage extras plus
   * j, worth the value added).
   */
  private int[] ownersFirst(
      List<Integer> members,
      List<KnapsackGroup> sub,
      int capacity,
      List<PlacedJob> elastic,
      Map<String, Integer> quotaLeft) {
    Map<String, List<Integer>> byTenant = new TreeMap<>();
    for (int k = 0; k < members.size(); k++) {
      byTenant
          .computeIfAbsent(elastic.get(members.get(k)).job.tenant(), t -> new ArrayList<>())
          .add(k);
    }
    int[] floor = new int[members.size()];
    int left = capacity;
    for (Map.Entry<String, List<Integer>> e : byTenant.entrySet()) {
      int cap = Math.min(left, quotaLeft.getOrDefault(e.getKey(), 0));
      if (cap <= 0) {
        continue;
      }
      List<KnapsackGroup> own = new ArrayList<>();
      e.getValue().forEach(k -> own.add(sub.get(k)));
      int[] got = allocator.allocate(own, cap);
      int used = 0;
      for (int i = 0; i < got.length; i++) {
        floor[e.getValue().get(i)] = got[i];
        used += own.get(i).weight(got[i]);
      }
      left -= used;
      quotaLeft.merge(e.getKey(), -used, Integer::sum);
    }
    List<KnapsackGroup> shifted = new ArrayList<>();
    for (int k = 0; k < sub.size(); k++) {
      KnapsackGroup g = sub.get(k);
      double[] values = new double[g.maxItem() - floor[k] + 1];
      for (int j = 0; j < values.length; j++) {
        values[j] = g.value(floor[k] + j) - g.value(floor[k]);
      }
      shifted.add(new KnapsackGroup(g.unitWeight(), values));
    }
    int[] more = allocator.allocate(shifted, left);
    int[] chosen = new int[sub.size()];
    for (int k = 0; k < chosen.length; k++) {
      chosen[k] = floor[k] + more[k];
    }
    return chosen;
  }

  /**
   * How many workers of a size fit the spare GPUs of a set of types: one walk of the servers per
   * (size, types).
   */
  private static final class FitCache {
    private final FreeGpuIndex spare;
    private long[] keys = new long[4];
    private int[] values = new int[4];
    private int size;

    FitCache(FreeGpuIndex spare) {
      this.spare = spare;
    }

    int workers(int gpus, boolean[] types) {
      long key = gpus * 1_000_003L + ServerTable.mask(types);
      for (int i = 0; i < size; i++) {
        if (keys[i] == key) {
          return values[i];
        }
      }
      if (size == keys.length) {
        keys = Arrays.copyOf(keys, size * 2);
        values = Arrays.copyOf(values, size * 2);
      }
      int workers = spare.fittingWorkers(gpus, types);
      keys[size] = key;
      values[size++] = workers;
      return workers;
    }
  }

  private static int placeExtras(PlacedJob p, int count, GpuBudget budget) {
    int g = p.job.gpusPerWorker();
    int placedCount = 0;
    for (int w = 0; w < count; w++) {
      int s = budget.spareIndex().bestFit(g, p.types, WorkerRole.FLEXIBLE);
      if (s < 0) {
        break;
      }
      budget.take(s, g);
      p.extras.add(s, 1);
      placedCount++;
    }
    return placedCount;
  }

  private static boolean allTrue(boolean[] flags) {
    for (boolean f : flags) {
      if (!f) {
        return false;
      }
    }
    return true;
  }

  private static boolean gainsFromOneMore(KnapsackGroup g, int k) {
    return k < g.maxItem() && g.value(k + 1) > g.value(k);
  }

  private static double marginalPerGpu(KnapsackGroup g, int k) {
    return k >= g.maxItem()
        ? Double.NEGATIVE_INFINITY
        : (g.value(k + 1) - g.value(k)) / g.unitWeight();
  }
}
