package io.aryl.sim.baselines;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.JobAllocations;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import io.aryl.core.placement.ServerTable;
import io.aryl.sim.engine.Planner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Tiresias (Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep Learning", NSDI 2019),
 * its two-dimensional least-attained-service scheduler (2D-LAS), reimplemented as a round so the
 * simulator can run it on the same input as Aryl. Read against the paper and its public simulator
 * (github.com/SymbioticLab/Tiresias, {@code run_sim.py}, scheme {@code dlas-gpu}).
 *
 * <h2>What is reimplemented</h2>
 *
 * <ul>
 *   <li><b>Attained service in two dimensions.</b> A job's attained service is the GPU-seconds it
 *       has held: its GPUs times the time it ran, summed over its runs. Tiresias needs no runtime
 *       knowledge and reads none: neither the predicted nor the true remaining work, nor the speed
 *       model. Here it is integrated between rounds from the allocations the planner sees.
 *   <li><b>Discretised priority queues.</b> Every job enters the first queue; when its attained
 *       service reaches queue k's threshold it is demoted to queue k+1, at the back. The thresholds
 *       are the simulator's {@code dlas-gpu} defaults, 3,250 and 7,200 GPU-seconds (three queues),
 *       unless given.
 *   <li><b>FIFO within a queue, and preemption.</b> Queues are served highest first; within a
 *       queue, as the public simulator does it, the jobs that run keep their place ahead of those
 *       that wait, each in the order it entered the queue. Walking that order, a job runs if its
 *       GPUs still fit in the pool (counted, not placed, as the simulator's {@code count} scheme
 *       does); a running job that no longer fits is preempted, so a job in a higher queue starts by
 *       taking the GPUs of lower-queue jobs. A smaller job further back may run where a larger one
 *       ahead does not fit. The simulator charges a preemption what it charges every policy: the
 *       work since the last checkpoint and the restart pause.
 *   <li><b>Starvation guard (PROMOTE_KNOB).</b> A job that has run and then waited, since it last
 *       ran, at least {@code promoteKnob} times its attained service is promoted back to the first
 *       queue with its attained service reset. The public simulator's {@code dlas-gpu} runs without
 *       it (its variants use knobs of 1 to 8); {@code 0} turns it off, the default.
 * </ul>
 *
 * <h2>What is not</h2>
 *
 * <ul>
 *   <li><b>Placement.</b> Tiresias consolidates a job's workers on few machines only when the job's
 *       profile says its model is skewed (large tensors), and otherwise places them anywhere. No
 *       trace here has such profiles: a starting job's gang goes on the fewest servers (the
 *       roomiest first, the last part on the tightest that holds it), for every job. A counted fit
 *       that cannot be placed (fragmentation, GPU types, a fenced server) leaves the job waiting,
 *       and the jobs preempted for it keep running if their GPUs were not needed after all.
 *   <li><b>Exact demotion times.</b> The public simulator wakes up when a running job crosses a
 *       threshold. Here a demotion takes effect at the next round (the simulator plans a round at
 *       every arrival and completion and at least every 30 minutes while jobs wait).
 *   <li><b>Gittins-index variant.</b> Tiresias's Gittins-index scheduling within a queue needs the
 *       distribution of job sizes; only the LAS variant, the one with no prior knowledge, is here.
 *   <li><b>Elasticity and pools.</b> Tiresias runs every job at the GPUs it asks for; it knows no
 *       loaned servers (it places on them like on any other) and no GPU speeds. Loaning is Aryl's,
 *       as for every peer.
 * </ul>
 *
 * <p>Deterministic: ties go by the order jobs entered a queue, then by job id.
 */
public final class TiresiasPlanner implements Planner {
  private static final double[] SIMULATOR_THRESHOLDS_GPU_S = {3250, 7200};

  /** The public simulator's {@code dlas-gpu} queue thresholds, in GPU-seconds: 3,250 and 7,200. */
  public static double[] simulatorThresholdsGpuS() {
    return SIMULATOR_THRESHOLDS_GPU_S.clone();
  }

  private final double[] thresholds;
  private final double promoteKnob;

  private final Map<String, Service> services = new HashMap<>();
  private double lastNowS = Double.NaN;
  private long entries; // how many times a job entered a queue: the FIFO stamp
  private long rounds;
  private ServerTable table; // the last placement's, kept while the servers stay the same

  /** Tiresias as its public simulator runs it: two thresholds, no promotion. */
  public TiresiasPlanner() {
    this(SIMULATOR_THRESHOLDS_GPU_S, 0);
  }

  /**
   * @param thresholdsGpuS the attained service, in GPU-seconds, at which a job leaves each queue
   *     but the last: increasing, above zero (one more queue than thresholds)
   * @param promoteKnob promote a job back to the first queue after it has waited this many times
   *     its attained service; 0 for never
   */
  public TiresiasPlanner(double[] thresholdsGpuS, double promoteKnob) {
    double previous = 0;
    for (int k = 0; k < thresholdsGpuS.length; k++) {
      if (!(thresholdsGpuS[k] > previous) || Double.isInfinite(thresholdsGpuS[k])) {
        throw new IllegalArgumentException(
            "tiresias.thresholdsGpuS["
                + k
                + "] must be finite and above "
                + previous
                + ", was "
                + thresholdsGpuS[k]);
      }
      previous = thresholdsGpuS[k];
    }
    if (!(promoteKnob >= 0) || Double.isInfinite(promoteKnob)) {
      throw new IllegalArgumentException(
          "tiresias.promoteKnob must be finite and >= 0, was " + promoteKnob);
    }
    this.thresholds = thresholdsGpuS.clone();
    this.promoteKnob = promoteKnob;
  }

  /** What Tiresias knows of a job: where it is in the queues, and the service it has had. */
  private static final class Service {
    int queue;
    long enteredAt;
    double attainedGpuS; // since it entered the first queue (a promotion resets it)
    double waitedS; // since it last ran, once it has run
    // This round's: the job, what it holds (null: it waits), and the round it was last seen in.
    Job job;
    Allocation held;
    long seenIn;

    Service(long enteredAt) {
      this.enteredAt = enteredAt;
    }
  }

  /** Service order: higher queues first; within one, running jobs first, each by entry. */
  private static final Comparator<Service> SERVICE_ORDER =
      Comparator.comparingInt((Service s) -> s.queue)
          .thenComparingInt(s -> s.held == null ? 1 : 0)
          .thenComparingLong(s -> s.enteredAt)
          .thenComparing(s -> s.job.id());

  /** The queue a job is in now (0 is the highest), for tests and reports; -1 if unknown. */
  public int queueOf(String jobId) {
    Service s = services.get(jobId);
    return s == null ? -1 : s.queue;
  }

  /** A job's attained service in GPU-seconds as Tiresias counts it; 0 if unknown. */
  public double attainedGpuS(String jobId) {
    Service s = services.get(jobId);
    return s == null ? 0 : s.attainedGpuS;
  }

  @Override
  public Plan plan(ClusterState state) {
    double now = state.nowS();
    double elapsed = Double.isNaN(lastNowS) ? 0 : Math.max(0, now - lastNowS);
    lastNowS = now;
    JobAllocations running = state.allocations();
    Service[] order = account(state.jobs(), running, elapsed);
    Arrays.sort(order, SERVICE_ORDER);

    // Who runs, counted as the public simulator counts: GPUs of the pool, whatever the servers.
    long free = 0;
    for (Server s : state.servers()) {
      if (s.servesTraining()) {
        free += s.gpus();
      }
    }
    List<Job> starts = new ArrayList<>();
    List<Job> preempted = new ArrayList<>();
    Map<String, Allocation> targets = new TreeMap<>();
    for (Service s : order) {
      Job j = s.job;
      Allocation held = s.held;
      int gpus = held == null ? j.baseGpus() : held.totalWorkers() * j.gpusPerWorker();
      if (gpus <= free) {
        free -= gpus;
        if (held == null) {
          starts.add(j);
        } else {
          targets.put(j.id(), held);
        }
      } else if (held != null) {
        preempted.add(j);
      }
    }
    if (starts.isEmpty()) {
      return Plan.between(state, targets); // no one starts, so no one is preempted either
    }
    place(state, running, starts, preempted, order, targets);
    return Plan.between(state, targets);
  }

  /**
   * Adds the service of the time since the last round, demotes and promotes; returns every job's
   * service, in the jobs' order. Jobs and allocations are both in id order, so they are walked side
   * by side.
   */
  private Service[] account(List<Job> jobs, JobAllocations running, double elapsed) {
    long round = ++rounds;
    Service[] out = new Service[jobs.size()];
    int k = 0;
    for (int i = 0; i < out.length; i++) {
      Job j = jobs.get(i);
      Service s = services.get(j.id());
      if (s == null) {
        s = new Service(entries++);
        services.put(j.id(), s);
      }
      Allocation a = null;
      if (k < running.size() && running.jobAt(k).equals(j.id())) {
        a = running.allocationAt(k++);
      }
      s.job = j;
      s.held = a;
      s.seenIn = round;
      out[i] = s;
      if (a != null) {
        s.attainedGpuS += elapsed * a.totalWorkers() * j.gpusPerWorker();
        s.waitedS = 0;
      } else if (s.attainedGpuS > 0) {
        s.waitedS += elapsed;
      }
      while (s.queue < thresholds.length && s.attainedGpuS >= thresholds[s.queue]) {
        s.queue++;
        s.enteredAt = entries++;
      }
      if (promoteKnob > 0
          && a == null
          && s.queue > 0
          && s.attainedGpuS > 0
          && s.waitedS >= promoteKnob * s.attainedGpuS) {
        s.queue = 0;
        s.attainedGpuS = 0;
        s.waitedS = 0;
        s.enteredAt = entries++;
      }
    }
    if (services.size() > out.length) {
      services.values().removeIf(s -> s.seenIn != round); // finished jobs are forgotten
    }
    return out;
  }

  /**
   * Places the counted starts in service order on the GPUs left free and those of the preempted
   * jobs; a start that cannot be placed waits. Then the preempted jobs whose GPUs no start took
   * keep running, and waiting jobs that fit what is still free start, in service order.
   */
  private void place(
      ClusterState state,
      JobAllocations running,
      List<Job> starts,
      List<Job> preempted,
      Service[] order,
      Map<String, Allocation> targets) {
    if (table == null || !table.isOf(state.servers())) {
      table = new ServerTable(state.servers());
    }
    ServerTable table = this.table;
    int n = table.size();
    int[] spare = new int[n];
    for (int s = 0; s < n; s++) {
      spare[s] = table.gpus(s);
    }
    for (int k = 0; k < running.size(); k++) {
      Job j = state.job(running.jobAt(k));
      Allocation a = running.allocationAt(k);
      for (int i = 0; i < a.serverCount(); i++) {
        spare[table.indexOf(a.serverAt(i))] -= a.workersAt(i) * j.gpusPerWorker();
      }
    }
    for (Job j : preempted) {
      Allocation a = running.get(j.id());
      for (int i = 0; i < a.serverCount(); i++) {
        spare[table.indexOf(a.serverAt(i))] += a.workersAt(i) * j.gpusPerWorker();
      }
    }
    FreeGpuBuckets free = new FreeGpuBuckets(table, spare);
    boolean[] anyType = table.allTypes();
    Map<Long, Integer> failedAt = new HashMap<>();
    Set<String> tried = new HashSet<>();
    for (Job j : starts) {
      tried.add(j.id());
      tryStart(j, table, free, anyType, failedAt, targets);
    }
    for (Job j : preempted) {
      Allocation a = running.get(j.id());
      if (fitsWhereItRuns(j, a, table, free)) {
        for (int i = 0; i < a.serverCount(); i++) {
          int s = table.indexOf(a.serverAt(i));
          free.set(s, free.free(s) - a.workersAt(i) * j.gpusPerWorker());
        }
        targets.put(j.id(), a);
      }
    }
    for (Service o : order) {
      Job j = o.job;
      if (free.total() == 0) {
        break;
      }
      if (o.held == null && !targets.containsKey(j.id()) && !tried.contains(j.id())) {
        tryStart(j, table, free, anyType, failedAt, targets);
      }
    }
  }

  private static boolean fitsWhereItRuns(
      Job j, Allocation a, ServerTable table, FreeGpuBuckets free) {
    for (int i = 0; i < a.serverCount(); i++) {
      if (free.free(table.indexOf(a.serverAt(i))) < a.workersAt(i) * j.gpusPerWorker()) {
        return false;
      }
    }
    return true;
  }

  /** Places a job's gang on the fewest servers, all or nothing. */
  private static void tryStart(
      Job j,
      ServerTable table,
      FreeGpuBuckets free,
      boolean[] anyType,
      Map<Long, Integer> failedAt,
      Map<String, Allocation> targets) {
    if (j.baseGpus() > free.total()) {
      return;
    }
    boolean[] types = j.allowedGpuTypes().isEmpty() ? anyType : table.allowedTypes(j);
    long key = j.gpusPerWorker() * 1_000_003L + ServerTable.mask(types);
    Integer failed = failedAt.get(key);
    int g = j.gpusPerWorker();
    int left = j.minWorkers();
    if ((failed != null && left >= failed) || free.capacity(g, types) < left) {
      failedAt.merge(key, left, Math::min);
      return;
    }
    Map<String, Integer> workers = new TreeMap<>();
    while (left > 0) {
      int s = free.bestFit(left * g, types);
      int k = left;
      if (s < 0) {
        s = free.roomiest(g, types);
        k = Math.min(left, free.free(s) / g);
      }
      free.set(s, free.free(s) - k * g);
      workers.merge(table.id(s), k, Integer::sum);
      left -= k;
    }
    targets.put(j.id(), Allocation.of(workers));
  }
}
