package io.aryl.sls;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.aryl.api.conf.PoolConf;
import io.aryl.sls.SlsConf.Scheduler;
import io.aryl.yarn.ArylScheduler;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.nodelabels.CommonNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.SLSRunner.TraceType;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;

/**
 * One SLS run in this JVM: hadoop-sls's own {@link SLSRunner} (its RM, its simulated NodeManagers,
 * its AM simulators) with one scheduler on one SLS trace, until every job has finished or the time
 * limit has passed. It leaves SLS's outputs in the output directory and adds {@code summary.json}
 * ({@link SlsSummary}): what the comparison reads.
 *
 * <p>SLS keeps its state in statics (its task runner, its metrics), so one JVM runs one SLS run:
 * {@code bin/aryl-sls} starts one per scheduler.
 */
public final class SlsRun {
  private final Scheduler scheduler;
  private final Path jobs;
  private final Path nodes;
  private final Path out;
  private final long timeoutMs;
  private final String queue;
  private final String nodeLabel;

  SlsRun(
      Scheduler scheduler,
      Path jobs,
      Path nodes,
      Path out,
      long timeoutMs,
      String queue,
      String nodeLabel) {
    this.scheduler = scheduler;
    this.jobs = jobs;
    this.nodes = nodes;
    this.out = out;
    this.timeoutMs = timeoutMs;
    this.queue = queue;
    this.nodeLabel = nodeLabel;
  }

  /**
   * Runs SLS to the end and returns what it measured; SLS's outputs and summary.json are under the
   * output dir.
   */
  SlsSummary run() throws Exception {
    SlsInternals.checkPatchedAmRunner();
    Files.createDirectories(out);
    File work = Files.createDirectories(out.resolve("work")).toFile();
    Configuration conf = SlsConf.of(scheduler, work);
    // Resource types are a JVM-wide registry, read from resource-types.xml unless told otherwise:
    // GPUs from this conf.
    ResourceUtils.resetResourceTypes(conf);
    // Read once per JVM too: token services by name (hadoop.security.token.service.use_ip=false,
    // SlsConf).
    SecurityUtil.setConfiguration(conf);
    createPoolLabels(conf);
    ConcurrentLinkedQueue<Double> roundsMs = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Double> roundsCpuMs = new ConcurrentLinkedQueue<>();
    SLSRunner sls = new SLSRunner(conf);
    Path jobsIn =
        queue == null ? jobs : TraceRewrite.queue(jobs, queue, work.toPath().resolve("jobs.json"));
    Path nodesIn =
        nodeLabel == null
            ? nodes
            : TraceRewrite.nodeLabel(nodes, nodeLabel, work.toPath().resolve("nodes.json"));
    sls.setSimulationParams(
        TraceType.SLS,
        new String[] {jobsIn.toString()},
        nodesIn.toString(),
        out.toString(),
        Set.of(),
        false);
    long startNs = System.nanoTime();
    sls.start();
    ResourceManager rm = SlsInternals.rm(sls);
    if (rm.getResourceScheduler() instanceof ArylScheduler aryl) {
      aryl.aryl()
          .metrics()
          .onRound(
              (wallMs, cpuMs) -> {
                roundsMs.add(wallMs);
                roundsCpuMs.add(cpuMs);
              });
    }
    boolean allDone;
    List<ClusterSampler.Sample> samples;
    try (ClusterSampler sampler = new ClusterSampler(rm).start()) {
      long deadline = System.currentTimeMillis() + timeoutMs;
      while (sls.getRemainingApps() > 0 && System.currentTimeMillis() < deadline) {
        Thread.sleep(500);
      }
      allDone = sls.getRemainingApps() == 0;
      samples = sampler.samples();
    }
    double wallS = (System.nanoTime() - startNs) / 1e9;
    List<SlsJobRecord> records = SlsJobLog.records();
    sls.stop();
    SlsSummary summary =
        SlsSummary.of(
            scheduler.label(),
            allDone,
            wallS,
            records,
            samples,
            new ArrayList<>(roundsMs),
            new ArrayList<>(roundsCpuMs),
            SlsOutputs.read(out));
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(out.resolve("summary.json").toFile(), summary);
    return summary;
  }

  /**
   * Creates the pools' exclusive labels in the RM's label store before the RM starts, as an
   * operator's set-up does: SLS's NodeManagers register with their labels at once, and the RM
   * refuses a label it does not know yet (Aryl would create them at start-up, the stock scheduler
   * never).
   */
  private static void createPoolLabels(Configuration conf) throws IOException {
    CommonNodeLabelsManager store = new CommonNodeLabelsManager();
    store.init(conf);
    store.start();
    try {
      List<NodeLabel> labels = new ArrayList<>();
      for (PoolConf key : PoolConf.values()) {
        String name = conf.get(key.key(), key.defaultValue());
        if (!store.getClusterNodeLabelNames().contains(name)) {
          labels.add(NodeLabel.newInstance(name, true));
        }
      }
      store.addToCluserNodeLabels(labels);
    } finally {
      store.stop();
    }
  }

  /** {@code SlsRun --scheduler aryl|capacity --jobs F --nodes F --out DIR [--timeout-s N]}. */
  public static void main(String[] args) throws Exception {
    SlsSummary s;
    try {
      SlsRun run = parse(args);
      SimulatedHosts.install(run.out);
      s = run.run();
    } catch (IllegalArgumentException e) {
      // A bad option or a bad trace: the user's mistake, said in one line.
      System.err.println("aryl-sls: " + e.getMessage());
      System.exit(2);
      return;
    }
    System.out.println(s.oneLine());
    // SLS leaves non-daemon threads (its RM's, its runner's) behind a stopped run.
    System.exit(s.allFinished() ? 0 : 1);
  }

  /** A year: longer than any simulation, short enough to stay a number of milliseconds. */
  private static final long MAX_TIMEOUT_S = 365L * 86_400;

  private static final String USAGE =
      "usage: --scheduler aryl|capacity --jobs FILE --nodes FILE --out DIR"
          + " [--timeout-s N] [--queue Q] [--node-label L]";
  private static final Set<String> FLAGS =
      Set.of("--scheduler", "--jobs", "--nodes", "--out", "--timeout-s", "--queue", "--node-label");

  static SlsRun parse(String[] args) {
    Scheduler scheduler = null;
    Path jobs = null;
    Path nodes = null;
    Path out = null;
    long timeoutS = 3600;
    String queue = null;
    String nodeLabel = null;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (!FLAGS.contains(flag)) {
        throw new IllegalArgumentException("unknown option '" + flag + "'; " + USAGE);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      String v = args[++i];
      switch (flag) {
        case "--scheduler" -> scheduler = Scheduler.parse(v);
        case "--jobs" -> jobs = existing(flag, v);
        case "--nodes" -> nodes = existing(flag, v);
        case "--out" -> out = Path.of(v);
        case "--timeout-s" -> timeoutS = positive(flag, v);
        case "--queue" -> queue = v;
        case "--node-label" -> nodeLabel = v;
        default -> throw new IllegalStateException(flag);
      }
    }
    if (scheduler == null || jobs == null || nodes == null || out == null) {
      throw new IllegalArgumentException(USAGE);
    }
    return new SlsRun(scheduler, jobs, nodes, out, timeoutS * 1000, queue, nodeLabel);
  }

  private static Path existing(String flag, String v) {
    Path p = Path.of(v);
    if (!Files.isRegularFile(p)) {
      throw new IllegalArgumentException(flag + ": no such file '" + v + "'");
    }
    return p;
  }

  private static long positive(String flag, String v) {
    try {
      long n = Long.parseLong(v);
      if (n > 0 && n <= MAX_TIMEOUT_S) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        flag
            + " must be a whole number of seconds from 1 to "
            + MAX_TIMEOUT_S
            + ", was '"
            + v
            + "'");
  }
}
