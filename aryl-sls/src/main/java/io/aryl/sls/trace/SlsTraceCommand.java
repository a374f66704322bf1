package io.aryl.sls.trace;

import io.aryl.sim.engine.SimConfig;
import io.aryl.sim.trace.ItpTrace;
import io.aryl.sim.trace.TraceJob;
import io.aryl.sls.trace.SlsTraceWriter.JobOptions;
import io.aryl.sls.trace.SlsTraceWriter.NodeOptions;
import io.aryl.sls.trace.SlsTraceWriter.SlsJobs;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code aryl-sls-trace}: a slice of the Microsoft ITP trace as an SLS job trace and node file, so
 * that YARN's schedulers run under SLS the workload aryl-sim judges. The options that aryl-sim also
 * has ({@code --trace}, {@code --elastic-fraction}, {@code --seed}, {@code --gpus-per-node} as its
 * {@code --gpus-per-server}) mean what they mean there and have its defaults; the window counts
 * from the same origin as aryl-sim's {@code --start-day}.
 */
@Command(
    name = "aryl-sls-trace",
    mixinStandardHelpOptions = true,
    version = "aryl-sls-trace 0.1.0",
    sortOptions = false,
    description = {
      "Writes a slice of the ITP GPU trace as an SLS JSON job trace (DIR/jobs.json, one \"am.type\": \"aryl\" job "
          + "per trace job, elastic as aryl-sim assumes) and an SLS node file (DIR/nodes.json), and prints what it "
          + "wrote. SLS runs in real time, so the trace's times are divided by --time-scale.",
      ""
    })
public final class SlsTraceCommand implements Callable<Integer> {
  static final String NAME = "aryl-sls-trace";
  private static final double HOUR_S = 3600;
  private static final double DAY_S = 86400;
  private static final Pattern CLUSTER_FILE = Pattern.compile("cluster(\\w+)\\.csv");

  @Option(
      names = "--trace",
      required = true,
      paramLabel = "SPEC",
      description =
          "ITP jobs (raw or elasticflow layout): itp:DIR:cluster=ID[,ID...] (DIR/clusterID.csv, e.g. "
              + "cluster=01), itp:DIR (every cluster*.csv in DIR) or itp:FILE.")
  String trace;

  @Option(
      names = "--start-hour",
      defaultValue = "0",
      paramLabel = "H",
      description =
          "Start of the slice, hours from midnight (trace time) of the first submission: aryl-sim's day 0, "
              + "so --start-hour 48 is its --start-day 2. Default: ${DEFAULT-VALUE}.")
  double startHour;

  @Option(
      names = "--hours",
      paramLabel = "H",
      description = "Hours of submissions in the slice. Default: to the end.")
  Double hours;

  @Option(
      names = "--max-jobs",
      paramLabel = "N",
      description = "Keep the first N jobs of the slice. Default: all.")
  Integer maxJobs;

  @Option(
      names = "--time-scale",
      defaultValue = "360",
      paramLabel = "X",
      description =
          "Trace seconds per simulated second (360: a trace hour in 10 s). Default: ${DEFAULT-VALUE}.")
  double timeScale;

  @Option(
      names = "--min-duration-ms",
      defaultValue = "2000",
      paramLabel = "MS",
      description =
          "No container runs shorter, so that a job lives a few heartbeats. Default: ${DEFAULT-VALUE}.")
  long minDurationMs;

  @Option(
      names = "--elastic-fraction",
      defaultValue = "" + SimConfig.ELASTIC_FRACTION,
      paramLabel = "F",
      description =
          "Share of jobs that are elastic (g/2..2g GPUs), chosen by a hash of (seed, job id) as in "
              + "aryl-sim. Default: ${DEFAULT-VALUE}.")
  double elasticFraction;

  @Option(
      names = "--seed",
      defaultValue = "" + SimConfig.SEED,
      paramLabel = "N",
      description = "Seed of the elastic choice, as in aryl-sim. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--nodes",
      required = true,
      paramLabel = "N",
      description = "Nodes in the node file.")
  int nodes;

  @Option(
      names = "--gpus-per-node",
      defaultValue = "" + SimConfig.GPUS_PER_SERVER,
      paramLabel = "G",
      description =
          "GPUs per node; no worker is larger (aryl-sim's --gpus-per-server). Default: ${DEFAULT-VALUE}.")
  int gpusPerNode;

  @Option(
      names = "--racks",
      paramLabel = "R",
      description = "Racks. Default: --nodes / " + SlsTraceWriter.NODES_PER_RACK + ", at least 1.")
  Integer racks;

  @Option(
      names = "--memory-per-gpu-mb",
      defaultValue = "4096",
      paramLabel = "MB",
      description = "A worker's memory per GPU. Default: ${DEFAULT-VALUE}.")
  int memoryPerGpuMb;

  @Option(
      names = "--node-memory-mb",
      paramLabel = "MB",
      description =
          "A node's memory. Default: its GPUs' worth of worker memory plus room for "
              + SlsTraceWriter.AM_ROOM_PER_NODE
              + " AMs.")
  Integer nodeMemoryMb;

  @Option(
      names = "--node-vcores",
      paramLabel = "N",
      description = "A node's vcores. Default: one per GPU plus one per AM of the AMs' room.")
  Integer nodeVcores;

  @Option(
      names = "--inference-nodes",
      defaultValue = "0",
      paramLabel = "K",
      description =
          "Label the last K nodes \""
              + SlsTraceWriter.INFERENCE_LABEL
              + "\" instead of \""
              + SlsTraceWriter.TRAINING_LABEL
              + "\". Default: ${DEFAULT-VALUE}.")
  int inferenceNodes;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      description =
          "Where " + SlsTraceWriter.JOBS_FILE + " and " + SlsTraceWriter.NODES_FILE + " go.")
  Path out;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    // Options first, trace second: a typo in an option should not wait for a large trace to be
    // read.
    JobOptions jobOptions =
        new JobOptions(
            timeScale, minDurationMs, elasticFraction, seed, gpusPerNode, memoryPerGpuMb);
    NodeOptions nodeOptions = nodeOptions();
    Slice slice = slice();
    SlsJobs jobs = SlsTraceWriter.jobs(slice.jobs(), slice.startS(), jobOptions);
    try {
      SlsTraceWriter.write(out, jobs.jobs(), SlsTraceWriter.nodes(nodeOptions));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to --out " + out + ": " + e, e);
    }
    PrintWriter stdout = spec.commandLine().getOut();
    stdout.printf(
        Locale.ROOT,
        "%d jobs (%d elastic, %.1f GPU-hours of trace time), %d nodes, simulated span %.0f s: "
            + "%s, %s%n",
        jobs.jobs().size(),
        jobs.elastic(),
        jobs.gpuHours(),
        nodeOptions.nodes(),
        jobs.spanMs() / 1000.0,
        out.resolve(SlsTraceWriter.JOBS_FILE),
        out.resolve(SlsTraceWriter.NODES_FILE));
    stdout.flush();
    return 0;
  }

  /**
   * The node options; {@code --gpus-per-node} and {@code --memory-per-gpu-mb} are valid (JobOptions
   * checked them).
   */
  private NodeOptions nodeOptions() {
    long fullNode = (long) gpusPerNode * memoryPerGpuMb;
    if (fullNode > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException(
          "--memory-per-gpu-mb x --gpus-per-node must be below "
              + Integer.MAX_VALUE / 2
              + " MB, was "
              + memoryPerGpuMb
              + " x "
              + gpusPerNode);
    }
    int memory =
        nodeMemoryMb != null
            ? nodeMemoryMb
            : NodeOptions.defaultMemoryMb(gpusPerNode, memoryPerGpuMb);
    if (memory < fullNode) {
      throw new IllegalArgumentException(
          "--node-memory-mb must hold a node's GPUs' worth of worker memory ("
              + gpusPerNode
              + " x "
              + memoryPerGpuMb
              + " MB = "
              + fullNode
              + " MB), was "
              + memory);
    }
    return new NodeOptions(
        nodes,
        gpusPerNode,
        racks != null ? racks : NodeOptions.defaultRacks(nodes),
        memory,
        nodeVcores != null ? nodeVcores : NodeOptions.defaultVcores(gpusPerNode),
        inferenceNodes);
  }

  /** The jobs of the slice and its start, trace seconds. */
  private record Slice(double startS, List<TraceJob> jobs) {}

  /**
   * The jobs submitted in the window, at most {@code --max-jobs} of them. As aryl-sim's {@code
   * --start-day}, the window counts from midnight (trace time) of the first submission, so that the
   * same hour names the same jobs.
   */
  private Slice slice() {
    if (!(startHour >= 0)) {
      throw new IllegalArgumentException("--start-hour must be >= 0, was " + startHour);
    }
    if (hours != null && !(hours > 0)) {
      throw new IllegalArgumentException("--hours must be > 0, was " + hours);
    }
    if (maxJobs != null && maxJobs <= 0) {
      throw new IllegalArgumentException("--max-jobs must be > 0, was " + maxJobs);
    }
    List<TraceJob> jobs = ItpSlice.read(trace);
    if (jobs.isEmpty()) {
      throw new IllegalArgumentException("--trace '" + trace + "' holds no jobs");
    }
    double origin = Math.floor(jobs.get(0).submitS() / DAY_S) * DAY_S;
    double traceEnd = jobs.get(jobs.size() - 1).submitS() + 1;
    double start = origin + startHour * HOUR_S;
    if (start >= traceEnd) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--start-hour must fall inside the trace, which spans %.1f hours, was %s",
              (traceEnd - origin) / HOUR_S,
              startHour));
    }
    double end = hours == null ? Double.POSITIVE_INFINITY : start + hours * HOUR_S;
    List<TraceJob> kept =
        jobs.stream()
            .filter(j -> j.submitS() >= start && j.submitS() < end)
            .limit(maxJobs == null ? Long.MAX_VALUE : maxJobs)
            .toList();
    if (kept.isEmpty()) {
      throw new IllegalArgumentException(
          "--trace '"
              + trace
              + "' holds no job submitted in hours ["
              + startHour
              + ", "
              + (hours == null ? "end" : startHour + hours)
              + ")");
    }
    return new Slice(start, kept);
  }

  /**
   * The {@code --trace} spec read: aryl-sim's {@code itp:FILE} and {@code itp:DIR}, and {@code
   * :cluster=} as its {@code philly:} spec has, choosing cluster files of the directory.
   * (aryl-sim's spec parser is private to its CLI; this reads the files with its public {@link
   * ItpTrace}, which names the file and line of a malformed record.) Each job's tenant is its
   * cluster, taken from the file name ({@code cluster01.csv}: {@code 01}), so that ids stay unique
   * across clusters.
   */
  static final class ItpSlice {
    private ItpSlice() {}

    static List<TraceJob> read(String spec) {
      if (!spec.startsWith("itp:")) {
        throw bad(spec, "must be itp:DIR:cluster=ID[,ID...], itp:DIR or itp:FILE");
      }
      String rest = spec.substring("itp:".length());
      List<String> clusters = null;
      int at = rest.lastIndexOf(":cluster=");
      if (at >= 0) {
        clusters = List.of(rest.substring(at + ":cluster=".length()).split(",", -1));
        rest = rest.substring(0, at);
      }
      Path path = Path.of(rest);
      List<Path> files;
      if (clusters != null) {
        if (!Files.isDirectory(path)) {
          throw bad(spec, "names no directory: '" + rest + "'");
        }
        files = new ArrayList<>();
        for (String id : clusters) {
          Path f = path.resolve("cluster" + id.trim() + ".csv");
          if (id.isBlank() || !Files.isRegularFile(f)) {
            throw bad(spec, "names no cluster '" + id + "': no file " + f);
          }
          files.add(f);
        }
      } else if (Files.isDirectory(path)) {
        files = clusterFiles(spec, path);
      } else if (Files.isRegularFile(path)) {
        files = List.of(path);
      } else {
        throw bad(spec, "names no readable file or directory: '" + rest + "'");
      }
      List<TraceJob> jobs = new ArrayList<>();
      for (Path f : files) {
        String cluster = cluster(f);
        for (TraceJob j : ItpTrace.read(f)) {
          jobs.add(new TraceJob(j.id(), j.submitS(), j.durationS(), j.gpus(), j.model(), cluster));
        }
      }
      jobs.sort(
          Comparator.comparingDouble(TraceJob::submitS)
              .thenComparing(TraceJob::tenant)
              .thenComparing(TraceJob::id));
      return jobs;
    }

    private static List<Path> clusterFiles(String spec, Path dir) {
      try (Stream<Path> list = Files.list(dir)) {
        List<Path> files =
            list.filter(p -> CLUSTER_FILE.matcher(p.getFileName().toString()).matches())
                .sorted()
                .toList();
        if (files.isEmpty()) {
          throw bad(spec, "no cluster*.csv in " + dir);
        }
        return files;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
      }
    }

    /** {@code cluster01.csv}: {@code 01}; any other file: its name without {@code .csv}. */
    private static String cluster(Path file) {
      String name = file.getFileName().toString();
      Matcher m = CLUSTER_FILE.matcher(name);
      return m.matches() ? m.group(1) : name.replaceFirst("\\.csv$", "");
    }

    private static IllegalArgumentException bad(String spec, String problem) {
      return new IllegalArgumentException("--trace '" + spec + "' " + problem);
    }
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /**
   * The command line, as aryl-sim's: an error in the user's input (an option, a trace line) is one
   * line on stderr and exit code 2, an I/O failure one line and exit code 1; no stack trace.
   */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new SlsTraceCommand());
    cl.setParameterExceptionHandler(
        (ex, args) -> {
          ex.getCommandLine().getErr().println(NAME + ": " + ex.getMessage() + " (see --help)");
          ex.getCommandLine().getErr().flush();
          return 2;
        });
    cl.setExecutionExceptionHandler(
        (ex, cmd, parseResult) -> {
          if (ex instanceof IllegalArgumentException || ex instanceof UncheckedIOException) {
            cmd.getErr().println(NAME + ": " + ex.getMessage());
            cmd.getErr().flush();
            return ex instanceof IllegalArgumentException ? 2 : 1;
          }
          throw ex;
        });
    return cl;
  }
}
