package io.aryl.sim.baselines;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.JobAllocations;
import io.aryl.core.model.Plan;
import io.aryl.core.placement.BaseSplit;
import io.aryl.core.placement.ServerTable;
import io.aryl.sim.engine.Planner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A round shared by the elastic baselines that never preempt (Optimus, AFS): every running job
 * keeps {@code minWorkers} of its workers where they are, and a subclass decides, from the GPUs
 * left, which queued jobs start and which jobs get the extra workers ({@link #share}). What differs
 * between those schedulers is only that decision; the bookkeeping (which workers are kept, the
 * free-GPU index, the placement of a gang or of one more worker, the plan) is here, once.
 *
 * <p>Placement follows Optimus's principle, fewest servers per job: a starting job's minimum goes
 * on the fewest servers that can hold it (the roomiest servers first, the last part on the tightest
 * server that holds all of it); an extra worker goes where the job's extra workers run now, else to
 * a server already hosting the job, else best fit; new work takes GPUs no one uses before GPUs held
 * by other jobs' extra workers.
 */
abstract class KeptBaseRound implements Planner {
  private ServerTable table; // the last round's, kept while the servers stay the same
  private boolean[] anyType; // the table's every type: what a job that names no GPU type may use
  private Split[] splits =
      new Split[0]; // the last round's running jobs' splits, in id order, on that table

  /**
   * Decides the round: starts queued jobs (each at its minimum, all or nothing, through {@link
   * Budget#placeGang}) by adding them to {@code entries}, and hands out extra workers ({@link
   * Budget#placeOne}, raising {@link Entry#count}).
   *
   * @param entries the running jobs, each at its kept base, in id order
   * @param queued the queued jobs, in id order
   * @param budget the GPUs left
   */
  abstract void share(List<Entry> entries, List<Entry> queued, Budget budget);

  /** Called with each round's snapshot before {@link #share}: what a subclass reads of it. */
  void beforeRound(ClusterState state) {}

  @Override
  public final Plan plan(ClusterState state) {
    if (table == null || !table.isOf(state.servers())) {
      table = new ServerTable(state.servers());
      anyType = table.allTypes();
      splits = new Split[0];
    }
    beforeRound(state);
    List<Entry> entries = new ArrayList<>();
    List<Entry> queued = new ArrayList<>();
    Budget budget = keepBases(state, entries, queued);
    share(entries, queued, budget);
    return targets(state, entries);
  }

  /**
   * Every running job keeps its base ({@link Split}) and is added to {@code entries}; every queued
   * job is added to {@code queued}. Returns the GPUs left to hand out. Jobs and allocations are
   * both in id order, so they are walked side by side; a job's rank is its place in that order.
   */
  // A split is kept for the very allocation it was made of; ids, mostly the very strings the last
  // round kept, are compared by identity first.
  @SuppressWarnings("ReferenceEquality")
  private Budget keepBases(ClusterState state, List<Entry> entries, List<Entry> queued) {
    int n = table.size();
    int[] spare = new int[n];
    int[] flexible = new int[n];
    for (int s = 0; s < n; s++) {
      spare[s] = table.gpus(s);
    }
    JobAllocations running = state.allocations();
    List<Job> jobs = state.jobs();
    Split[] lastSplits = splits;
    Split[] nextSplits = new Split[running.size()];
    int k = 0;
    int last = 0;
    for (int rank = 0; rank < jobs.size(); rank++) {
      Job job = jobs.get(rank);
      if (k == running.size() || !running.jobAt(k).equals(job.id())) {
        queued.add(new Entry(job, rank, null, typesOf(job), null));
        continue;
      }
      Allocation a = running.allocationAt(k);
      while (last < lastSplits.length
          && lastSplits[last].job != job.id()
          && lastSplits[last].job.compareTo(job.id()) < 0) {
        last++;
      }
      Split kept = last < lastSplits.length ? lastSplits[last] : null;
      Split split =
          kept != null
                  && kept.of == a
                  && kept.minWorkers == job.minWorkers()
                  && kept.job.equals(job.id())
              ? kept
              : Split.of(job, a, table);
      nextSplits[k++] = split;
      Entry e = new Entry(job, rank, a, typesOf(job), split);
      int g = e.g;
      e.workers.forEach((s, w) -> spare[s] -= w * g);
      e.flexibleNow.forEach((s, w) -> flexible[s] += w * g);
      entries.add(e);
    }
    splits = nextSplits;
    return new Budget(table, spare, flexible);
  }

  /** A job's value of one more worker at {@code workers} workers, per GPU the worker takes. */
  @FunctionalInterface
  interface WorkerValue {
    double of(Job job, int workers);
  }

  /**
   * The greedy both share: one worker at a time to the job whose worker is worth the most per GPU,
   * while that value is above zero and a worker still fits (a job whose worker does not fit is
   * passed over; others may still fit).
   */
  static void grow(List<Entry> entries, Budget budget, WorkerValue value) {
    if (budget.spare.total() == 0) {
      return;
    }
    // Largest gain per GPU first, ties by job id (rank).
    GainQueue<Entry> gains = new GainQueue<>(entries.size());
    for (Entry e : entries) {
      if (e.count < e.job.maxWorkers()) {
        e.gain = value.of(e.job, e.count);
        gains.add(e, e.gain, e.rank);
      }
    }
    Entry e = gains.poll();
    while (e != null && budget.spare.total() > 0) {
      if (!(e.gain > 0)) {
        break; // the largest gain is not positive: no job gains from more
      }
      // No room for this job's worker: others may still fit.
      if (e.g <= budget.spare.total() && budget.placeOne(e)) {
        e.count++;
        if (e.count < e.job.maxWorkers()) {
          e.gain = value.of(e.job, e.count);
          if (gains.beforeHead(e.gain, e.rank)) {
            continue; // still ahead of every other job: the queue would hand it straight back
          }
          gains.add(e, e.gain, e.rank);
        }
      }
      e = gains.poll();
    }
  }

  /**
   * The plan to the entries' workers; a job whose workers did not move keeps its allocation object.
   */
  private Plan targets(ClusterState state, List<Entry> entries) {
    JobAllocations.Builder targets = new JobAllocations.Builder(entries.size());
    for (Entry e : entries) {
      if (e.now != null && e.workers.sameAs(e.now, table)) {
        targets.put(
            e.job.id(),
            e.now); // most jobs keep their workers: no new value, and the plan's check is quick
        continue;
      }
      Map<String, Integer> workers = new TreeMap<>();
      e.workers.forEach((s, w) -> workers.put(table.id(s), w));
      targets.put(e.job.id(), Allocation.of(workers));
    }
    return Plan.between(state, targets.build());
  }

  private boolean[] typesOf(Job job) {
    return job.allowedGpuTypes().isEmpty() ? anyType : table.allowedTypes(job);
  }

  /**
   * A running job's workers split into those it keeps, {@code minWorkers} of them where they are
   * (those on open servers first, as a fenced server is on its way out, then by server order), and
   * its current extra workers, re-decided each round. Kept for the next round: a job whose
   * allocation is the very same object, on the same table, splits the same way.
   */
  record Split(
      String job, Allocation of, int minWorkers, WorkersByServer base, WorkersByServer flexible) {
    static Split of(Job job, Allocation a, ServerTable table) {
      BaseSplit.Parts parts = BaseSplit.split(job, a, table, s -> table.open(s) ? 0 : 1);
      return new Split(
          job.id(),
          a,
          job.minWorkers(),
          WorkersByServer.of(parts.servers(), parts.base()),
          WorkersByServer.of(parts.servers(), parts.flexible()));
    }
  }

  /**
   * One job in the plan: its workers so far by server index, and a running job's extra workers of
   * now.
   */
  static final class Entry {
    final Job job;
    final int rank; // place in id order
    final Allocation now; // null for a queued job
    final boolean[] types;
    final int g;
    final WorkersByServer workers;
    final WorkersByServer flexibleNow;
    int count;
    double gain;

    /**
     * A running job starts from its split (its base, at {@code minWorkers}), a queued one from
     * nothing.
     */
    Entry(Job job, int rank, Allocation now, boolean[] types, Split split) {
      this.job = job;
      this.rank = rank;
      this.now = now;
      this.types = types;
      this.g = job.gpusPerWorker();
      this.workers = split == null ? new WorkersByServer() : split.base().copy();
      this.flexibleNow = split == null ? new WorkersByServer() : split.flexible().copy();
      this.count = split == null ? 0 : job.minWorkers();
    }
  }

  /**
   * GPUs a round may hand out, per server, at two levels: <b>spare</b> (not held by anything
   * decided so far) and <b>idle</b> (spare and not held by a running job's current extra workers
   * either). New work takes idle GPUs first, so that other jobs' extra workers are displaced only
   * when needed.
   */
  static final class Budget {
    final ServerTable table;
    final FreeGpuBuckets spare;
    final FreeGpuBuckets idle;
    final int[] flexible;

    Budget(ServerTable table, int[] spareCounts, int[] flexibleCounts) {
      this.table = table;
      this.spare = new FreeGpuBuckets(table, spareCounts);
      int[] idleCounts = new int[spareCounts.length];
      for (int s = 0; s < spareCounts.length; s++) {
        idleCounts[s] = spareCounts[s] - flexibleCounts[s];
      }
      this.idle = new FreeGpuBuckets(table, idleCounts);
      this.flexible = flexibleCounts.clone();
    }

    /**
     * Takes {@code gpus} on server s; {@code own} GPUs among them were held by this job's own extra
     * workers.
     */
    void take(int s, int gpus, int own) {
      int newSpare = spare.free(s) - gpus;
      if (newSpare < 0) {
        throw new IllegalStateException(
            "server(" + table.id(s) + ") has " + spare.free(s) + " spare GPUs, asked " + gpus);
      }
      spare.set(s, newSpare);
      flexible[s] = Math.min(Math.max(0, flexible[s] - own), newSpare);
      idle.set(s, newSpare - flexible[s]);
    }

    /**
     * Places a gang of {@code workers} on the fewest servers, all or nothing: on idle GPUs if it
     * fits there, else on spare ones.
     */
    boolean placeGang(Entry e, int workers) {
      return placeGang(e, workers, e.types);
    }

    /** As {@link #placeGang(Entry, int)}, on GPUs of the types in {@code types} only. */
    boolean placeGang(Entry e, int workers, boolean[] types) {
      FreeGpuBuckets level =
          idle.capacity(e.g, types) >= workers
              ? idle
              : spare.capacity(e.g, types) >= workers ? spare : null;
      if (level == null) {
        return false;
      }
      int left = workers;
      while (left > 0) {
        int s = level.bestFit(left * e.g, types); // one server holds the rest: the tightest such
        int k = left;
        if (s < 0) {
          s = level.roomiest(e.g, types); // else fill the roomiest, for the fewest servers in all
          k = Math.min(left, level.free(s) / e.g);
        }
        take(s, k * e.g, 0);
        e.workers.add(s, k);
        left -= k;
      }
      e.count += workers;
      return true;
    }

    /**
     * Places one extra worker: where the job's extra workers run now (no move), else on a server
     * already hosting the job (fewest free GPUs first), else best fit on idle GPUs, else best fit
     * on spare ones. False if none fits.
     */
    boolean placeOne(Entry e) {
      return placeOne(e, e.types);
    }

    /**
     * As {@link #placeOne(Entry)}, a new server being of the types in {@code types} only (where the
     * job runs now stays allowed).
     */
    boolean placeOne(Entry e, boolean[] types) {
      int g = e.g;
      WorkersByServer now = e.flexibleNow;
      for (int i = 0; i < now.size(); i++) {
        int s = now.server(i);
        if (now.count(i) > 0 && table.open(s) && spare.free(s) >= g) {
          now.setCount(i, now.count(i) - 1);
          take(s, g, g);
          e.workers.add(s, 1);
          return true;
        }
      }
      int best = -1;
      for (int i = 0; i < e.workers.size(); i++) {
        int s = e.workers.server(i);
        if (table.open(s) && spare.free(s) >= g && (best < 0 || spare.free(s) < spare.free(best))) {
          best = s;
        }
      }
      if (best < 0) {
        best = idle.bestFit(g, types);
      }
      if (best < 0) {
        best = spare.bestFit(g, types);
      }
      if (best < 0) {
        return false;
      }
      take(best, g, 0);
      e.workers.add(best, 1);
      return true;
    }
  }
}
