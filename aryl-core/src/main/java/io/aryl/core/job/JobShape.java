package io.aryl.core.job;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The job contract: a training job's elastic shape, as its application tags carry it from the
 * client that submits it to the scheduler that plans it (YARN lower-cases tags). Both sides read
 * and write the tags here only.
 *
 * <pre>
 *   aryl.min-workers=2            base workers, started together or not at all (required)
 *   aryl.max-workers=8            upper bound; equal to min for an inelastic job (default: min)
 *   aryl.gpus-per-worker=1        GPUs of every worker container (default 1)
 *   aryl.predicted-runtime-s=3600 predicted runtime at min workers, seconds (required)
 *   aryl.kind=resnet50            optional family name, used by the history predictor
 *   aryl.gpu-types=a100,h100      GPU types the job may run on, comma-separated (default: any)
 * </pre>
 *
 * An application with no {@code aryl.} tag has no shape: it is not elastic. One with any {@code
 * aryl.} tag must carry a valid shape; {@link InvalidJobShapeException}'s message says which tag
 * and value are wrong.
 */
public record JobShape(
    int minWorkers,
    int maxWorkers,
    int gpusPerWorker,
    double predictedRuntimeS,
    String kind,
    Set<String> gpuTypes) {
  public static final String PREFIX = "aryl.";
  public static final String MIN_WORKERS = "aryl.min-workers";
  public static final String MAX_WORKERS = "aryl.max-workers";
  public static final String GPUS_PER_WORKER = "aryl.gpus-per-worker";
  public static final String PREDICTED_RUNTIME_S = "aryl.predicted-runtime-s";
  public static final String KIND = "aryl.kind";
  public static final String GPU_TYPES = "aryl.gpu-types";

  /** Every tag of the contract, in the order messages list them. */
  public static final List<String> TAGS =
      List.of(MIN_WORKERS, MAX_WORKERS, GPUS_PER_WORKER, PREDICTED_RUNTIME_S, KIND, GPU_TYPES);

  /** A GPU type name: what a tag can carry (YARN lower-cases tags). */
  private static final java.util.regex.Pattern GPU_TYPE_NAME =
      java.util.regex.Pattern.compile("[a-z0-9][a-z0-9_.-]*");

  /**
   * The allocation request id of the containers the scheduler grants a job it moves whole to other
   * nodes: the new workers, granted while the old ones still run. An ApplicationMaster recognises
   * them by it, holds them without growing, and takes them into its next generation when the old
   * workers are asked back.
   */
  public static final long MOVE_REQUEST_ID = 0x4d4f5645L; // "MOVE"

  /** Upper bound on workers of one job; a larger number is almost surely a typo. */
  public static final int MAX_WORKERS_LIMIT = 10_000;

  /**
   * @throws InvalidJobShapeException naming the tag and the value when a field is out of range
   */
  public JobShape {
    if (minWorkers < 1) {
      throw new InvalidJobShapeException(MIN_WORKERS + " must be >= 1, was " + minWorkers);
    }
    if (maxWorkers < minWorkers) {
      throw new InvalidJobShapeException(
          MAX_WORKERS + " must be >= " + MIN_WORKERS + " (" + minWorkers + "), was " + maxWorkers);
    }
    if (maxWorkers > MAX_WORKERS_LIMIT) {
      throw new InvalidJobShapeException(
          MAX_WORKERS + " must be <= " + MAX_WORKERS_LIMIT + ", was " + maxWorkers);
    }
    if (gpusPerWorker < 1) {
      throw new InvalidJobShapeException(GPUS_PER_WORKER + " must be >= 1, was " + gpusPerWorker);
    }
    if (!(predictedRuntimeS > 0) || Double.isInfinite(predictedRuntimeS)) {
      throw new InvalidJobShapeException(
          PREDICTED_RUNTIME_S + " must be a positive number of seconds, was " + predictedRuntimeS);
    }
    kind = kind == null ? "" : kind;
    Set<String> types = new TreeSet<>();
    for (String t : gpuTypes == null ? Set.<String>of() : gpuTypes) {
      String n = t == null ? "" : t.trim().toLowerCase(Locale.ROOT);
      if (!GPU_TYPE_NAME.matcher(n).matches()) {
        throw new InvalidJobShapeException(
            GPU_TYPES + ": GPU type '" + t + "' must be letters, digits, '.', '_' or '-'");
      }
      types.add(n);
    }
    gpuTypes = java.util.Collections.unmodifiableSet(types);
  }

  /** A job that runs on any GPU type. */
  public JobShape(
      int minWorkers, int maxWorkers, int gpusPerWorker, double predictedRuntimeS, String kind) {
    this(minWorkers, maxWorkers, gpusPerWorker, predictedRuntimeS, kind, Set.of());
  }

  /** This shape with another predicted runtime. */
  public JobShape withPredictedRuntimeS(double runtimeS) {
    return new JobShape(minWorkers, maxWorkers, gpusPerWorker, runtimeS, kind, gpuTypes);
  }

  public boolean isElastic() {
    return maxWorkers > minWorkers;
  }

  /** GPUs of the base gang: what the job needs at once before any worker starts. */
  public long baseGpus() {
    return (long) minWorkers * gpusPerWorker;
  }

  /**
   * The tags that carry this shape, for a client to set on its submission; the runtime in whole
   * seconds, up.
   */
  public Set<String> toTags() {
    Set<String> tags = new TreeSet<>();
    tags.add(MIN_WORKERS + "=" + minWorkers);
    tags.add(MAX_WORKERS + "=" + maxWorkers);
    tags.add(GPUS_PER_WORKER + "=" + gpusPerWorker);
    tags.add(PREDICTED_RUNTIME_S + "=" + (long) Math.ceil(predictedRuntimeS));
    if (!kind.isEmpty()) {
      tags.add(KIND + "=" + kind);
    }
    if (!gpuTypes.isEmpty()) {
      tags.add(GPU_TYPES + "=" + String.join(",", gpuTypes));
    }
    return tags;
  }

  /**
   * The shape in an application's tags; empty if it has no {@code aryl.} tag. Case and blanks
   * around keys and values do not matter; tags of other systems are ignored.
   *
   * @throws InvalidJobShapeException naming the tag and value when a tag is unknown, repeated,
   *     malformed or out of range
   */
  public static Optional<JobShape> fromTags(Collection<String> tags) {
    Map<String, String> values = new TreeMap<>();
    for (String tag : tags) {
      String t = tag.trim().toLowerCase(Locale.ROOT);
      if (!t.startsWith(PREFIX)) {
        continue;
      }
      int eq = t.indexOf('=');
      if (eq < 0) {
        throw new InvalidJobShapeException("tag '" + tag + "' must be key=value");
      }
      String key = t.substring(0, eq).trim();
      String value = t.substring(eq + 1).trim();
      if (!TAGS.contains(key)) {
        // Name the value too (key=value): the submitter sees exactly which tag of the submission
        // was refused.
        throw new InvalidJobShapeException(
            "unknown tag '" + key + "=" + value + "' (known: " + String.join(", ", TAGS) + ")");
      }
      String previous = values.put(key, value);
      if (previous != null && !previous.equals(value)) {
        throw new InvalidJobShapeException(
            "tag " + key + " given twice: '" + previous + "' and '" + value + "'");
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
      throw new InvalidJobShapeException(
          "missing tag " + PREDICTED_RUNTIME_S + " (predicted runtime at min workers, s)");
    }
    double runtimeS;
    try {
      runtimeS = Double.parseDouble(runtime);
    } catch (NumberFormatException e) {
      throw new InvalidJobShapeException(
          PREDICTED_RUNTIME_S + " must be a number of seconds, was '" + runtime + "'");
    }
    Set<String> types = new TreeSet<>();
    String typesTag = values.get(GPU_TYPES);
    if (typesTag != null) {
      for (String t : typesTag.split(",", -1)) {
        if (t.isBlank()) {
          throw new InvalidJobShapeException(
              GPU_TYPES + " must be GPU type names separated by commas, was '" + typesTag + "'");
        }
        types.add(t.trim());
      }
    }
    return Optional.of(
        new JobShape(min, max, gpus, runtimeS, values.getOrDefault(KIND, ""), types));
  }

  private static int intTag(Map<String, String> values, String key, Integer defaultValue) {
    String v = values.get(key);
    if (v == null) {
      if (defaultValue == null) {
        throw new InvalidJobShapeException("missing tag " + key);
      }
      return defaultValue;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new InvalidJobShapeException(key + " must be an integer, was '" + v + "'");
    }
  }
}
