package io.aryl.am;

import java.util.Set;
import java.util.TreeSet;

/**
 * The application tags that tell the Aryl scheduler a job's elastic shape (the contract of aryl-yarn-scheduler's
 * ElasticShape; a unit test keeps the names equal). YARN lower-cases tags.
 */
public final class JobTags {
  public static final String MIN_WORKERS = "aryl.min-workers";
  public static final String MAX_WORKERS = "aryl.max-workers";
  public static final String GPUS_PER_WORKER = "aryl.gpus-per-worker";
  public static final String PREDICTED_RUNTIME_S = "aryl.predicted-runtime-s";
  public static final String KIND = "aryl.kind";

  private JobTags() {}

  /** The tags carrying this job's shape. */
  public static Set<String> of(JobSpec spec) {
    Set<String> tags = new TreeSet<>();
    tags.add(MIN_WORKERS + "=" + spec.minWorkers());
    tags.add(MAX_WORKERS + "=" + spec.maxWorkers());
    tags.add(GPUS_PER_WORKER + "=" + spec.gpusPerWorker());
    tags.add(PREDICTED_RUNTIME_S + "=" + spec.predictedRuntimeS());
    if (!spec.kind().isEmpty()) {
      tags.add(KIND + "=" + spec.kind());
    }
    return tags;
  }
}
