package io.aryl.core.testing;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import io.aryl.core.speedup.SpeedupModel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Small random but always valid cluster states for property tests: a few servers of two GPU types
 * across both pools (some loaned, some fenced), jobs of every shape, some of them running on a
 * valid allocation. Everything follows from the seed.
 */
public final class SmallStates {
  public static final GpuType A100 = GpuType.of("A100");
  public static final GpuType T4 = GpuType.of("T4", 0.5);

  private SmallStates() {}

  public static ClusterState random(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Server> servers = new ArrayList<>();
    int serverCount = 1 + rnd.nextInt(8);
    for (int i = 0; i < serverCount; i++) {
      GpuType type = rnd.nextInt(3) == 0 ? T4 : A100;
      int gpus = rnd.nextBoolean() ? 8 : 4;
      boolean inference = rnd.nextInt(3) == 0;
      boolean loaned = inference && rnd.nextBoolean();
      boolean fenced = loaned && rnd.nextInt(4) == 0;
      servers.add(
          new Server(
              String.format("s%02d", i),
              type,
              gpus,
              inference ? Pool.INFERENCE : Pool.TRAINING,
              loaned,
              fenced));
    }
    servers.add(Server.training("s99", A100, 8)); // so every job shape fits somewhere
    double now = 100_000;
    List<Job> jobs = new ArrayList<>();
    int jobCount = 1 + rnd.nextInt(10);
    for (int j = 0; j < jobCount; j++) {
      jobs.add(randomJob(rnd, String.format("j%02d", j), now));
    }
    return ClusterState.of(now, servers, jobs, runSome(rnd, servers, jobs));
  }

  /**
   * {@code serverCount} 8-GPU A100 training servers and {@code jobCount} random jobs, about half
   * running.
   */
  public static ClusterState large(int serverCount, int jobCount, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double now = 100_000;
    List<Server> servers = new ArrayList<>();
    for (int i = 0; i < serverCount; i++) {
      servers.add(Server.training(String.format("s%04d", i), A100, 8));
    }
    List<Job> jobs = new ArrayList<>();
    for (int j = 0; j < jobCount; j++) {
      jobs.add(randomJob(rnd, String.format("j%04d", j), now));
    }
    return ClusterState.of(now, servers, jobs, runSome(rnd, servers, jobs));
  }

  /**
   * The running jobs of {@code state}, each at its widest (its {@code maxWorkers} lowered to the
   * workers it runs), on its servers unfenced and all of one speed: a saturated snapshot, which a
   * planner that promises so leaves as it is.
   */
  public static ClusterState saturate(ClusterState state) {
    List<Server> servers = new ArrayList<>();
    for (Server s : state.servers()) {
      GpuType oneSpeed = GpuType.of(s.gpuType().name());
      servers.add(new Server(s.id(), oneSpeed, s.gpus(), s.pool(), s.loaned(), false));
    }
    List<Job> jobs = new ArrayList<>();
    for (Map.Entry<String, Allocation> e : state.allocations().entrySet()) {
      Job j = state.job(e.getKey());
      jobs.add(j.toBuilder().workers(j.minWorkers(), e.getValue().totalWorkers()).build());
    }
    return ClusterState.of(state.nowS(), servers, jobs, state.allocations());
  }

  /**
   * A job of any shape (1-8 GPUs per worker, elastic or not, a quarter A100-only), submitted before
   * {@code now}.
   */
  public static Job randomJob(SplittableRandom rnd, String id, double now) {
    int g = new int[] {1, 1, 2, 4, 8}[rnd.nextInt(5)];
    int min = 1 + rnd.nextInt(3);
    int max = rnd.nextBoolean() ? min : min + rnd.nextInt(6);
    double remaining = 60 + rnd.nextDouble() * 50_000;
    Job.Builder b =
        Job.builder(id)
            .submitTimeS(rnd.nextDouble() * now)
            .gpusPerWorker(g)
            .workers(min, max)
            .remainingS(remaining)
            .predictedRemainingS(remaining * (0.4 + rnd.nextDouble() * 1.2))
            .sinceCheckpointS(rnd.nextDouble() * 1800)
            .speedup(rnd.nextBoolean() ? SpeedupModel.linear() : SpeedupModel.powerLaw(0.8));
    if (rnd.nextInt(4) == 0) {
      b.allowedGpuTypes("A100");
    }
    return b.build();
  }

  /** Gives about half of the jobs a valid allocation, first fit on servers that serve training. */
  public static Map<String, Allocation> runSome(
      SplittableRandom rnd, List<Server> servers, List<Job> jobs) {
    Map<String, Integer> free = new HashMap<>();
    servers.forEach(s -> free.put(s.id(), s.gpus()));
    Map<String, Allocation> allocations = new TreeMap<>();
    for (Job job : jobs) {
      if (rnd.nextBoolean()) {
        continue;
      }
      int want = job.minWorkers() + rnd.nextInt(job.maxWorkers() - job.minWorkers() + 1);
      Map<String, Integer> workers = new TreeMap<>();
      Map<String, Integer> trial = new HashMap<>(free);
      int placed = 0;
      for (Server s : servers) {
        if (!s.servesTraining() || !job.allows(s.gpuType())) {
          continue;
        }
        while (placed < want && trial.get(s.id()) >= job.gpusPerWorker()) {
          trial.merge(s.id(), -job.gpusPerWorker(), Integer::sum);
          workers.merge(s.id(), 1, Integer::sum);
          placed++;
        }
      }
      if (placed >= job.minWorkers()) {
        free.clear();
        free.putAll(trial);
        allocations.put(job.id(), Allocation.of(workers));
      }
    }
    return allocations;
  }
}
