package io.aryl.core.predict;

import io.aryl.core.model.Job;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The truth scaled by a per-job error {@code 1 + e}, {@code e} uniform in {@code [-E, +E]}: a
 * controlled way to ask how much a policy loses to misprediction.
 *
 * <p>{@code e} depends only on the seed and the job id, so a job keeps the same error in every
 * round (as a real predictor that over- or under-estimates a job tends to keep doing so), and
 * results do not depend on the order in which jobs are asked about. Stateless, hence thread-safe.
 */
public final class NoisyPredictor implements RuntimePredictor {
  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private final double maxRelativeError;
  private final long seed;

  /**
   * @param maxRelativeError {@code E}, within {@code [0, 1)} so that predictions stay positive
   * @param seed selects one draw of errors over all jobs; experiments repeat with several seeds
   */
  public NoisyPredictor(double maxRelativeError, long seed) {
    if (!(maxRelativeError >= 0 && maxRelativeError < 1)) {
      throw new IllegalArgumentException(
          "prediction.maxRelativeError must be within [0, 1), was " + maxRelativeError);
    }
    this.maxRelativeError = maxRelativeError;
    this.seed = seed;
  }

  @Override
  public double predictRemainingS(Job job) {
    return Math.max(0, job.remainingS() * (1 + relativeError(job.id())));
  }

  /** The error {@code e} this predictor applies to the job with this id. */
  public double relativeError(String jobId) {
    if (maxRelativeError == 0) {
      return 0;
    }
    SplittableRandom random = new SplittableRandom(hash64(jobId) ^ (seed * GOLDEN_GAMMA));
    return random.nextDouble(-maxRelativeError, maxRelativeError);
  }

  public double maxRelativeError() {
    return maxRelativeError;
  }

  public long seed() {
    return seed;
  }

  /**
   * FNV-1a over the id's UTF-8 bytes: 64 bits, unlike {@link String#hashCode()}, and fixed across
   * JVMs.
   */
  private static long hash64(String s) {
    long h = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }

  @Override
  public String toString() {
    return "noisy(E=" + maxRelativeError + ", seed=" + seed + ")";
  }
}
