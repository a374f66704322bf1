package io.aryl.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.aryl.sim.trace.BundledTraces;
import io.aryl.sim.trace.InferenceCurve;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bin/aryl demo}: an embedded ZooKeeper and a MiniYARNCluster with ArylScheduler, the loan
 * controller replaying a compressed day of the bundled inference curve, and a stream of elastic and
 * inelastic jobs sampled from the bundled training trace (real container processes); then the same
 * stream with Aryl off; then both side by side.
 */
@Command(
    name = "aryl demo",
    mixinStandardHelpOptions = true,
    version = "aryl demo",
    sortOptions = false,
    description = {
      "Runs Aryl on a real YARN in this JVM (MiniYARNCluster, fake GPUs, real container processes), then the same "
          + "job stream with Aryl off (or with the runs --runs names), and prints them side by side.",
      "A day of the ServeGen m-small inference curve is compressed into each run; jobs come from a day of the ITP "
          + "cluster04 trace, their run times compressed alike (clamped to 10 s .. a third of the run)."
    })
public final class ArylDemo implements Callable<Integer> {
  private static final double DAY_S = 86_400;

  @Spec CommandSpec spec;

  @Option(
      names = "--duration",
      paramLabel = "TIME",
      defaultValue = "3m",
      description =
          "Length of each run (e.g. 3m, 90s): a day of inference demand is replayed in it; jobs arrive "
              + "in its first half (default: ${DEFAULT-VALUE}).")
  String duration;

  @Option(
      names = "--nodes",
      paramLabel = "I+T",
      defaultValue = "4+4",
      description = "Inference + training nodes (default: ${DEFAULT-VALUE}).")
  String nodes;

  @Option(
      names = "--gpus-per-node",
      paramLabel = "N",
      defaultValue = "8",
      description = "Fake GPUs per node (default: ${DEFAULT-VALUE}).")
  int gpusPerNode;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write the summary (and every job's outcome) " + "as JSON to FILE.")
  File json;

  @Option(
      names = "--web-port",
      paramLabel = "PORT",
      defaultValue = "8188",
      description =
          "Local port of the ResourceManager web UI while a run goes; 0: any free port "
              + "(default: ${DEFAULT-VALUE}).")
  int webPort;

  @Option(
      names = "--runs",
      paramLabel = "WHICH",
      description =
          "Runs on the same job stream, in this order: a comma-separated list of aryl+ (the speed-aware "
              + "policy), aryl (the paper's policy) and off (the stock Capacity Scheduler, no loans); both is aryl,off, "
              + "all is aryl+,aryl,off (default: both; all with --inference-gpu-speed below 1).")
  String runs;

  @Option(
      names = "--inference-gpu-speed",
      paramLabel = "S",
      defaultValue = "1.0",
      description =
          "Training speed of the inference nodes' GPUs against the training nodes', 0 < S <= 1 (to a "
              + "thousandth). Below 1 the scheduler is told the inference nodes are t4 GPUs at speed S and the training "
              + "nodes a100 at 1, and workers on a slow node make their job count its work down that much slower "
              + "(default: ${DEFAULT-VALUE}).")
  String inferenceGpuSpeed;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Seeds the job sample (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--elastic-fraction",
      paramLabel = "F",
      defaultValue = "0.5",
      description = "Share of elastic jobs, 0..1 (default: ${DEFAULT-VALUE}).")
  double elasticFraction;

  @Option(
      names = "--load",
      paramLabel = "L",
      defaultValue = "1.2",
      description =
          "Offered GPU-seconds over the training pool's GPU-seconds while jobs arrive; run times are "
              + "stretched when --max-jobs jobs would offer less (default: ${DEFAULT-VALUE}).")
  double load;

  @Option(
      names = "--max-jobs",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Most jobs in the stream; each runs a real ApplicationMaster JVM (default: one per 9 s of "
              + "--duration, at most 30).")
  int maxJobs;

  @Option(
      names = "--day",
      paramLabel = "D",
      defaultValue = "0",
      description = "Day of the traces to replay, 0..6 (default: ${DEFAULT-VALUE}).")
  int day;

  @Option(
      names = "--python",
      paramLabel = "PYTHON",
      defaultValue = "/usr/bin/python3",
      description =
          "The Python that runs the inference service's replicas (serve.py); it must import torch "
              + "(default: ${DEFAULT-VALUE}, Debian's python3-torch).")
  String python;

  @Option(
      names = "--slo-ms",
      paramLabel = "MS",
      defaultValue = "500",
      description =
          "Latency objective of the inference requests, milliseconds (default: ${DEFAULT-VALUE}).")
  double sloMs;

  @Option(
      names = "--progress-every",
      paramLabel = "TIME",
      defaultValue = "5s",
      description = "Interval of the progress lines (default: ${DEFAULT-VALUE}).")
  String progressEvery;

  @Option(
      names = "--log",
      paramLabel = "FILE",
      description =
          "Log file of the daemons (default: aryl-demo.log in the system's temporary directory).")
  File log;

  private final PrintStream out;
  private volatile boolean stopping;
  private final CountDownLatch finished = new CountDownLatch(1);

  ArylDemo(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] args) {
    System.exit(run(System.out, System.err, args));
  }

  /** Runs the demo; the exit status: 0 done, 1 failed, 2 bad arguments, 130 interrupted. */
  public static int run(PrintStream out, PrintStream err, String... args) {
    CommandLine cli = new CommandLine(new ArylDemo(out));
    cli.setOut(new java.io.PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
    return cli.execute(args);
  }

  @Override
  public Integer call() throws Exception {
    long durationMs;
    long progressMs;
    DemoArgs.Nodes n;
    double speed;
    List<RunMode> modes;
    try {
      durationMs = DemoArgs.durationMs(duration);
      progressMs = DemoArgs.durationMs(progressEvery);
      n = DemoArgs.nodes(nodes);
      if (durationMs < 20_000) {
        throw new IllegalArgumentException("--duration must be at least 20s, was " + duration);
      }
      speed = DemoArgs.inferenceGpuSpeed(inferenceGpuSpeed);
      modes = DemoArgs.runs(runs != null ? runs : speed < 1 ? "all" : "both");
      if (gpusPerNode < 1 || gpusPerNode > 64) {
        throw new IllegalArgumentException("--gpus-per-node must be 1..64, was " + gpusPerNode);
      }
      if (day < 0 || day > 6) {
        throw new IllegalArgumentException("--day must be 0..6, was " + day);
      }
      if (!(sloMs > 0) || Double.isInfinite(sloMs)) {
        throw new IllegalArgumentException("--slo-ms must be a number > 0, was " + sloMs);
      }
      if (!new File(python).canExecute()) {
        throw new IllegalArgumentException(
            "--python must name an executable Python with torch, was " + python);
      }
      if (webPort < 0 || webPort > 65535) {
        throw new IllegalArgumentException("--web-port must be 0..65535, was " + webPort);
      }
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    int port = webPort == 0 ? Loans.freePort() : webPort;
    if (!portFree(port)) {
      out.println("port " + port + " is in use: pass --web-port PORT (or 0 for any free port)");
      return 1;
    }

    Path work = Files.createTempDirectory("aryl-demo-");
    File logFile =
        log != null ? log : new File(System.getProperty("java.io.tmpdir"), "aryl-demo.log");
    // Before the first Hadoop class logs: the daemons' log goes to a file, the console keeps the
    // demo's lines.
    System.setProperty("aryl.demo.log", logFile.getAbsolutePath());
    System.setProperty("log4j.configuration", "aryl-demo-log4j.properties");
    // Where MiniYARNCluster keeps its NodeManagers' directories (GenericTestUtils.getTestDir).
    System.setProperty("test.build.data", work.resolve("cluster").toString());
    Thread main = Thread.currentThread();
    Runnable onSignal =
        () -> {
          stopping = true;
          out.println();
          out.println(
              "stopping: killing the jobs, stopping the loan controller, the cluster and ZooKeeper...");
          out.flush();
          main.interrupt();
          try {
            if (!finished.await(60, TimeUnit.SECONDS)) {
              out.println("did not stop within 60 s; leaving " + work);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    // Before FileSystem's own hook (priority 10), so the cluster still has its file systems while
    // it stops.
    org.apache.hadoop.util.ShutdownHookManager.get()
        .addShutdownHook(onSignal, 100, 70, TimeUnit.SECONDS);
    try {
      return demo(n, speed, modes, durationMs, progressMs, port, work, logFile);
    } catch (InterruptedException e) {
      return 130;
    } finally {
      deleteTree(work);
      finished.countDown();
      if (!stopping) {
        org.apache.hadoop.util.ShutdownHookManager.get().removeShutdownHook(onSignal);
      }
    }
  }

  private int demo(
      DemoArgs.Nodes n,
      double speed,
      List<RunMode> modes,
      long durationMs,
      long progressMs,
      int port,
      Path work,
      File logFile)
      throws Exception {
    double compression = DAY_S / (durationMs / 1000.0);
    long arrivalMs = durationMs / 2;
    long maxRuntimeS = Math.max(1, durationMs / 3000);
    JobSampler.Settings sampling =
        new JobSampler.Settings(
            seed,
            BundledTraces.ITP_SLICE_START_S,
            day,
            arrivalMs,
            compression,
            Math.min(10, maxRuntimeS),
            maxRuntimeS,
            elasticFraction,
            gpusPerNode,
            n.training() * gpusPerNode,
            load,
            maxJobs > 0 ? maxJobs : (int) Math.max(2, Math.min(30, durationMs / 9_000)));
    List<DemoJob> jobs = JobSampler.sample(BundledTraces.itpSlice(), sampling);
    InferenceCurve curve = BundledTraces.servegenMSmall().bridgeGaps();
    int perDay = (int) Math.round(DAY_S / curve.windowS());
    double[] dayRates = Arrays.copyOfRange(curve.rates(), day * perDay, (day + 1) * perDay);

    long elastic = jobs.stream().filter(DemoJob::elastic).count();
    out.printf(
        Locale.ROOT,
        "Aryl demo: %d inference + %d training nodes x %d GPUs; %s per run, %d runs%n",
        n.inference(),
        n.training(),
        gpusPerNode,
        DemoRun.clock(durationMs),
        modes.size());
    out.println(
        "  runs: "
            + String.join(", ", modes.stream().map(RunMode::label).toList())
            + ", on the same job stream");
    out.printf(
        Locale.ROOT,
        "  inference: day %d of ServeGen %s (%.0f-%.0f rps), compressed %.0fx into each run%n",
        day,
        curve.model(),
        Arrays.stream(dayRates).min().orElse(0),
        Arrays.stream(dayRates).max().orElse(0),
        compression);
    out.printf(
        Locale.ROOT,
        "  training:  %d jobs (%d elastic, %d rigid) sampled from day %d of ITP cluster04 "
            + "(seed %d), arriving over %s; run times %d-%d s%n",
        jobs.size(),
        elastic,
        jobs.size() - elastic,
        day,
        seed,
        DemoRun.clock(arrivalMs),
        jobs.stream().mapToLong(DemoJob::runtimeS).min().orElse(0),
        jobs.stream().mapToLong(DemoJob::runtimeS).max().orElse(0));
    out.printf(
        Locale.ROOT,
        "  inference service: real serve.py replicas (%s, PyTorch on CPU), one per inference node, "
            + "%.0f requests/s each; the load generator plays the day's curve, objective %.0f ms%n",
        python,
        Inference.RPS_PER_REPLICA,
        sloMs);
    out.println(
        "  workers are real container processes: a sleep that checkpoints its progress (faster when wider)");
    if (speed < 1) {
      out.printf(
          Locale.ROOT,
          "  inference GPUs train at %s x the training GPUs' speed (t4 against a100): a job "
              + "runs at its slowest worker's pace%n",
          speed);
    }
    out.println("  daemon log: " + logFile.getAbsolutePath());

    List<RunSummary> results = new ArrayList<>();
    for (RunMode mode : modes) {
      if (stopping) {
        break;
      }
      File dir = work.resolve(mode.jsonKey()).toFile();
      DemoRun.Settings rs =
          new DemoRun.Settings(
              mode,
              dir,
              n.inference(),
              n.training(),
              gpusPerNode,
              port,
              durationMs,
              progressMs,
              dayRates,
              curve.windowS(),
              compression,
              speed,
              new Inference.Settings(python, sloMs, Math.max(3_000, durationMs / 20)));
      results.add(new DemoRun(rs, out, () -> stopping).run(jobs));
    }
    if (stopping) {
      return 130;
    }
    out.println();
    out.println(
        "Summary ("
            + jobs.size()
            + " jobs, "
            + DemoRun.clock(durationMs)
            + " per run, "
            + n.inference()
            + "+"
            + n.training()
            + " nodes x "
            + gpusPerNode
            + " GPUs"
            + (speed < 1 ? String.format(Locale.ROOT, ", inference GPUs at speed %s", speed) : "")
            + "):");
    out.println();
    out.print(SummaryTable.format(results));
    if (json != null) {
      writeJson(json, modes, results, jobs, n, speed, durationMs, compression);
      out.println("summary written to " + json);
    }
    return 0;
  }

  private void writeJson(
      File file,
      List<RunMode> modes,
      List<RunSummary> results,
      List<DemoJob> jobs,
      DemoArgs.Nodes n,
      double speed,
      long durationMs,
      double compression)
      throws IOException {
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("inferenceNodes", n.inference());
    config.put("trainingNodes", n.training());
    config.put("gpusPerNode", gpusPerNode);
    config.put("durationS", durationMs / 1000.0);
    config.put("compression", compression);
    config.put("seed", seed);
    config.put("day", day);
    config.put("elasticFraction", elasticFraction);
    config.put("load", load);
    config.put("inferenceGpuSpeed", speed);
    config.put("sloMs", sloMs);
    config.put("rpsPerReplica", Inference.RPS_PER_REPLICA);
    config.put("runs", modes.stream().map(RunMode::option).toList());
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("config", config);
    doc.put("jobs", jobs);
    Map<String, Object> runsOut = new LinkedHashMap<>();
    for (int i = 0; i < results.size(); i++) {
      runsOut.put(modes.get(i).jsonKey(), results.get(i));
    }
    doc.put("runs", runsOut);
    File parent = file.getAbsoluteFile().getParentFile();
    if (parent != null) {
      Files.createDirectories(parent.toPath());
    }
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file, doc);
  }

  private static boolean portFree(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress("localhost", port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temporary directory
    }
  }
}
