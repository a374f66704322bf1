package io.aryl.yarn.rm;

import io.aryl.core.job.InvalidJobShapeException;
import io.aryl.core.job.JobShape;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.conf.ShapeCaps;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;

/**
 * What an elastic job's shape must meet to be submitted to a queue, or moved to one: the operator's
 * caps ({@link ShapeCaps}, re-read with the queues), the largest container, and the cluster's GPU
 * types.
 */
final class SubmissionCheck {
  private final ArylSettings settings;

  /** A queue by name or path; null when there is none. */
  private final Function<String, CSQueue> queues;

  /** GPUs of the largest container the scheduler allows. */
  private final LongSupplier maxContainerGpus;

  private volatile ShapeCaps caps = ShapeCaps.NONE;

  SubmissionCheck(
      ArylSettings settings, Function<String, CSQueue> queues, LongSupplier maxContainerGpus) {
    this.settings = settings;
    this.queues = queues;
    this.maxContainerGpus = maxContainerGpus;
  }

  /**
   * Reads the caps of {@link ArylConf#MAX_WORKERS_PER_JOB} and {@link ArylConf#MAX_GPUS_PER_JOB}
   * and the per-queue ones of the Capacity Scheduler's configuration as it is now; a wrong one
   * leaves those in force as they were.
   *
   * @throws IllegalArgumentException naming the key and the value of a wrong one
   */
  void readCaps(Configuration capacityScheduler) {
    Map<String, String> raw = new TreeMap<>();
    for (Map.Entry<String, String> e : capacityScheduler) {
      if (e.getKey().startsWith(ShapeCaps.QUEUE_PREFIX) && e.getKey().contains(".aryl.")) {
        raw.put(e.getKey(), capacityScheduler.get(e.getKey()));
      }
    }
    caps =
        ShapeCaps.of(
            settings,
            raw,
            path -> {
              CSQueue q = queues.apply(path);
              return q != null && q.getQueuePath().equals(path);
            });
  }

  ShapeCaps caps() {
    return caps;
  }

  /**
   * Refuses a shape the queue may not run.
   *
   * @throws InvalidJobShapeException saying which tag, value and limit
   */
  void checkFits(JobShape shape, String queue) {
    caps.refusal(shape, queuePath(queue))
        .ifPresent(
            why -> {
              throw new InvalidJobShapeException(why);
            });
    long maxGpus = maxContainerGpus.getAsLong();
    if (shape.gpusPerWorker() > maxGpus) {
      throw new InvalidJobShapeException(
          JobShape.GPUS_PER_WORKER
              + "="
              + shape.gpusPerWorker()
              + " is more than the largest container allows ("
              + maxGpus
              + " GPUs)");
    }
    for (String type : shape.gpuTypes()) {
      if (settings.gpus().type(type).isEmpty()) {
        throw new InvalidJobShapeException(
            JobShape.GPU_TYPES
                + "="
                + String.join(",", shape.gpuTypes())
                + " names GPU type '"
                + type
                + "', which this cluster does not have (its types: "
                + String.join(", ", settings.gpus().types().keySet())
                + ")");
      }
    }
  }

  /**
   * Why a job of this shape may not move to the queue, if it may not: its caps hold as for a
   * submission.
   */
  Optional<String> refusalToMove(JobShape shape, String queue) {
    return caps.refusal(shape, queuePath(queue));
  }

  /**
   * The queue's full path; the name as given when no queue has it yet (an unknown queue, which the
   * Capacity Scheduler rejects, or a leaf it creates under a parent named in the path).
   */
  String queuePath(String queue) {
    CSQueue q = queue == null ? null : queues.apply(queue);
    return q == null ? String.valueOf(queue) : q.getQueuePath();
  }
}
