package io.aryl.core;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.Job;
import io.aryl.core.placement.ServerTable;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One job's workers as a round decides them, by dense server index: the base it keeps (or is admitted with), the
 * flexible workers it runs now, and the extras phase 2 gives it. Mutable, and lives for one round only.
 */
final class PlacedJob {
  final Job job;
  /** Where it runs at the round's start; empty for a job admitted this round. */
  final Allocation now;
  final boolean running;
  /** Base workers by server index; unmodifiable (shared with the round's {@link BaseSplits}) unless just admitted. */
  SortedMap<Integer, Integer> base;
  /** Flexible workers it runs now by server index; unmodifiable. */
  SortedMap<Integer, Integer> flexibleNow;
  final TreeMap<Integer, Integer> extras = new TreeMap<>();
  int flexibleNowCount;
  /** The GPU types phase 2 may grow this job on (set by phase 2). */
  boolean[] types;
  /** Moved whole this round, extras included: phase 2 leaves it as it is. */
  boolean settled;

  private PlacedJob(Job job, Allocation now, SortedMap<Integer, Integer> base, SortedMap<Integer, Integer> flexibleNow,
      int flexibleNowCount) {
    this.job = job;
    this.now = now;
    this.running = !now.isEmpty();
    this.base = base;
    this.flexibleNow = flexibleNow;
    this.flexibleNowCount = flexibleNowCount;
  }

  /** A running job, its workers split as {@code split} says. */
  static PlacedJob running(Job job, BaseSplits.Split split) {
    return new PlacedJob(job, split.of(), split.base(), split.flexible(), split.flexibleCount());
  }

  /** A job admitted this round with base workers on {@code servers} (one entry per worker). */
  static PlacedJob admitted(Job job, int[] servers) {
    TreeMap<Integer, Integer> base = new TreeMap<>();
    for (int s : servers) {
      base.merge(s, 1, Integer::sum);
    }
    return new PlacedJob(job, Allocation.EMPTY, base, Collections.emptySortedMap(), 0);
  }

  /**
   * Where its workers run after the round: its base and extras by server id. The allocation it started the round
   * with when that is unchanged, as it is for most jobs in most rounds.
   */
  Allocation target(ServerTable table) {
    if (running && !settled && extras.equals(flexibleNow)) {
      return now; // the base was split off this allocation and stayed; the flexible workers stayed too
    }
    SortedMap<Integer, Integer> workers = extras.isEmpty() ? base : baseAndExtras();
    if (sameAs(workers, now, table)) {
      return now;
    }
    Map<String, Integer> byId = new HashMap<>();
    workers.forEach((s, w) -> byId.put(table.id(s), w));
    return Allocation.of(byId);
  }

  private TreeMap<Integer, Integer> baseAndExtras() {
    TreeMap<Integer, Integer> workers = new TreeMap<>(base);
    extras.forEach((s, w) -> workers.merge(s, w, Integer::sum));
    return workers;
  }

  /** Whether workers by server index are the allocation's, whose servers are sorted by id as the indexes are. */
  private static boolean sameAs(SortedMap<Integer, Integer> workers, Allocation a, ServerTable table) {
    if (workers.size() != a.serverCount()) {
      return false;
    }
    int i = 0;
    for (Map.Entry<Integer, Integer> e : workers.entrySet()) {
      if (!table.id(e.getKey()).equals(a.serverAt(i)) || e.getValue() != a.workersAt(i)) {
        return false;
      }
      i++;
    }
    return true;
  }

  /** The workers it runs with now: its base and the flexible workers it holds. */
  int widthNow() {
    return job.minWorkers() + flexibleNowCount;
  }

  /** Training speed of the slowest GPU under its base workers (a synchronous job's pace). */
  double baseSpeed(ServerTable table) {
    double slowest = Double.POSITIVE_INFINITY;
    for (int s : base.keySet()) {
      slowest = Math.min(slowest, table.server(s).gpuType().trainingSpeed());
    }
    return slowest;
  }

  /**
   * Moves the job whole onto the servers in {@code to} (one entry per worker): the first minWorkers become its base,
   * the rest its extras. The caller has taken those GPUs and given back the old base's.
   */
  void moveTo(int[] to) {
    TreeMap<Integer, Integer> newBase = new TreeMap<>();
    flexibleNow = Collections.emptySortedMap();
    flexibleNowCount = 0;
    extras.clear();
    for (int i = 0; i < to.length; i++) {
      (i < job.minWorkers() ? newBase : extras).merge(to[i], 1, Integer::sum);
    }
    base = newBase;
    settled = true;
  }
}
