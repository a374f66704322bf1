package io.aryl.core.testing;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import io.aryl.core.speedup.SpeedupModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Deterministic, seeded generator of realistic {@link ClusterState}s for benchmarks and tests.
 *
 * <p><b>Servers.</b> {@code totalGpus / gpusPerServer} servers: a fraction are inference servers
 * lent to training ({@link Server#loaned}, GPU type {@link #T4}, half the training speed), a few
 * are plain inference servers (T4, not lent, so they never serve training), the rest are training
 * servers ({@link #A100}). Ids are zero-padded ({@code trn-00012}, {@code inf-00003}) so that id
 * order is creation order within a kind.
 *
 * <p><b>Jobs.</b> {@code jobs} jobs with ids {@code job-00000...}:
 *
 * <ul>
 *   <li>GPUs per worker in {1, 2, 4, 8}, weighted toward small (35 / 25 / 20 / 20 %);
 *   <li>exactly {@code round(jobs * elasticFraction)} elastic jobs with {@code min} in {1, 2} and
 *       {@code max = min * {2, 4}}; the others inelastic with {@code min == max} in {1, 2, 4};
 *   <li>total work log-uniform between 5 minutes and 2 days (base-seconds), an oracle prediction,
 *       power-law speedup with exponent 0.8 (one shared instance);
 *   <li>a few ({@code a100OnlyFraction}) restricted to {@code A100}, the others may use any type;
 *   <li>all submitted before {@code nowS}; queued ones less than 6 hours ago, so that none is
 *       starving under the default 12 h guard (a starving job that does not fit would block
 *       admission and make a round trivially cheap).
 * </ul>
 *
 * <p><b>Running jobs.</b> {@code round(jobs * runningFraction)} jobs, picked at random, are tried
 * in random order and given a <em>valid</em> allocation by greedy best-fit placement, as a
 * scheduler that has been running for a while would have left them: base workers prefer the
 * training pool's own servers, flexible ones prefer loaned servers; an elastic job takes as many
 * workers as fit up to its maximum (elastic jobs have grown into idle GPUs), and a job whose base
 * gang does not fit stays queued. Placement respects GPU types, never over-commits a server, and
 * uses only servers that serve training. Running jobs have done 5..95 % of their work and have
 * {@code sinceCheckpointS} uniform in 0..1800 s; queued jobs have done nothing (0 since
 * checkpoint).
 *
 * <p>With the defaults, the demand (running widths plus the queue's base gangs) exceeds the
 * training capacity: the cluster is full and the queue over-subscribed, so admission and phase 2
 * both have real work to do.
 *
 * <p>Same {@link Spec} (seed included) gives an identical state: equal servers, jobs and
 * allocations.
 */
public final class SyntheticClusters {
  /** Training servers' GPU type. */
  public static final GpuType A100 = GpuType.of("A100");

  /** Inference servers' (loaned or not) GPU type: slower for training. */
  public static final GpuType T4 = GpuType.of("T4", 0.5);

  private static final SpeedupModel SPEEDUP = SpeedupModel.powerLaw(0.8);
  private static final int[] GPUS_PER_WORKER = {1, 2, 4, 8};
  private static final double[] GPUS_PER_WORKER_WEIGHTS = {0.35, 0.25, 0.20, 0.20};
  private static final int[] INELASTIC_WORKERS = {1, 2, 4};
  private static final String[] MODELS = {
    "resnet50", "bert", "gpt2", "vgg16", "yolov5", "transformer", "lstm"
  };
  private static final double MIN_WORK_S = 5 * 60;
  private static final double MAX_WORK_S = 2 * 24 * 3600;
  private static final double MAX_SINCE_CHECKPOINT_S = 1800;
  private static final double MAX_QUEUED_WAIT_S = 6 * 3600;

  private SyntheticClusters() {}

  /**
   * What to generate. Immutable; start from {@link #defaults()} (or {@link
   * SyntheticClusters#spec(int, int)}) and change fields with the withers.
   *
   * @param totalGpus GPUs over all servers (a multiple of {@code gpusPerServer})
   * @param gpusPerServer GPUs per server (default 8)
   * @param loanedFraction fraction of servers that are inference servers lent to training (default
   *     0.25)
   * @param inferenceFraction fraction of servers that are plain inference servers, not lent
   *     (default 0.02, at least one when positive)
   * @param jobs number of jobs, queued and running (default 200)
   * @param elasticFraction fraction of jobs that are elastic (default 0.4)
   * @param runningFraction fraction of jobs tried as running; those that do not fit stay queued
   *     (default 0.6)
   * @param a100OnlyFraction fraction of jobs restricted to A100 (default 0.05)
   * @param nowS the snapshot's time (default 30 days)
   * @param seed the random seed (default 42)
   */
  public record Spec(
      int totalGpus,
      int gpusPerServer,
      double loanedFraction,
      double inferenceFraction,
      int jobs,
      double elasticFraction,
      double runningFraction,
      double a100OnlyFraction,
      double nowS,
      long seed) {

    public Spec {
      if (gpusPerServer <= 0 || totalGpus <= 0 || totalGpus % gpusPerServer != 0) {
        throw new IllegalArgumentException(
            "spec.totalGpus must be a positive multiple of gpusPerServer ("
                + gpusPerServer
                + "), was "
                + totalGpus);
      }
      if (jobs < 0) {
        throw new IllegalArgumentException("spec.jobs must be >= 0, was " + jobs);
      }
      fraction("loanedFraction", loanedFraction);
      fraction("inferenceFraction", inferenceFraction);
      fraction("elasticFraction", elasticFraction);
      fraction("runningFraction", runningFraction);
      fraction("a100OnlyFraction", a100OnlyFraction);
      if (!(nowS > MAX_WORK_S + MAX_QUEUED_WAIT_S + 3600)) {
        throw new IllegalArgumentException(
            "spec.nowS must be > "
                + (MAX_WORK_S + MAX_QUEUED_WAIT_S + 3600)
                + " so every submit time is >= 0, was "
                + nowS);
      }
      int servers = totalGpus / gpusPerServer;
      if (servers
              - loanedServers(servers, loanedFraction)
              - inferenceServers(servers, inferenceFraction)
          < 1) {
        throw new IllegalArgumentException(
            "spec leaves no training server: "
                + servers
                + " servers, loanedFraction="
                + loanedFraction
                + ", inferenceFraction="
                + inferenceFraction);
      }
    }

    private static void fraction(String field, double v) {
      if (!(v >= 0 && v <= 1)) {
        throw new IllegalArgumentException("spec." + field + " must be within [0, 1], was " + v);
      }
    }

    /** 1,000 GPUs on 8-GPU servers, 25 % loaned, 200 jobs, 40 % elastic, 60 % running, seed 42. */
    public static Spec defaults() {
      return new Spec(1000, 8, 0.25, 0.02, 200, 0.4, 0.6, 0.05, 30 * 24 * 3600.0, 42);
    }

    public int servers() {
      return totalGpus / gpusPerServer;
    }

    public int loanedServers() {
      return loanedServers(servers(), loanedFraction);
    }

    public int inferenceServers() {
      return inferenceServers(servers(), inferenceFraction);
    }

    public int trainingServers() {
      return servers() - loanedServers() - inferenceServers();
    }

    private static int loanedServers(int servers, double f) {
      return (int) Math.round(servers * f);
    }

    private static int inferenceServers(int servers, double f) {
      return f > 0 ? Math.max(1, (int) Math.round(servers * f)) : 0;
    }

    public Spec withTotalGpus(int v) {
      return new Spec(
          v,
          gpusPerServer,
          loanedFraction,
          inferenceFraction,
          jobs,
          elasticFraction,
          runningFraction,
          a100OnlyFraction,
          nowS,
          seed);
    }

    public Spec withGpusPerServer(int v) {
      return new Spec(
          totalGpus,
          v,
          loanedFraction,
          inferenceFraction,
          jobs,
          elasticFraction,
          runningFraction,
          a100OnlyFraction,
          nowS,
          seed);
    }

    public Spec withLoanedFraction(double v) {
      return new Spec(
          totalGpus,
          gpusPerServer,
          v,
          inferenceFraction,
          jobs,
          elasticFraction,
          runningFraction,
          a100OnlyFraction,
          nowS,
          seed);
    }

    public Spec withInferenceFraction(double v) {
      return new Spec(
          totalGpus,
          gpusPerServer,
          loanedFraction,
          v,
          jobs,
          elasticFraction,
          runningFraction,
          a100OnlyFraction,
          nowS,
          seed);
    }

    public Spec withJobs(int v) {
      return new Spec(
          totalGpus,
          gpusPerServer,
          loanedFraction,
          inferenceFraction,
          v,
          elasticFraction,
          runningFraction,
          a100OnlyFraction,
          nowS,
          seed);
    }

    public Spec withElasticFraction(double v) {
      return new Spec(
          totalGpus,
          gpusPerServer,
          loanedFraction,
          inferenceFraction,
          jobs,
          v,
          runningFraction,
          a100OnlyFraction,
          nowS,
          seed);
    }

    public Spec withRunningFraction(double v) {
      return new Spec(
          totalGpus,
          gpusPerServer,
          loanedFraction,
          inferenceFraction,
          jobs,
          elasticFraction,
          v,
          a100OnlyFraction,
          nowS,
          seed);
    }

    public Spec withA100OnlyFraction(double v) {
      return new Spec(
          totalGpus,
          gpusPerServer,
          loanedFraction,
          inferenceFraction,
          jobs,
          elasticFraction,
          runningFraction,
          v,
          nowS,
          seed);
    }

    public Spec withNowS(double v) {
      return new Spec(
          totalGpus,
          gpusPerServer,
          loanedFraction,
          inferenceFraction,
          jobs,
          elasticFraction,
          runningFraction,
          a100OnlyFraction,
          v,
          seed);
    }

    public Spec withSeed(long v) {
      return new Spec(
          totalGpus,
          gpusPerServer,
          loanedFraction,
          inferenceFraction,
          jobs,
          elasticFraction,
          runningFraction,
          a100OnlyFraction,
          nowS,
          v);
    }
  }

  /** The default spec at {@code totalGpus} GPUs and {@code jobs} jobs. */
  public static Spec spec(int totalGpus, int jobs) {
    return Spec.defaults().withTotalGpus(totalGpus).withJobs(jobs);
  }

  /**
   * A state for the default spec at {@code totalGpus} GPUs and {@code jobs} jobs, with {@code
   * seed}.
   */
  public static ClusterState generate(int totalGpus, int jobs, long seed) {
    return generate(spec(totalGpus, jobs).withSeed(seed));
  }

  /** The state {@code spec} describes; the same spec always gives an equal state. */
  public static ClusterState generate(Spec spec) {
    SplittableRandom rnd = new SplittableRandom(spec.seed());
    List<Server> servers = servers(spec);

    int n = spec.jobs();
    boolean[] elastic = chooseExactly(rnd, n, (int) Math.round(n * spec.elasticFraction()));
    int[] order = permutation(rnd, n);
    int tryRunning = (int) Math.round(n * spec.runningFraction());
    boolean[] triesRunning = new boolean[n];
    for (int i = 0; i < tryRunning; i++) {
      triesRunning[order[i]] = true;
    }

    // Draw every job's shape first, in id order, so that the shapes do not depend on placement.
    Shape[] shapes = new Shape[n];
    for (int i = 0; i < n; i++) {
      shapes[i] = shape(rnd, elastic[i], spec.a100OnlyFraction());
    }

    // Greedy placement of the jobs that try to run, in random order.
    Placer placer = new Placer(servers);
    Map<Integer, Map<String, Integer>> placed = new TreeMap<>();
    for (int k = 0; k < tryRunning; k++) {
      int i = order[k];
      Map<String, Integer> workers = placer.place(shapes[i]);
      if (workers != null) {
        placed.put(i, workers);
      }
    }

    List<Job> jobs = new ArrayList<>(n);
    Map<String, Allocation> allocations = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      Shape s = shapes[i];
      String id = String.format("job-%05d", i);
      boolean running = placed.containsKey(i);
      // Drawn for every job (running or not) so that one job's state does not shift the others'
      // draws.
      double doneFraction = 0.05 + 0.9 * rnd.nextDouble();
      double sinceCheckpoint = MAX_SINCE_CHECKPOINT_S * rnd.nextDouble();
      double queuedWait = MAX_QUEUED_WAIT_S * rnd.nextDouble();
      double startWait = 3600 * rnd.nextDouble();
      double attained = running ? s.workS * doneFraction : 0;
      double submit = running ? spec.nowS() - attained - startWait : spec.nowS() - queuedWait;
      Job.Builder b =
          Job.builder(id)
              .kind(s.model + "-" + s.gpusPerWorker + "g")
              .submitTimeS(submit)
              .gpusPerWorker(s.gpusPerWorker)
              .workers(s.min, s.max)
              .remainingS(s.workS - attained)
              .attainedS(attained)
              .sinceCheckpointS(running ? sinceCheckpoint : 0)
              .speedup(SPEEDUP);
      if (s.a100Only) {
        b.allowedGpuTypes(A100.name());
      }
      jobs.add(b.build());
      if (running) {
        allocations.put(id, Allocation.of(placed.get(i)));
      }
    }
    return ClusterState.of(spec.nowS(), servers, jobs, allocations);
  }

  private static List<Server> servers(Spec spec) {
    List<Server> out = new ArrayList<>(spec.servers());
    for (int i = 0; i < spec.trainingServers(); i++) {
      out.add(Server.training(String.format("trn-%05d", i), A100, spec.gpusPerServer()));
    }
    int inf = 0;
    for (int i = 0; i < spec.inferenceServers(); i++) {
      out.add(Server.inference(String.format("inf-%05d", inf++), T4, spec.gpusPerServer()));
    }
    for (int i = 0; i < spec.loanedServers(); i++) {
      out.add(Server.loaned(String.format("inf-%05d", inf++), T4, spec.gpusPerServer()));
    }
    return out;
  }

  /** One job's drawn shape. */
  private record Shape(
      int gpusPerWorker, int min, int max, boolean a100Only, double workS, String model) {}

  private static Shape shape(SplittableRandom rnd, boolean elastic, double a100OnlyFraction) {
    int g = GPUS_PER_WORKER[weighted(rnd, GPUS_PER_WORKER_WEIGHTS)];
    int min;
    int max;
    if (elastic) {
      min = 1 + rnd.nextInt(2);
      max = min * (rnd.nextBoolean() ? 2 : 4);
    } else {
      min = INELASTIC_WORKERS[rnd.nextInt(INELASTIC_WORKERS.length)];
      max = min;
    }
    boolean a100Only = rnd.nextDouble() < a100OnlyFraction;
    double work =
        Math.exp(
            Math.log(MIN_WORK_S)
                + rnd.nextDouble() * (Math.log(MAX_WORK_S) - Math.log(MIN_WORK_S)));
    String model = MODELS[rnd.nextInt(MODELS.length)];
    return new Shape(g, min, max, a100Only, work, model);
  }

  private static int weighted(SplittableRandom rnd, double[] weights) {
    double total = 0;
    for (double w : weights) {
      total += w;
    }
    double x = rnd.nextDouble() * total;
    for (int i = 0; i < weights.length - 1; i++) {
      x -= weights[i];
      if (x < 0) {
        return i;
      }
    }
    return weights.length - 1;
  }

  private static int[] permutation(SplittableRandom rnd, int n) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  private static boolean[] chooseExactly(SplittableRandom rnd, int n, int k) {
    int[] p = permutation(rnd, n);
    boolean[] chosen = new boolean[n];
    for (int i = 0; i < k; i++) {
      chosen[p[i]] = true;
    }
    return chosen;
  }

  /**
   * Greedy best-fit over the servers that serve training; tracks free GPUs so nothing is
   * over-committed.
   */
  private static final class Placer {
    private final List<Server> servers;
    private final int[] free;

    Placer(List<Server> servers) {
      this.servers = servers;
      this.free = new int[servers.size()];
      for (int s = 0; s < free.length; s++) {
        free[s] = servers.get(s).acceptsNewWorkers() ? servers.get(s).gpus() : 0;
      }
    }

    /** Workers by server id, or null (nothing taken) if the base gang does not fit. */
    Map<String, Integer> place(Shape shape) {
      int g = shape.gpusPerWorker;
      int[] taken = new int[shape.max];
      int count = 0;
      for (int w = 0; w < shape.max; w++) {
        boolean base = w < shape.min;
        int s = bestFit(g, shape.a100Only, !base);
        if (s < 0) {
          break;
        }
        free[s] -= g;
        taken[count++] = s;
      }
      if (count < shape.min) {
        for (int i = 0; i < count; i++) {
          free[taken[i]] += g;
        }
        return null;
      }
      Map<String, Integer> out = new TreeMap<>();
      for (int i = 0; i < count; i++) {
        out.merge(servers.get(taken[i]).id(), 1, Integer::sum);
      }
      return out;
    }

    /**
     * Fewest free GPUs that still fit, in the preferred group (loaned or own) first; lowest index
     * on ties.
     */
    private int bestFit(int g, boolean a100Only, boolean preferLoaned) {
      int found = bestFitIn(g, a100Only, preferLoaned);
      return found >= 0 ? found : bestFitIn(g, a100Only, !preferLoaned);
    }

    private int bestFitIn(int g, boolean a100Only, boolean loaned) {
      int best = -1;
      for (int s = 0; s < free.length; s++) {
        Server server = servers.get(s);
        if (free[s] < g
            || server.loaned() != loaned
            || (a100Only && !server.gpuType().equals(A100))) {
          continue;
        }
        if (best < 0 || free[s] < free[best]) {
          best = s;
          if (free[s] == g) {
            break;
          }
        }
      }
      return best;
    }
  }
}
