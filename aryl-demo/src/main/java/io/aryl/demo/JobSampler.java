package io.aryl.demo;

import io.aryl.sim.engine.JobShape;
import io.aryl.sim.trace.TraceJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Samples the demo's job stream from one day of the ITP trace, seeded: jobs are drawn at random
 * from the day, in proportion to their GPU count, until their GPU-seconds reach {@code load} times
 * the training pool over the arrival window (or {@code maxJobs}); they keep their order, and their
 * submission times within the day, stretched onto the arrival window, are averaged with evenly
 * spaced ones (bursts are halved: each job starts an ApplicationMaster JVM); run times are divided
 * by the time compression and clamped to {@code [minRuntimeS, maxRuntimeS]} — by a smaller
 * compression when {@code maxJobs} jobs would not reach the load otherwise ({@link
 * #compressionFor}). A share {@code elasticFraction} of jobs is elastic, chosen and shaped exactly
 * as the simulator does ({@link JobShape}).
 */
public final class JobSampler {
  private static final double DAY_S = 86_400;

  /**
   * The draw's settings.
   *
   * @param seed seeds the draw and the elastic choice
   * @param traceStartS start of the trace's first day, seconds (the ITP slice's submission window
   *     start)
   * @param day which day of the trace, from 0
   * @param arrivalWindowMs submissions spread over {@code [0, arrivalWindowMs]} of a run
   * @param compression trace seconds per demo second: run times are divided by it (at most)
   * @param minRuntimeS shortest scaled run time, seconds
   * @param maxRuntimeS longest scaled run time, seconds
   * @param elasticFraction share of elastic jobs, 0..1
   * @param gpusPerServer GPUs of one node
   * @param trainingGpus GPUs of the training pool's own nodes; no job asks for more than half of
   *     them
   * @param load offered GPU-seconds over the training pool's GPU-seconds in the arrival window
   * @param maxJobs most jobs
   */
  public record Settings(
      long seed,
      double traceStartS,
      int day,
      long arrivalWindowMs,
      double compression,
      long minRuntimeS,
      long maxRuntimeS,
      double elasticFraction,
      int gpusPerServer,
      int trainingGpus,
      double load,
      int maxJobs) {
    public Settings {
      if (day < 0
          || arrivalWindowMs < 0
          || !(compression > 0)
          || minRuntimeS < 1
          || maxRuntimeS < minRuntimeS
          || elasticFraction < 0
          || elasticFraction > 1
          || gpusPerServer < 1
          || trainingGpus < 1
          || !(load > 0)
          || maxJobs < 1) {
        throw new IllegalArgumentException("invalid job sampling settings: " + this);
      }
    }
  }

  private JobSampler() {}

  /** The stream, sorted by submission time. */
  public static List<DemoJob> sample(List<TraceJob> trace, Settings s) {
    double from = s.traceStartS() + s.day() * DAY_S;
    double to = from + DAY_S;
    List<TraceJob> day = new ArrayList<>();
    for (TraceJob j : trace) {
      if (j.submitS() >= from && j.submitS() < to) {
        day.add(j);
      }
    }
    if (day.isEmpty()) {
      throw new IllegalArgumentException("day " + s.day() + " of the trace has no job");
    }
    // Drawn in proportion to their GPU count (Efraimidis-Spirakis keys u^(1/w), largest first): the
    // few jobs one
    // machine can run carry the day's GPU demand, most of which is in multi-GPU jobs, not its many
    // 1-GPU jobs.
    Random random = new Random(s.seed());
    Map<TraceJob, Double> key = new HashMap<>();
    for (TraceJob j : day) {
      key.put(j, Math.pow(random.nextDouble(), 1.0 / j.gpus()));
    }
    List<TraceJob> order = new ArrayList<>(day);
    order.sort(
        Comparator.comparingDouble((TraceJob j) -> key.get(j))
            .reversed()
            .thenComparing(TraceJob::id));
    int cap = maxGpus(s.trainingGpus());
    double target = s.load() * s.trainingGpus() * Math.max(1, s.arrivalWindowMs() / 1000.0);
    List<TraceJob> chosen = new ArrayList<>();
    double offered = 0;
    for (TraceJob j : order) {
      if (chosen.size() >= s.maxJobs() || offered >= target) {
        break;
      }
      chosen.add(j);
      offered += Math.min(j.gpus(), cap) * scaledRuntimeS(j.durationS(), s);
    }
    chosen.sort(Comparator.comparingDouble(TraceJob::submitS).thenComparing(TraceJob::id));
    double compression = compressionFor(chosen, cap, target, s);
    double first = chosen.get(0).submitS();
    double span = chosen.get(chosen.size() - 1).submitS() - first;
    List<DemoJob> out = new ArrayList<>();
    int n = chosen.size();
    for (int i = 0; i < n; i++) {
      TraceJob j = chosen.get(i);
      // Half the trace's own arrival pattern, half evenly spaced: the order and the waves of the
      // day stay, but a
      // burst of submissions (each starts an ApplicationMaster JVM) is spread out for a small
      // machine.
      double traced = span <= 0 ? 0 : (j.submitS() - first) / span;
      double even = n == 1 ? 0 : (double) i / (n - 1);
      out.add(
          job(i, j, Math.round((traced + even) / 2 * s.arrivalWindowMs()), cap, compression, s));
    }
    return List.copyOf(out);
  }

  /**
   * Largest power of two at most half the training pool (at least 1): the most GPUs a sampled job
   * asks for.
   */
  static int maxGpus(int trainingGpus) {
    int cap = 1;
    while (cap * 2 <= trainingGpus / 2) {
      cap *= 2;
    }
    return cap;
  }

  /**
   * The trace's run time divided by the settings' compression, rounded, clamped to the settings'
   * bounds.
   */
  static long scaledRuntimeS(double traceDurationS, Settings s) {
    return scaledRuntimeS(traceDurationS, s.compression(), s);
  }

  static long scaledRuntimeS(double traceDurationS, double compression, Settings s) {
    long r = Math.round(traceDurationS / compression);
    return Math.max(s.minRuntimeS(), Math.min(s.maxRuntimeS(), r));
  }

  /**
   * The run-time compression of the chosen jobs: the settings' one when their GPU-seconds reach the
   * target with it; else the largest compression (the shortest jobs) that reaches it — when capped
   * by the job count, a few jobs still load the pool as asked — or, if none does, the one at which
   * the longest job runs its longest.
   */
  static double compressionFor(List<TraceJob> chosen, int cap, double target, Settings s) {
    if (offered(chosen, cap, s.compression(), s) >= target) {
      return s.compression();
    }
    double lo = 1e-3;
    double hi = s.compression();
    if (offered(chosen, cap, lo, s) < target) {
      // Out of reach: stretch until the longest job runs its longest, no further (the others keep
      // their lengths
      // relative to it, rather than all running the same longest time).
      double longest = chosen.stream().mapToDouble(TraceJob::durationS).max().orElse(1);
      return Math.min(s.compression(), longest / s.maxRuntimeS());
    }
    for (int i = 0; i < 60; i++) {
      double mid = Math.sqrt(lo * hi);
      if (offered(chosen, cap, mid, s) >= target) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static double offered(List<TraceJob> jobs, int cap, double compression, Settings s) {
    double sum = 0;
    for (TraceJob j : jobs) {
      sum += Math.min(j.gpus(), cap) * (double) scaledRuntimeS(j.durationS(), compression, s);
    }
    return sum;
  }

  private static DemoJob job(
      int index, TraceJob j, long submitAtMs, int cap, double compression, Settings s) {
    int gpus = Math.min(j.gpus(), cap);
    boolean elastic = JobShape.isElastic(j.id(), s.elasticFraction(), s.seed());
    JobShape shape =
        elastic
            ? JobShape.elastic(gpus, s.gpusPerServer())
            : JobShape.inelastic(gpus, s.gpusPerServer());
    long runtime = scaledRuntimeS(j.durationS(), compression, s);
    long work = Math.max(1, Math.round(runtime * shape.requestedWorkers()));
    long predicted = (work + shape.minWorkers() - 1) / shape.minWorkers();
    String name =
        String.format(Locale.ROOT, "j%02d-%dg-%s", index, gpus, elastic ? "elastic" : "rigid");
    return new DemoJob(
        name,
        j.id(),
        submitAtMs,
        elastic,
        gpus,
        shape.gpusPerWorker(),
        shape.minWorkers(),
        shape.maxWorkers(),
        j.durationS(),
        runtime,
        work,
        predicted);
  }
}
