package io.aryl.core;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.Job;
import io.aryl.core.placement.ServerTable;
import java.util.HashMap;
import java.util.Map;

/**
 * One job's workers as a round decides them, by dense server index: the base it keeps (or is
 * admitted with), the flexible workers it runs now, and the extras phase 2 gives it. Mutable, and
 * lives for one round only.
 */
final class PlacedJob {
  final Job job;

  /** Where it runs at the round's start; empty for a job admitted this round. */
  final Allocation now;

  final boolean running;

  /** Base workers by server index. */
  ServerWorkers base;

  /** Flexible workers it runs now, by server index. */
  ServerWorkers flexibleNow;

  final WorkerTally extras = new WorkerTally();
  int flexibleNowCount;

  /** The GPU types phase 2 may grow this job on (set by phase 2). */
  boolean[] types;

  /** Moved whole this round, extras included: phase 2 leaves it as it is. */
  boolean settled;

  private PlacedJob(
      Job job,
      Allocation now,
      ServerWorkers base,
      ServerWorkers flexibleNow,
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
    return new PlacedJob(
        job, Allocation.EMPTY, ServerWorkers.ofEach(servers), ServerWorkers.NONE, 0);
  }

  /**
   * Where its workers run after the round: its base and extras by server id. The allocation it
   * started the round with when that is unchanged, as it is for most jobs in most rounds.
   */
  Allocation target(ServerTable table) {
    if (running && !settled && extras.sameAs(flexibleNow)) {
      return now; // the base was split off this allocation and stayed; the flexible workers stayed
      // too
    }
    // Base and extras merged by server index, which orders servers as their ids do.
    int[] servers = new int[base.size() + extras.size()];
    int[] workers = new int[servers.length];
    int n = 0;
    int b = 0;
    int e = 0;
    while (b < base.size() || e < extras.size()) {
      int s =
          b == base.size()
              ? extras.server(e)
              : e == extras.size() ? base.server(b) : Math.min(base.server(b), extras.server(e));
      int w = 0;
      if (b < base.size() && base.server(b) == s) {
        w += base.workers(b++);
      }
      if (e < extras.size() && extras.server(e) == s) {
        w += extras.workers(e++);
      }
      servers[n] = s;
      workers[n++] = w;
    }
    if (sameAs(servers, workers, n, now, table)) {
      return now;
    }
    Map<String, Integer> byId = new HashMap<>();
    for (int i = 0; i < n; i++) {
      byId.put(table.id(servers[i]), workers[i]);
    }
    return Allocation.of(byId);
  }

  /**
   * Whether the first n workers by server index are the allocation's, whose servers are in id (=
   * index) order.
   */
  private static boolean sameAs(
      int[] servers, int[] workers, int n, Allocation a, ServerTable table) {
    if (n != a.serverCount()) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (!table.id(servers[i]).equals(a.serverAt(i)) || workers[i] != a.workersAt(i)) {
        return false;
      }
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
    for (int i = 0; i < base.size(); i++) {
      slowest = Math.min(slowest, table.server(base.server(i)).gpuType().trainingSpeed());
    }
    return slowest;
  }

  /**
   * Moves the job whole onto the servers in {@code to} (one entry per worker): the first minWorkers
   * become its base, the rest its extras. The caller has taken those GPUs and given back the old
   * base's.
   */
  void moveTo(int[] to) {
    int baseWorkers = Math.min(job.minWorkers(), to.length);
    base = ServerWorkers.ofEach(to, 0, baseWorkers);
    flexibleNow = ServerWorkers.NONE;
    flexibleNowCount = 0;
    extras.clear();
    for (int i = baseWorkers; i < to.length; i++) {
      extras.add(to[i], 1);
    }
    settled = true;
  }
}
