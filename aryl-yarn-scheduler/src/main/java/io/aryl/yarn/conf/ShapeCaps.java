package io.aryl.yarn.conf;

import io.aryl.core.job.JobShape;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How large an Aryl job each queue accepts: at most so many workers ({@code aryl.max-workers}) and
 * so many GPUs ({@code aryl.max-workers} x {@code aryl.gpus-per-worker}) per job. A job's tags are
 * its own to write, so without a cap any user of a queue could claim the whole pool as one job's
 * shape; the caps are the operator's.
 *
 * <p>Each limit has a cluster-wide key in yarn-site.xml ({@link ArylConf#MAX_WORKERS_PER_JOB},
 * {@link ArylConf#MAX_GPUS_PER_JOB}) and a per-queue key in capacity-scheduler.xml, where YARN
 * keeps every other per-queue limit ({@code
 * yarn.scheduler.capacity.<queue-path>.aryl.max-gpus-per-job}, re-read on {@code yarn rmadmin
 * -refreshQueues}). A queue's cap holds for its own jobs and for those of every queue below it, and
 * may only lower the caps above it, as YARN's own {@code maximum-allocation} may only lower the
 * cluster's: the cap a job meets is the smallest of the cluster's and those of its queue and the
 * queue's ancestors. 0 sets no cap, as does a key left out.
 *
 * <p>Immutable; {@link #refusal} is a pure function of the shape, the queue and the caps.
 */
public final class ShapeCaps {
  /** Where the Capacity Scheduler's per-queue keys start. */
  public static final String QUEUE_PREFIX = "yarn.scheduler.capacity.";

  /**
   * {@code yarn.scheduler.capacity.<queue-path>.aryl.<name>}: a per-queue key of Aryl's, or one of
   * something else named {@code aryl} (a queue, a node label, a user), told apart by the name and
   * by which queues exist.
   */
  private static final Pattern QUEUE_KEY =
      Pattern.compile(Pattern.quote(QUEUE_PREFIX) + "(.+)\\.aryl\\.([^.]+)");

  /** What a cap limits. */
  public enum Limit {
    WORKERS(ArylConf.MAX_WORKERS_PER_JOB, "max-workers-per-job"),
    GPUS(ArylConf.MAX_GPUS_PER_JOB, "max-gpus-per-job");

    private final ArylConf clusterKey;
    private final String queueSuffix;

    Limit(ArylConf clusterKey, String queueSuffix) {
      this.clusterKey = clusterKey;
      this.queueSuffix = queueSuffix;
    }

    /** The cluster-wide key, in yarn-site.xml. */
    public ArylConf clusterKey() {
      return clusterKey;
    }

    /** The key of this limit for one queue, in capacity-scheduler.xml. */
    public String queueKey(String queuePath) {
      return QUEUE_PREFIX + queuePath + ".aryl." + queueSuffix;
    }

    /** The limit of {@code yarn.scheduler.capacity.<queue-path>.aryl.<name>}. */
    static Optional<Limit> bySuffix(String suffix) {
      for (Limit l : values()) {
        if (l.queueSuffix.equals(suffix)) {
          return Optional.of(l);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * A cap in force: its value and the key that sets it (the message names it, so the operator knows
   * which to change).
   */
  public record Cap(long value, String key) {
    @Override
    public String toString() {
      return key + "=" + value;
    }
  }

  /** No cap at all: every key unset or 0. */
  public static final ShapeCaps NONE = new ShapeCaps(new EnumMap<>(Limit.class), noQueueCaps());

  /** Cluster-wide caps set (above 0). */
  private final Map<Limit, Cap> cluster;

  /** Per-queue caps set (above 0), by queue path. */
  private final Map<Limit, Map<String, Cap>> queues;

  private ShapeCaps(Map<Limit, Cap> cluster, Map<Limit, Map<String, Cap>> queues) {
    this.cluster = cluster;
    this.queues = queues;
  }

  /**
   * The caps the settings and the Capacity Scheduler's configuration set.
   *
   * @param settings the cluster-wide caps ({@link ArylSettings#maxWorkersPerJob()}, {@link
   *     ArylSettings#maxGpusPerJob()})
   * @param schedulerConf the Capacity Scheduler's properties (others are ignored), with their
   *     values
   * @param isQueue whether a full queue path names a queue of the Capacity Scheduler
   * @throws IllegalArgumentException naming the key and the value: an unknown {@code aryl.} key of
   *     a queue, a queue that does not exist, a value that is not an integer >= 0, or a cap above
   *     one of the caps it is under
   */
  public static ShapeCaps of(
      ArylSettings settings, Map<String, String> schedulerConf, Predicate<String> isQueue) {
    Map<Limit, Cap> cluster = new EnumMap<>(Limit.class);
    put(cluster, Limit.WORKERS, settings.maxWorkersPerJob(), ArylConf.MAX_WORKERS_PER_JOB.key());
    put(cluster, Limit.GPUS, settings.maxGpusPerJob(), ArylConf.MAX_GPUS_PER_JOB.key());
    Map<Limit, Map<String, Cap>> queues = noQueueCaps();
    for (Map.Entry<String, String> e : new TreeMap<>(schedulerConf).entrySet()) {
      Matcher m = QUEUE_KEY.matcher(e.getKey());
      if (!m.matches()) {
        continue;
      }
      String key = e.getKey();
      String raw = e.getValue() == null ? "" : e.getValue().trim();
      String queue = m.group(1);
      Optional<Limit> known = Limit.bySuffix(m.group(2));
      if (known.isEmpty()) {
        if (isQueue.test(queue) && !isQueue.test(queue + ".aryl")) {
          throw new IllegalArgumentException(
              "unknown queue key "
                  + key
                  + "="
                  + raw
                  + " (Aryl's keys of a queue: "
                  + Limit.WORKERS.queueKey("<queue-path>")
                  + ", "
                  + Limit.GPUS.queueKey("<queue-path>")
                  + ")");
        }
        continue; // a key of a queue named aryl, or of something else named aryl (a node label, a
        // user)
      }
      if (!isQueue.test(queue)) {
        // A cap under a misspelt queue would silently cap nothing.
        throw new IllegalArgumentException(
            key
                + "="
                + raw
                + ": no queue "
                + queue
                + " (per-queue keys name a queue by its full path, e.g. root.training)");
      }
      Limit limit = known.get();
      long value;
      try {
        value = Long.parseLong(raw);
      } catch (NumberFormatException x) {
        value = -1;
      }
      if (value < 0) {
        throw new IllegalArgumentException(
            key + " must be an integer >= 0 (0: no cap of its own), was '" + raw + "'");
      }
      put(queues.get(limit), queue, value, key);
    }
    ShapeCaps caps = new ShapeCaps(cluster, queues);
    for (Limit l : Limit.values()) {
      for (Map.Entry<String, Cap> q : queues.get(l).entrySet()) {
        caps.enclosing(l, q.getKey())
            .filter(above -> above.value() < q.getValue().value())
            .ifPresent(
                above -> {
                  throw new IllegalArgumentException(
                      q.getValue()
                          + " is more than "
                          + above
                          + " allows: a queue's cap may only"
                          + " lower the caps above it (the cluster-wide one, its parent queues')");
                });
      }
    }
    return caps;
  }

  private static Map<Limit, Map<String, Cap>> noQueueCaps() {
    Map<Limit, Map<String, Cap>> queues = new EnumMap<>(Limit.class);
    for (Limit l : Limit.values()) {
      queues.put(l, new TreeMap<>());
    }
    return queues;
  }

  private static <K> void put(Map<K, Cap> into, K at, long value, String key) {
    if (value > 0) {
      into.put(at, new Cap(value, key));
    }
  }

  /**
   * The cap the queue's jobs meet: the smallest of the cluster's, the queue's and its ancestors';
   * empty for none.
   */
  public Optional<Cap> cap(Limit limit, String queuePath) {
    Optional<Cap> own = Optional.ofNullable(queues.get(limit).get(queuePath));
    Optional<Cap> above = enclosing(limit, queuePath);
    if (own.isPresent() && above.isPresent()) {
      return own.get().value() <= above.get().value() ? own : above;
    }
    return own.isPresent() ? own : above;
  }

  /**
   * The smallest cap above the queue (the cluster's, its ancestors'), the nearest of equal ones;
   * empty for none.
   */
  private Optional<Cap> enclosing(Limit limit, String queuePath) {
    Cap best = cluster.get(limit);
    int dot = queuePath.length();
    while ((dot = queuePath.lastIndexOf('.', dot - 1)) > 0) {
      Cap c = queues.get(limit).get(queuePath.substring(0, dot));
      if (c != null
          && (best == null
              || c.value() < best.value()
              || (c.value() == best.value() && !best.key().startsWith(QUEUE_PREFIX)))) {
        best =
            c; // nearer ancestors are seen first: one of equal value replaces only the cluster-wide
        // cap
      }
    }
    return Optional.ofNullable(best);
  }

  /** Whether any cap is set. */
  public boolean any() {
    return !cluster.isEmpty() || queues.values().stream().anyMatch(m -> !m.isEmpty());
  }

  /**
   * Why a job of this shape may not run in this queue, naming the tag, the value and the cap; empty
   * if it may. The width is {@code aryl.max-workers}; an inelastic job's is its {@code
   * aryl.min-workers}, the tag it is sure to carry.
   *
   * @param queuePath the job's queue, by its full path
   */
  public Optional<String> refusal(JobShape shape, String queuePath) {
    String width =
        (shape.isElastic() ? JobShape.MAX_WORKERS : JobShape.MIN_WORKERS)
            + "="
            + shape.maxWorkers();
    Optional<Cap> workers = cap(Limit.WORKERS, queuePath);
    if (workers.isPresent() && shape.maxWorkers() > workers.get().value()) {
      return Optional.of(
          width + " is more than queue " + queuePath + " allows (" + workers.get() + ")");
    }
    long gpus = (long) shape.maxWorkers() * shape.gpusPerWorker();
    Optional<Cap> gpuCap = cap(Limit.GPUS, queuePath);
    if (gpuCap.isPresent() && gpus > gpuCap.get().value()) {
      return Optional.of(
          width
              + " x "
              + JobShape.GPUS_PER_WORKER
              + "="
              + shape.gpusPerWorker()
              + " = "
              + gpus
              + " GPUs is more than queue "
              + queuePath
              + " allows ("
              + gpuCap.get()
              + ")");
    }
    return Optional.empty();
  }

  /** Every cap set, as key=value, comma-separated; "none" for none. */
  @Override
  public String toString() {
    java.util.List<String> all = new java.util.ArrayList<>();
    for (Limit l : Limit.values()) {
      if (cluster.containsKey(l)) {
        all.add(cluster.get(l).toString());
      }
      queues.get(l).values().forEach(c -> all.add(c.toString()));
    }
    return all.isEmpty() ? "none" : String.join(", ", all);
  }
}
