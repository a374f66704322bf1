package io.aryl.sim.cli;

import io.aryl.core.ArylPolicy;
import io.aryl.sim.engine.PolicyResult;
import io.aryl.sim.engine.PolicySpec;
import io.aryl.sim.engine.Scenario;
import io.aryl.sim.report.Plots;
import io.aryl.sim.report.ReportJson;
import io.aryl.sim.report.ResultsTable;
import io.aryl.sim.report.TimeSeriesCsv;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code aryl-sim}: runs policies on a trace and writes the results table, report.json, CSVs and
 * plots.
 */
@Command(
    name = "aryl-sim",
    mixinStandardHelpOptions = true,
    version = "aryl-sim 0.1.0",
    subcommands = {
      SweepCommand.class,
      BenchCommand.class,
      SummarizeCommand.class,
      TenantsCommand.class
    },
    description = {
      "Simulates GPU clusters running the unchanged aryl-core decisions on public traces, one run per policy, "
          + "and reports them side by side: a results table on stdout; report.json, CSV time series and PNG plots "
          + "in --out. With no arguments it runs the bundled slice (7 days of ITP cluster04 with ServeGen m-small) "
          + "under the default policies. --list-policies names every policy.",
      ""
    })
public final class SimCli implements Callable<Integer> {
  static final String DEFAULT_POLICIES =
      "baseline,loan-only,elastic-only,"
          + ArylPolicy.Name.ARYL
          + ","
          + ArylPolicy.Name.ARYL_PLUS
          + ",yarn-nonexclusive,optimus,tiresias,afs,goodput";

  @Mixin ScenarioOptions scenario;

  @Option(
      names = "--policies",
      defaultValue = DEFAULT_POLICIES,
      split = ",",
      paramLabel = "P,...",
      description = "Policies to run, in report order. Default: ${DEFAULT-VALUE}.")
  List<String> policies;

  @Option(
      names = "--out",
      defaultValue = "target/aryl-sim",
      paramLabel = "DIR",
      description = "Where report.json, the CSVs and the plots go. Default: ${DEFAULT-VALUE}.")
  Path out;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description =
          "Policies simulated at once (results do not depend on it). Default: the number of cores.")
  Integer threads;

  @Option(names = "--no-plots", description = "Skip the PNG plots.")
  boolean noPlots;

  @Option(names = "--list-policies", description = "List the policies and exit.")
  boolean listPolicies;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    if (listPolicies) {
      for (PolicySpec p : PolicySpec.all()) {
        stdout.printf("%-26s %s%n", p.name(), p.description());
      }
      return 0;
    }
    List<PolicySpec> chosen = InputSpecs.policies("--policies", policies);
    Scenario s = scenario.toScenario();
    List<PolicyResult> results = runWithProgress(s, chosen, threads);
    Files.createDirectories(out);
    ReportJson.write(out.resolve("report.json"), s.describe(), results);
    TimeSeriesCsv.write(out, results);
    if (!noPlots) {
      Plots.write(out, results);
    }
    stdout.printf(
        "%s, %d training + %d inference servers x %d GPUs (training pool = %.2fx the mean demand of %.0f GPUs)%n",
        s.traceName(),
        s.cfg().trainingServers(),
        s.cfg().inferenceServers(),
        s.cfg().gpusPerServer(),
        s.cfg().trainingGpus() / Math.max(1e-9, s.meanDemandGpus()),
        s.meanDemandGpus());
    stdout.print(ResultsTable.format(results, "baseline"));
    stdout.printf("wrote %s%n", out.resolve("report.json"));
    stdout.flush();
    return 0;
  }

  static List<PolicyResult> runWithProgress(Scenario s, List<PolicySpec> chosen, Integer threads)
      throws InterruptedException {
    ProgressBar bar =
        new ProgressBar(
            System.err, chosen.stream().map(PolicySpec::name).toList(), ProgressBar.onATerminal());
    int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    List<PolicyResult> results = s.runAll(chosen, n, bar::update);
    bar.done();
    return results;
  }

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(commandLine().execute(args));
  }

  /** The command line, with errors in the user's input reported as one line, not a stack trace. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new SimCli());
    cl.setExecutionExceptionHandler(
        (ex, cmd, parseResult) -> {
          if (ex instanceof IllegalArgumentException) {
            cmd.getErr().println("aryl-sim: " + ex.getMessage());
            cmd.getErr().flush();
            return 2;
          }
          throw ex;
        });
    return cl;
  }
}
