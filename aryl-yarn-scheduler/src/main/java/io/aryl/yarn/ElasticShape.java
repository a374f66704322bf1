package io.aryl.yarn;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The elastic shape of a training job, carried to the scheduler as application tags (YARN lower-cases tags):
 *
 * <pre>
 *   aryl.min-workers=2            base workers, started together or not at all (required)
 *   aryl.max-workers=8            upper bound; equal to min for an inelastic job (default: min)
 *   aryl.gpus-per-worker=1        GPUs of every worker container (default 1)
 *   aryl.predicted-runtime-s=3600 predicted runtime at min workers, seconds (required)
 *   aryl.kind=resnet50            optional family name, used by the history predictor
 * </pre>
 *
 * An application with no {@code aryl.} tag is not elastic and is scheduled as the Capacity Scheduler would. One with
 * any {@code aryl.} tag must carry a valid shape, or it is rejected at submission with {@link InvalidShapeException}'s
 * message as its diagnostics.
 */
public record ElasticShape(int minWorkers, int maxWorkers, int gpusPerWorker, double predictedRuntimeS, String kind) {
  public static final String PREFIX = "aryl.";
  public static final String MIN_WORKERS = "aryl.min-workers";
  public static final String MAX_WORKERS = "aryl.max-workers";
  public static final String GPUS_PER_WORKER = "aryl.gpus-per-worker";
  public static final String PREDICTED_RUNTIME_S = "aryl.predicted-runtime-s";
  public static final String KIND = "aryl.kind";

  /** Upper bound on workers of one job; a larger number is almost surely a typo. */
  public static final int MAX_WORKERS_LIMIT = 10_000;

  public ElasticShape {
    if (minWorkers < 1) {
      throw new InvalidShapeException(MIN_WORKERS + " must be >= 1, was " + minWorkers);
    }
    if (maxWorkers < minWorkers) {
      throw new InvalidShapeException(
          MAX_WORKERS + " must be >= " + MIN_WORKERS + " (" + minWorkers + "), was " + maxWorkers);
    }
    if (maxWorkers > MAX_WORKERS_LIMIT) {
      throw new InvalidShapeException(MAX_WORKERS + " must be <= " + MAX_WORKERS_LIMIT + ", was " + maxWorkers);
    }
    if (gpusPerWorker < 1) {
      throw new InvalidShapeException(GPUS_PER_WORKER + " must be >= 1, was " + gpusPerWorker);
    }
    if (!(predictedRuntimeS > 0) || Double.isInfinite(predictedRuntimeS)) {
      throw new InvalidShapeException(
          PREDICTED_RUNTIME_S + " must be a positive number of seconds, was " + predictedRuntimeS);
    }
    kind = kind == null ? "" : kind;
  }

  public boolean isElastic() {
    return maxWorkers > minWorkers;
  }

  /** The tags that carry this shape, for a client to set on its submission. */
  public java.util.Set<String> toTags() {
    java.util.Set<String> tags = new java.util.TreeSet<>();
    tags.add(MIN_WORKERS + "=" + minWorkers);
    tags.add(MAX_WORKERS + "=" + maxWorkers);
    tags.add(GPUS_PER_WORKER + "=" + gpusPerWorker);
    tags.add(PREDICTED_RUNTIME_S + "=" + (long) Math.ceil(predictedRuntimeS));
    if (!kind.isEmpty()) {
      tags.add(KIND + "=" + kind);
    }
    return tags;
  }

  /**
   * The shape in an application's tags; empty if it has no {@code aryl.} tag.
   *
   * @throws InvalidShapeException naming the tag and value when a tag is unknown, repeated, malformed or out of range
   */
  public static Optional<ElasticShape> fromTags(Collection<String> tags) {
    Map<String, String> values = new TreeMap<>();
    for (String tag : tags) {
      String t = tag.trim().toLowerCase(java.util.Locale.ROOT);
      if (!t.startsWith(PREFIX)) {
        continue;
      }
      int eq = t.indexOf('=');
      if (eq < 0) {
        throw new InvalidShapeException("tag '" + tag + "' must be key=value");
      }
      String key = t.substring(0, eq).trim();
      String value = t.substring(eq + 1).trim();
      if (!java.util.List.of(MIN_WORKERS, MAX_WORKERS, GPUS_PER_WORKER, PREDICTED_RUNTIME_S, KIND).contains(key)) {
        // Name the value too (key=value): the submitter sees exactly which tag of the submission was refused.
        throw new InvalidShapeException("unknown tag '" + key + "=" + value + "' (known: " + MIN_WORKERS + ", "
            + MAX_WORKERS + ", " + GPUS_PER_WORKER + ", " + PREDICTED_RUNTIME_S + ", " + KIND + ")");
      }
      String previous = values.put(key, value);
      if (previous != null && !previous.equals(value)) {
        throw new InvalidShapeException("tag " + key + " given twice: '" + previous + "' and '" + value + "'");
      }
    }
    if (values.isEmpty()) {
      return Optional.empty();
    }
    int min = intTag(values, MIN_WORKERS, null);
    int max = intTag(values, MAX_WORKERS, min);
    int gpus = intTag(values, GPUS_PER_WORKER, 1);
    String runtime = values.get(PREDICTED_RUNTIME_S);
    if (runtime == null) {
      throw new InvalidShapeException("missing tag " + PREDICTED_RUNTIME_S + " (predicted runtime at min workers, s)");
    }
    double runtimeS;
    try {
      runtimeS = Double.parseDouble(runtime);
    } catch (NumberFormatException e) {
      throw new InvalidShapeException(PREDICTED_RUNTIME_S + " must be a number of seconds, was '" + runtime + "'");
    }
    return Optional.of(new ElasticShape(min, max, gpus, runtimeS, values.getOrDefault(KIND, "")));
  }

  private static int intTag(Map<String, String> values, String key, Integer defaultValue) {
    String v = values.get(key);
    if (v == null) {
      if (defaultValue == null) {
        throw new InvalidShapeException("missing tag " + key);
      }
      return defaultValue;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new InvalidShapeException(key + " must be an integer, was '" + v + "'");
    }
  }

  /** A job's shape is wrong; the message names the tag and the value. */
  public static final class InvalidShapeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidShapeException(String message) {
      super("invalid Aryl job shape: " + message);
    }
  }
}
