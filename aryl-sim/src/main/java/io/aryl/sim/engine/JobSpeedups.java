package io.aryl.sim.engine;

import io.aryl.core.speedup.MeasuredSpeedup;
import io.aryl.core.speedup.PowerLawSpeedup;
import io.aryl.core.speedup.SpeedupModel;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which throughput curve each simulated job has: the same {@code n^speedupExponent} for every job
 * ({@link #UNIFORM}, the default), or one of a set of measured models per job ({@link #profiles}),
 * so that jobs differ in how much they gain from more GPUs and a goodput-aware policy has something
 * per job to act on.
 *
 * <p>With profiles, a job's model is chosen by a hash of (seed, job id), each model equally likely,
 * independent of the hash that makes a job elastic; the choice is the same for every policy of a
 * run. A model's table is in replicas of one GPU each (the Pollux profiles measure one replica per
 * GPU), so a job in workers of {@code g} GPUs runs at {@code M(n * g) / M(g)} at {@code n} workers:
 * a worker is {@code g} replicas. The curve is the job's only one: the simulator advances its work
 * by it and aryl-core's {@code Job#speedup()}, which every policy reads, is the same object.
 *
 * <p>Built once per scenario and only read afterwards, so that runs on several threads share it.
 */
public final class JobSpeedups {
  /** Every job scales as {@code n^speedupExponent}. */
  public static final JobSpeedups UNIFORM = new JobSpeedups("", List.of(), List.of(), 0);

  private static final int TABLED_WORKERS = 64;
  private static volatile PowerLawCache lastUniform; // one shared curve per exponent

  private final String source;
  private final List<String> names;
  private final List<MeasuredSpeedup> models;
  private final long seed;

  private JobSpeedups(String source, List<String> names, List<MeasuredSpeedup> models, long seed) {
    this.source = source;
    this.names = names;
    this.models = models;
    this.seed = seed;
  }

  /**
   * One measured model per job out of {@code models} (in the order of their names), chosen by a
   * hash of ({@code seed}, job id).
   *
   * @param source where the models were read from, for the report
   */
  public static JobSpeedups profiles(
      String source, Map<String, MeasuredSpeedup> models, long seed) {
    if (models.isEmpty()) {
      throw new IllegalArgumentException("profiles '" + source + "' hold no model");
    }
    Map<String, MeasuredSpeedup> byName = new TreeMap<>(models); // the order a hash picks in
    return new JobSpeedups(
        source, List.copyOf(byName.keySet()), List.copyOf(byName.values()), seed);
  }

  public boolean uniform() {
    return models.isEmpty();
  }

  /** The model names, in the order a job's hash picks them. */
  public List<String> modelNames() {
    return names;
  }

  /** Name of the measured model of job {@code jobId}; empty when every job is uniform. */
  public String modelOf(String jobId) {
    return uniform() ? "" : names.get(pick(jobId));
  }

  /**
   * The curve of job {@code jobId} in workers of {@code gpusPerWorker} GPUs: {@code
   * n^speedupExponent} (one object shared by every job of that exponent) when uniform.
   */
  public SpeedupModel curveOf(String jobId, int gpusPerWorker, double speedupExponent) {
    if (uniform()) {
      return uniformCurve(speedupExponent);
    }
    MeasuredSpeedup m = models.get(pick(jobId));
    return new WorkerCurve(m, gpusPerWorker);
  }

  /** The one {@code n^exponent} curve every job of a uniform world shares. */
  public static SpeedupModel uniformCurve(double exponent) {
    PowerLawCache c = lastUniform;
    if (c == null || Double.compare(c.exponent, exponent) != 0) {
      c = new PowerLawCache(exponent, SpeedupModel.powerLaw(exponent));
      lastUniform = c;
    }
    return c.curve;
  }

  private record PowerLawCache(double exponent, SpeedupModel curve) {}

  /**
   * Whether no job's curve ever falls as it widens: true for the power law; for measured models,
   * read off their tables up to the largest count measured (flat beyond). A policy may rely on it
   * to know that a job at its widest would not run faster narrower.
   */
  public boolean neverFalls() {
    for (MeasuredSpeedup m : models) {
      for (int n = 1; n < m.maxMeasuredWorkers(); n++) {
        if (m.throughput(n + 1) < m.throughput(n)) {
          return false;
        }
      }
    }
    return true;
  }

  /** What report.json says about the curves. */
  public String describe(double speedupExponent) {
    if (uniform()) {
      return "throughput(n workers) = n^" + speedupExponent;
    }
    return "measured profiles from "
        + source
        + ": each job one of "
        + names
        + ", picked by a hash of (seed "
        + seed
        + ", job id); a worker of g GPUs is g replicas";
  }

  /** How many of {@code jobIds} have each model, by name in pick order; empty when uniform. */
  public Map<String, Integer> countByModel(Iterable<String> jobIds) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    if (uniform()) {
      return counts;
    }
    names.forEach(n -> counts.put(n, 0));
    for (String id : jobIds) {
      counts.merge(modelOf(id), 1, Integer::sum);
    }
    return counts;
  }

  private int pick(String jobId) {
    long h = (seed ^ 0x5DEECE66DL) * 0xC2B2AE3D27D4EB4FL;
    for (int i = 0; i < jobId.length(); i++) {
      h = (h ^ jobId.charAt(i)) * 0x100000001B3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return (int) (((h >>> 11) * 0x1.0p-53) * models.size());
  }

  /**
   * A measured model (in one-GPU replicas) seen in workers of {@code g} GPUs: {@code M(n * g) /
   * M(g)}, tabled for the widths a job of the simulator has.
   */
  static final class WorkerCurve implements SpeedupModel {
    private final MeasuredSpeedup replicas;
    private final int g;
    private final double one;
    private final double[] byWorkers;

    WorkerCurve(MeasuredSpeedup replicas, int g) {
      this.replicas = replicas;
      this.g = g;
      this.one = replicas.throughput(g);
      this.byWorkers = new double[TABLED_WORKERS + 1];
      for (int n = 1; n <= TABLED_WORKERS; n++) {
        byWorkers[n] = replicas.throughput(n * g) / one;
      }
    }

    @Override
    public double throughput(int workers) {
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be > 0, was " + workers);
      }
      return workers <= TABLED_WORKERS
          ? byWorkers[workers]
          : replicas.throughput(workers * g) / one;
    }

    @Override
    public String toString() {
      return replicas.name() + " in workers of " + g + " GPUs";
    }
  }

  /**
   * A curve at a width that may be fractional (a trace's request in workers): {@code n^exponent}
   * for the power law, as the simulator has always counted it; else linear between the two widths
   * around it.
   */
  static double throughputAt(SpeedupModel curve, double workers) {
    if (curve instanceof PowerLawSpeedup p) {
      return Math.pow(workers, p.exponent());
    }
    int lo = (int) Math.floor(workers);
    if (lo == workers) {
      return curve.throughput(lo);
    }
    double t = workers - lo;
    double below = lo >= 1 ? curve.throughput(lo) : 0;
    return below + t * (curve.throughput(lo + 1) - below);
  }
}
