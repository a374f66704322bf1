package io.aryl.sls.trace;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.aryl.sim.engine.JobShape;
import io.aryl.sim.trace.TraceJob;
import io.aryl.sls.SlsJobFormat;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.sls.conf.SLSConfiguration;

/**
 * Trace jobs to the inputs of an SLS run: one SLS JSON job per trace job ({@link SlsJobFormat}) and
 * a node file, both written as a stream of JSON objects, the way SLS reads them.
 *
 * <p>A job's shape is aryl-sim's assumption, unchanged ({@link JobShape}): the same job id, elastic
 * fraction and seed make the same jobs elastic, with the same workers, so that SLS runs the
 * workload aryl-sim judges. Its times are the trace's, compressed by {@link JobOptions#timeScale()}
 * because SLS runs in real time; see {@link #job}.
 *
 * <p>The job's {@link TraceJob#tenant()} names the ITP cluster it comes from (e.g. {@code 01}): it
 * makes the job id unique across clusters ({@code itp-01-<trace id>}) and is the job's user ({@code
 * itp01}).
 */
public final class SlsTraceWriter {
  /** The queue every job is submitted to. */
  public static final String QUEUE = "training";

  /** The node label of the training pool. */
  public static final String TRAINING_LABEL = "training";

  /** The node label of the nodes lent by inference ({@code --inference-nodes}). */
  public static final String INFERENCE_LABEL = "inference";

  public static final String JOBS_FILE = "jobs.json";
  public static final String NODES_FILE = "nodes.json";

  /**
   * AM containers a node has room for beside a full load of workers. An SLS AM holds a container of
   * SLS's default AM size for its whole job and needs no GPU, so AMs land on GPU nodes; without
   * this room an AM would keep a GPU idle.
   */
  public static final int AM_ROOM_PER_NODE = 8;

  /** Nodes per rack when {@code --racks} is not given. */
  public static final int NODES_PER_RACK = 40;

  /**
   * The most milliseconds SLS reads for a duration: it parses {@code container.duration.ms} as an
   * int.
   */
  static final long MAX_DURATION_MS = Integer.MAX_VALUE;

  // The node file's keys: SLSUtils.parseNodesFromNodeFile reads these literals; SLS has no
  // constants for them.
  private static final String RACK = "rack";
  private static final String NODES = "nodes";
  private static final String NODE = "node";
  private static final String LABELS = "labels";

  private static final String MEMORY = ResourceInformation.MEMORY_URI;
  private static final String VCORES = ResourceInformation.VCORES_URI;

  private static final ObjectWriter JSON = new ObjectMapper().writerWithDefaultPrettyPrinter();

  private SlsTraceWriter() {}

  /**
   * How trace jobs become SLS jobs. Each component is the command-line option of that name ({@link
   * SlsTraceCommand}) and a bad value is refused naming the option, so that the message is the same
   * from code and from the command line.
   *
   * @param timeScale trace seconds per simulated second ({@code --time-scale}), e.g. 360: a trace
   *     hour in 10 s
   * @param minDurationMs no container runs shorter ({@code --min-duration-ms}), so that every job
   *     lives a few heartbeats
   * @param elasticFraction share of jobs that are elastic ({@code --elastic-fraction}), as in
   *     aryl-sim
   * @param seed picks which jobs are elastic ({@code --seed}), as in aryl-sim
   * @param gpusPerNode GPUs of a node ({@code --gpus-per-node}): aryl-sim's GPUs per server, no
   *     worker is larger
   * @param memoryPerGpuMb a worker's memory per GPU ({@code --memory-per-gpu-mb})
   */
  public record JobOptions(
      double timeScale,
      long minDurationMs,
      double elasticFraction,
      long seed,
      int gpusPerNode,
      int memoryPerGpuMb) {
    public JobOptions {
      requirePositive("--time-scale", timeScale);
      requirePositive("--min-duration-ms", minDurationMs);
      if (!(elasticFraction >= 0 && elasticFraction <= 1)) {
        throw new IllegalArgumentException(
            "--elastic-fraction must be within [0, 1], was " + elasticFraction);
      }
      requirePositive("--gpus-per-node", gpusPerNode);
      requirePositive("--memory-per-gpu-mb", memoryPerGpuMb);
    }

    /** Trace seconds as simulated milliseconds. */
    long compressMs(double traceS) {
      return Math.round(traceS * 1000 / timeScale);
    }
  }

  /**
   * The node file's cluster: {@code nodes} nodes of identical resources, filled into {@code racks}
   * racks in order; the last {@code inferenceNodes} are labelled {@value
   * SlsTraceWriter#INFERENCE_LABEL}, the others {@value SlsTraceWriter#TRAINING_LABEL}. Each
   * component is the command-line option of that name.
   */
  public record NodeOptions(
      int nodes, int gpusPerNode, int racks, int memoryMb, int vcores, int inferenceNodes) {
    public NodeOptions {
      requirePositive("--nodes", nodes);
      requirePositive("--gpus-per-node", gpusPerNode);
      requirePositive("--racks", racks);
      if (racks > nodes) {
        throw new IllegalArgumentException(
            "--racks must be at most --nodes (" + nodes + "), was " + racks);
      }
      requirePositive("--node-memory-mb", memoryMb);
      requirePositive("--node-vcores", vcores);
      if (inferenceNodes < 0 || inferenceNodes > nodes) {
        throw new IllegalArgumentException(
            "--inference-nodes must be within [0, --nodes (" + nodes + ")], was " + inferenceNodes);
      }
    }

    /** {@value SlsTraceWriter#NODES_PER_RACK} nodes a rack, at least one rack. */
    public static int defaultRacks(int nodes) {
      return Math.max(1, nodes / NODES_PER_RACK);
    }

    /**
     * A node's GPUs' worth of worker memory, plus room for {@value SlsTraceWriter#AM_ROOM_PER_NODE}
     * default AMs.
     */
    public static int defaultMemoryMb(int gpusPerNode, int memoryPerGpuMb) {
      return gpusPerNode * memoryPerGpuMb
          + AM_ROOM_PER_NODE * SLSConfiguration.AM_CONTAINER_MEMORY_DEFAULT;
    }

    /**
     * One vcore for each worker a node can hold (its GPUs, at one GPU a worker), plus the AMs'
     * room.
     */
    public static int defaultVcores(int gpusPerNode) {
      return gpusPerNode + AM_ROOM_PER_NODE * SLSConfiguration.AM_CONTAINER_VCORES_DEFAULT;
    }
  }

  /**
   * The SLS jobs of a slice and what the command reports of them.
   *
   * @param jobs one SLS JSON job per trace job, in trace order
   * @param elastic how many of them are elastic (have a {@value SlsJobFormat#FLEXIBLE} entry)
   * @param gpuHours GPU-hours the jobs used in the trace (trace time, at their requested GPUs)
   * @param spanMs simulated milliseconds from the slice start to the last job's end at its minimum
   *     workers
   */
  public record SlsJobs(
      List<Map<String, Object>> jobs, int elastic, double gpuHours, long spanMs) {}

  /**
   * Every trace job as an SLS job, {@code originS} (trace time, the slice start) becoming SLS time
   * 0.
   */
  public static SlsJobs jobs(List<TraceJob> trace, double originS, JobOptions o) {
    List<Map<String, Object>> jobs = new ArrayList<>();
    int elastic = 0;
    double gpuS = 0;
    long spanMs = 0;
    for (TraceJob j : trace) {
      Map<String, Object> job = job(j, originS, o);
      jobs.add(job);
      elastic += isElastic(shape(j, o)) ? 1 : 0;
      gpuS += j.gpuSeconds();
      spanMs = Math.max(spanMs, (long) job.get(SLSConfiguration.JOB_END_MS));
    }
    return new SlsJobs(List.copyOf(jobs), elastic, gpuS / 3600, spanMs);
  }

  /**
   * The job's shape under aryl-sim's assumption, decided by the trace's own job id as in aryl-sim.
   */
  public static JobShape shape(TraceJob j, JobOptions o) {
    return JobShape.isElastic(j.id(), o.elasticFraction(), o.seed())
        ? JobShape.elastic(j.gpus(), o.gpusPerNode())
        : JobShape.inelastic(j.gpus(), o.gpusPerNode());
  }

  /**
   * The job's runtime on its minimum workers, trace seconds. The trace ran the job on its requested
   * workers for its duration, so its work is {@code durationS x requestedWorkers} worker-seconds;
   * at one unit of work per worker and second (linear speed-up, as {@link SlsJobFormat} and the AM
   * simulator assume) its minimum workers take {@code work / minWorkers}. An inelastic job's
   * minimum is its request, so it runs its trace duration; an elastic job of g GPUs, whose minimum
   * is g/2, runs twice its trace duration on its minimum and half of it on its maximum (2g).
   * (aryl-sim's simulator speeds jobs up by {@code n^0.8} instead; both agree on the requested
   * workers.)
   */
  public static double runtimeAtMinS(TraceJob j, JobShape s) {
    return j.durationS() * s.requestedWorkers() / s.minWorkers();
  }

  /**
   * One trace job as an SLS job: submitted at {@code (submitS - originS) / timeScale}, {@code
   * originS} being the trace time that becomes SLS time 0 (the start of the slice); its base entry
   * running {@link #runtimeAtMinS} compressed by the time scale (at least {@code minDurationMs}),
   * its flexible entry (elastic jobs only) the same containers. {@code job.end.ms} is its end had
   * it started at once on its minimum workers.
   */
  public static Map<String, Object> job(TraceJob j, double originS, JobOptions o) {
    if (!(j.submitS() >= originS)) {
      throw new IllegalArgumentException(
          "job "
              + j.id()
              + " is submitted at "
              + j.submitS()
              + " s, before the slice start "
              + originS
              + " s");
    }
    JobShape shape = shape(j, o);
    long startMs = o.compressMs(j.submitS() - originS);
    long durationMs = Math.max(o.minDurationMs(), o.compressMs(runtimeAtMinS(j, shape)));
    if (durationMs > MAX_DURATION_MS) {
      throw new IllegalArgumentException(
          "--time-scale "
              + o.timeScale()
              + " leaves job "
              + j.id()
              + " running "
              + durationMs
              + " ms, more than SLS reads ("
              + MAX_DURATION_MS
              + "); raise --time-scale");
    }
    Map<String, Object> job = new LinkedHashMap<>();
    // The patched AMRunner reads am.type as SLS's documentation writes it.
    job.put(SlsJobFormat.AM_TYPE_KEY, SlsJobFormat.AM_TYPE);
    job.put(SLSConfiguration.JOB_START_MS, startMs);
    job.put(SLSConfiguration.JOB_END_MS, startMs + durationMs);
    job.put(SLSConfiguration.JOB_QUEUE_NAME, QUEUE);
    job.put(SLSConfiguration.JOB_ID, "itp-" + j.tenant() + "-" + j.id());
    job.put(SLSConfiguration.JOB_USER, j.tenant().isEmpty() ? "itp" : "itp" + j.tenant());
    List<Map<String, Object>> tasks = new ArrayList<>();
    tasks.add(task(SlsJobFormat.BASE, shape.minWorkers(), shape, durationMs, o));
    if (isElastic(shape)) {
      tasks.add(
          task(
              SlsJobFormat.FLEXIBLE,
              shape.maxWorkers() - shape.minWorkers(),
              shape,
              durationMs,
              o));
    }
    job.put(SLSConfiguration.JOB_TASKS, tasks);
    return job;
  }

  private static Map<String, Object> task(
      String type, int count, JobShape shape, long durationMs, JobOptions o) {
    Map<String, Object> task = new LinkedHashMap<>();
    task.put(SLSConfiguration.COUNT, count);
    task.put(SLSConfiguration.TASK_TYPE, type);
    task.put(SLSConfiguration.TASK_PREFIX + SlsJobFormat.GPU, shape.gpusPerWorker());
    // Memory follows GPUs, so that a scheduler counting memory alone still packs workers by their
    // GPUs.
    task.put(SLSConfiguration.TASK_PREFIX + MEMORY, shape.gpusPerWorker() * o.memoryPerGpuMb());
    task.put(SLSConfiguration.TASK_PREFIX + VCORES, 1);
    task.put(SLSConfiguration.TASK_DURATION_MS, durationMs);
    return task;
  }

  private static boolean isElastic(JobShape s) {
    return s.maxWorkers() > s.minWorkers();
  }

  /**
   * The node file: one object per rack, {@code rack-1..}, holding its nodes, {@code node-1..} in
   * order.
   */
  public static List<Map<String, Object>> nodes(NodeOptions o) {
    List<Map<String, Object>> racks = new ArrayList<>();
    int next = 0;
    for (int r = 0; r < o.racks(); r++) {
      int end = (int) ((long) o.nodes() * (r + 1) / o.racks()); // racks differ by at most one node
      List<Map<String, Object>> nodes = new ArrayList<>();
      for (; next < end; next++) {
        Map<String, Object> node = new LinkedHashMap<>();
        node.put(NODE, "node-" + (next + 1));
        node.put(MEMORY, o.memoryMb());
        node.put(VCORES, o.vcores());
        node.put(SlsJobFormat.GPU, o.gpusPerNode());
        node.put(LABELS, next >= o.nodes() - o.inferenceNodes() ? INFERENCE_LABEL : TRAINING_LABEL);
        nodes.add(node);
      }
      Map<String, Object> rack = new LinkedHashMap<>();
      rack.put(RACK, "rack-" + (r + 1));
      rack.put(NODES, nodes);
      racks.add(rack);
    }
    return racks;
  }

  /**
   * Writes {@code dir/}{@value #JOBS_FILE} and {@code dir/}{@value #NODES_FILE}, creating {@code
   * dir}. Both are written to temporary files first and moved into place only when both are whole,
   * so that a failure while writing leaves no half-written file behind (and the files of an earlier
   * run as they were).
   */
  public static void write(
      Path dir, List<Map<String, Object>> jobs, List<Map<String, Object>> nodes)
      throws IOException {
    Files.createDirectories(dir);
    Path jobsTmp = null;
    Path nodesTmp = null;
    try {
      jobsTmp = writeTemp(dir, JOBS_FILE, jobs);
      nodesTmp = writeTemp(dir, NODES_FILE, nodes);
      move(jobsTmp, dir.resolve(JOBS_FILE));
      move(nodesTmp, dir.resolve(NODES_FILE));
    } finally {
      for (Path tmp : new Path[] {jobsTmp, nodesTmp}) {
        if (tmp != null) {
          Files.deleteIfExists(tmp);
        }
      }
    }
  }

  /** The objects one after another, as SLS reads them (a stream of objects, not an array). */
  private static Path writeTemp(Path dir, String name, List<Map<String, Object>> objects)
      throws IOException {
    Path tmp =
        dir.resolve(
            "." + name + ".tmp"); // not Files.createTempFile: its files are private to the user
    try (BufferedWriter out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
      for (Map<String, Object> o : objects) {
        out.write(JSON.writeValueAsString(o));
        out.newLine();
      }
    }
    return tmp;
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void requirePositive(String option, double v) {
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(option + " must be a finite number > 0, was " + v);
    }
  }

  private static void requirePositive(String option, long v) {
    if (v <= 0) {
      throw new IllegalArgumentException(option + " must be > 0, was " + v);
    }
  }
}
