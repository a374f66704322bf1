package io.aryl.serve;

import io.aryl.api.ArylJson;
import io.aryl.serve.core.OptionCheck;
import io.aryl.serve.core.ScalingSettings;
import io.aryl.serve.loadgen.Arrivals;
import io.aryl.serve.loadgen.LoadGenerator;
import io.aryl.serve.loadgen.LoadSummary;
import io.aryl.serve.loadgen.RateCurve;
import io.aryl.serve.loadgen.RequestRecord;
import io.aryl.sim.trace.ServeGenTrace;
import io.aryl.yarnapp.ApplicationIdArgument;
import io.aryl.yarnapp.ClientCommandLine;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The client: {@code yarn jar aryl-serve-<version>.jar [-D key=value]... serve|status|kill|loadgen
 * ...} (the jar's Main-Class). Exit status: 0 done; 1 an error (what the ResourceManager, a file
 * system or the service said, in its words), or a load run with failed requests; 2 bad arguments
 * (nothing runs), each refusal naming the option and the value, or a service the ResourceManager
 * refused (its reason in one line; the staged files are deleted).
 */
@Command(
    name = "aryl-serve",
    mixinStandardHelpOptions = true,
    version = "aryl-serve",
    description = "An inference service on YARN's inference pool, and a load generator for it.",
    subcommands = {
      Main.ServeCommand.class,
      Main.StatusCommand.class,
      Main.KillCommand.class,
      Main.LoadGenCommand.class
    })
public final class Main implements Callable<Integer> {
  private final Configuration conf;
  private final PrintStream out;

  Main(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    System.exit(run(new YarnConfiguration(), System.out, System.err, args));
  }

  /**
   * Runs the client with this configuration; generic options (-D, -conf) come before the
   * sub-command, never after {@code --} (the replica command's own).
   */
  public static int run(Configuration conf, PrintStream out, PrintStream err, String... args)
      throws Exception {
    Configuration c = new YarnConfiguration(conf);
    String[] rest = ClientCommandLine.withoutGenericOptions(c, args);
    // A service not running, or whose jar cannot be found, is told as the ResourceManager's
    // refusals are.
    return ClientCommandLine.execute(
        new Main(c, out), out, err, e -> e instanceof IllegalStateException, rest);
  }

  @Override
  public Integer call() {
    CommandLine.usage(this, out);
    return 2;
  }

  @Command(
      name = "serve",
      sortOptions = false,
      description = "Start an inference service: an ApplicationMaster that scales its replicas.",
      footer =
          "%nExample:%n  yarn jar aryl-serve.jar serve --replicas-min 1 --replicas-max 4 --gpus 1 \\%n"
              + "    --queue inference --target-rps-per-replica 20 --python /usr/bin/python3%n"
              + "  (no command: each replica runs the bundled serve.py; the port is $"
              + ServeKeys.PORT_ENV
              + ")")
  static final class ServeCommand implements Callable<Integer> {
    @ParentCommand Main main;
    @Spec CommandSpec commandSpec;

    @Option(names = "--name", defaultValue = "aryl-serve", description = "Application name.")
    String name;

    @Option(names = "--queue", defaultValue = "inference", description = "YARN leaf queue.")
    String queue;

    @Option(
        names = "--node-label",
        description = "Partition of the replicas (default: the queue's default label).")
    String nodeLabel;

    @Option(names = "--replicas-min", defaultValue = "1", description = "Fewest replicas.")
    int replicasMin;

    @Option(names = "--replicas-max", description = "Most replicas (default: --replicas-min).")
    Integer replicasMax;

    @Option(names = "--gpus", defaultValue = "1", description = "GPUs per replica.")
    int gpus;

    @Option(names = "--memory-mb", defaultValue = "1024", description = "Memory per replica, MB.")
    int memoryMb;

    @Option(names = "--vcores", defaultValue = "1", description = "Virtual cores per replica.")
    int vcores;

    @Option(
        names = "--target-rps-per-replica",
        required = true,
        description = "Requests per second one replica is meant to carry.")
    double targetRps;

    @Option(
        names = "--window-ms",
        defaultValue = "" + ScalingSettings.WINDOW_MS_DEFAULT,
        description = "Window the request rate is measured over.")
    long windowMs;

    @Option(
        names = "--scale-down-after-ms",
        defaultValue = "" + ScalingSettings.SCALE_DOWN_AFTER_MS_DEFAULT,
        description = "How long the rate must want fewer replicas before the service shrinks.")
    long scaleDownAfterMs;

    @Option(
        names = "--drain-ms",
        defaultValue = "" + ScalingSettings.DRAIN_MS_DEFAULT,
        description = "How long a replica out of the endpoints keeps running (requests finish).")
    long drainMs;

    @Option(
        names = "--max-replica-failures",
        defaultValue = "" + ScalingSettings.MAX_REPLICA_FAILURES_DEFAULT,
        description = "Replicas that may fail before serving; one more fails the service.")
    int maxReplicaFailures;

    @Option(
        names = "--port-range",
        defaultValue = ScalingSettings.PORT_FROM_DEFAULT + "-" + ScalingSettings.PORT_TO_DEFAULT,
        description = "Ports the AM gives replicas (\\$" + ServeKeys.PORT_ENV + "), FROM-TO.")
    String portRange;

    @Option(
        names = "--poll-ms",
        defaultValue = "1000",
        description = "How often replicas are polled.")
    long pollMs;

    @Option(
        names = "--health-path",
        defaultValue = "/health",
        description = "Replica health check.")
    String healthPath;

    @Option(
        names = "--metrics-path",
        defaultValue = "/metrics",
        description = "Replica metrics (Prometheus text).")
    String metricsPath;

    @Option(
        names = "--requests-metric",
        defaultValue = "aryl_serve_requests_total",
        description = "Counter of answered requests in the metrics.")
    String requestsMetric;

    @Option(
        names = "--python",
        defaultValue = "python3",
        description = "Python with PyTorch for the bundled serve.py (no command given).")
    String python;

    @Option(names = "--am-memory-mb", defaultValue = "512", description = "AM container memory.")
    int amMemoryMb;

    @Option(names = "--wait", description = "Wait until the service runs; print its status URL.")
    boolean await;

    @Parameters(
        paramLabel = "COMMAND",
        arity = "0..*",
        description =
            "After --: the replica command (default: PYTHON serve.py). It must serve HTTP on"
                + " \\$"
                + ServeKeys.PORT_ENV
                + ".")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      boolean defaultReplica = command.isEmpty();
      String line =
          defaultReplica
              ? "exec " + quote(python) + " " + ServeKeys.DEFAULT_REPLICA_FILE
              : command.size() == 1 ? command.get(0) : "exec " + quoteAll(command);
      ServeSpec spec;
      try (ServeSubmitter s = new ServeSubmitter(main.conf)) {
        try {
          ScalingSettings scaling =
              new ScalingSettings(
                  replicasMin,
                  replicasMax == null ? replicasMin : replicasMax,
                  targetRps,
                  windowMs,
                  scaleDownAfterMs,
                  drainMs,
                  maxReplicaFailures,
                  portFrom(),
                  portTo());
          // Every option is checked before the ResourceManager is asked for the queue's label.
          spec =
              new ServeSpec(
                  name,
                  queue,
                  nodeLabel == null ? "" : nodeLabel.trim(),
                  scaling,
                  gpus,
                  memoryMb,
                  vcores,
                  pollMs,
                  healthPath,
                  metricsPath,
                  requestsMetric,
                  line,
                  List.of(),
                  "",
                  amMemoryMb);
          if (nodeLabel == null) {
            spec = spec.withNodeLabel(s.defaultLabel(queue));
          }
        } catch (IllegalArgumentException e) {
          throw new ParameterException(commandSpec.commandLine(), e.getMessage());
        }
        ApplicationId id = s.submit(spec, defaultReplica);
        main.out.println("submitted " + id);
        if (await) {
          return s.awaitRunning(id, main.out) ? 0 : 1;
        }
        return 0;
      }
    }

    private int portFrom() {
      return portPart(0);
    }

    private int portTo() {
      return portPart(1);
    }

    private int portPart(int i) {
      int dash = portRange.indexOf('-');
      try {
        if (dash > 0 && portRange.indexOf('-', dash + 1) < 0) {
          String part = i == 0 ? portRange.substring(0, dash) : portRange.substring(dash + 1);
          return Integer.parseInt(part.trim());
        }
      } catch (NumberFormatException e) {
        // refused below
      }
      throw new ParameterException(
          commandSpec.commandLine(), "--port-range must be FROM-TO, was '" + portRange + "'");
    }
  }

  /** A word quoted for bash. */
  static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  static String quoteAll(List<String> words) {
    return String.join(" ", words.stream().map(Main::quote).toList());
  }

  @Command(name = "status", description = "Print a running service's status (JSON).")
  static final class StatusCommand implements Callable<Integer> {
    @ParentCommand Main main;
    @Spec CommandSpec commandSpec;

    @Parameters(paramLabel = "APPLICATION_ID")
    String id;

    @Override
    public Integer call() throws Exception {
      try (ServeSubmitter s = new ServeSubmitter(main.conf)) {
        String url = s.statusUrl(ApplicationIdArgument.of(commandSpec, id));
        main.out.println(new LoadGenerator(url, "/", "", Duration.ofSeconds(5)).statusText());
        return 0;
      }
    }
  }

  @Command(name = "kill", description = "Stop a service (kills its application).")
  static final class KillCommand implements Callable<Integer> {
    @ParentCommand Main main;
    @Spec CommandSpec commandSpec;

    @Parameters(paramLabel = "APPLICATION_ID")
    String id;

    @Override
    public Integer call() throws Exception {
      ApplicationId appId = ApplicationIdArgument.of(commandSpec, id);
      try (ServeSubmitter s = new ServeSubmitter(main.conf)) {
        s.kill(appId);
        main.out.println("killed " + appId);
        return 0;
      }
    }
  }

  @Command(
      name = "loadgen",
      sortOptions = false,
      description =
          "Replay a ServeGen request-rate curve as open-loop Poisson arrivals against a service.",
      footer =
          "%nExample:%n  yarn jar aryl-serve.jar loadgen --app application_1_0001 \\%n"
              + "    --trace servegen_aggregate_rate_10min.csv --model m-large --duration-s 7200 \\%n"
              + "    --compress 60 --rate-scale 0.1 --slo-ms 200 --out requests.jsonl")
  static final class LoadGenCommand implements Callable<Integer> {
    @ParentCommand Main main;
    @Spec CommandSpec commandSpec;

    @Option(names = "--app", description = "The service's application id (its status is found).")
    String app;

    @Option(names = "--status-url", description = "The service's status URL, instead of --app.")
    String statusUrl;

    @Option(names = "--trace", required = true, description = "ServeGen aggregate rate CSV.")
    Path trace;

    @Option(names = "--model", defaultValue = "m-large", description = "The trace's model.")
    String model;

    @Option(names = "--from-s", defaultValue = "0", description = "Where in the trace to start, s.")
    double fromS;

    @Option(
        names = "--duration-s",
        defaultValue = "0",
        description = "Trace seconds to play (0: to the end).")
    double durationS;

    @Option(
        names = "--compress",
        defaultValue = "60",
        description = "Trace seconds played per second (60: a trace minute a second).")
    double compress;

    @Option(
        names = "--rate-scale",
        defaultValue = "1",
        description = "Factor applied to the trace's rates.")
    double rateScale;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the arrivals.")
    long seed;

    @Option(names = "--path", defaultValue = "/predict", description = "Request path on a replica.")
    String path;

    @Option(names = "--body", defaultValue = "", description = "Request body (JSON).")
    String body;

    @Option(names = "--timeout-ms", defaultValue = "5000", description = "Request timeout.")
    long timeoutMs;

    @Option(names = "--slo-ms", defaultValue = "500", description = "Latency objective.")
    double sloMs;

    @Option(
        names = "--out",
        defaultValue = "requests.jsonl",
        description = "Every request as a JSON line.")
    Path out;

    @Option(names = "--summary", description = "The summary as JSON, also.")
    Path summary;

    @Override
    public Integer call() throws Exception {
      if ((app == null) == (statusUrl == null)) {
        throw new ParameterException(
            commandSpec.commandLine(), "give one of --app or --status-url");
      }
      RateCurve curve;
      try {
        OptionCheck.atLeast("--timeout-ms", timeoutMs, 1);
        if (!(sloMs > 0)) {
          throw new IllegalArgumentException("--slo-ms must be > 0, was " + sloMs);
        }
        curve =
            RateCurve.of(ServeGenTrace.read(trace, model), fromS, durationS, compress, rateScale);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(commandSpec.commandLine(), e.getMessage());
      }
      String url = statusUrl;
      if (url == null) {
        try (ServeSubmitter s = new ServeSubmitter(main.conf)) {
          url = s.statusUrl(ApplicationIdArgument.of(commandSpec, app));
        }
      }
      double[] arrivals = Arrivals.times(curve, seed);
      main.out.printf(
          "playing %d steps of %.2f s (%.0f s), %d requests, to %s%n",
          curve.rps().length, curve.stepS(), curve.durationS(), arrivals.length, url);
      LoadGenerator gen = new LoadGenerator(url, path, body, Duration.ofMillis(timeoutMs));
      long start = System.nanoTime();
      List<RequestRecord> records = gen.run(arrivals, out);
      LoadSummary s = LoadSummary.of(records, sloMs, (System.nanoTime() - start) / 1e9);
      main.out.println(s.line());
      if (summary != null) {
        Files.writeString(summary, ArylJson.write(s) + "\n");
      }
      return s.failures() == 0 ? 0 : 1;
    }
  }
}
