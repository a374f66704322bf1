package io.aryl.sim.engine;

import io.aryl.core.model.Checks;

/**
 * How a trace job, which only says "g GPUs for d seconds", becomes a schedulable shape. None of the
 * public traces says which jobs are elastic, so this is an explicit, seeded assumption:
 *
 * <ul>
 *   <li>A share {@code elasticFraction} of jobs, chosen by a hash of (seed, job id), is elastic: it
 *       may run on {@code g/2 .. 2g} GPUs. Its worker is the largest power of two dividing g that
 *       is at most {@code g/4} (at least 1, at most a server), so it has 2..16 workers and a few
 *       knapsack items.
 *   <li>Every other job is inelastic at exactly g GPUs, in workers of {@code min(g, server)} GPUs
 *       (one worker per server for multi-server jobs).
 * </ul>
 *
 * @param gpusPerWorker GPUs of one worker
 * @param minWorkers workers of the base gang
 * @param maxWorkers most workers
 * @param requestedWorkers the trace's g in workers (may be fractional for odd g)
 */
public record JobShape(int gpusPerWorker, int minWorkers, int maxWorkers, double requestedWorkers) {

  public static JobShape inelastic(int gpus, int gpusPerServer) {
    Checks.positive("gpus", gpus);
    int unit = gpus <= gpusPerServer ? gpus : gcd(gpus, gpusPerServer);
    int workers = gpus / unit;
    return new JobShape(unit, workers, workers, workers);
  }

  public static JobShape elastic(int gpus, int gpusPerServer) {
    Checks.positive("gpus", gpus);
    int unit = 1;
    while (gpus % (unit * 2) == 0
        && unit * 2 <= Math.max(1, gpus / 4)
        && unit * 2 <= gpusPerServer) {
      unit *= 2;
    }
    int min = Math.max(1, (int) Math.ceil(gpus / 2.0 / unit));
    int max = Math.max(min + 1, 2 * gpus / unit);
    return new JobShape(unit, min, max, (double) gpus / unit);
  }

  /** Whether the job with this id is elastic under the assumption. */
  public static boolean isElastic(String id, double elasticFraction, long seed) {
    if (elasticFraction <= 0) {
      return false;
    }
    if (elasticFraction >= 1) {
      return true;
    }
    long h = seed * 0x9E3779B97F4A7C15L;
    for (int i = 0; i < id.length(); i++) {
      h = (h ^ id.charAt(i)) * 0x100000001B3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return (h >>> 11) * 0x1.0p-53 < elasticFraction;
  }

  private static int gcd(int a, int b) {
    while (b != 0) {
      int t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
}
