package io.aryl.sim.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.aryl.core.ArylPolicy;
import io.aryl.sim.engine.Metrics;
import io.aryl.sim.engine.PolicyResult;
import io.aryl.sim.engine.PolicySpec;
import io.aryl.sim.engine.Scenario;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code aryl-sim sweep}: the same scenario across prediction errors and elastic fractions. */
@Command(
    name = "sweep",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the scenario for every (prediction error, elastic fraction) pair and writes sweep.json and sweep.csv:",
      "how the policies' results hold as predictions get worse and as fewer or more jobs are elastic."
    })
final class SweepCommand implements Callable<Integer> {
  @Mixin ScenarioOptions scenario;

  @Option(
      names = "--policies",
      defaultValue = "baseline," + ArylPolicy.Name.ARYL,
      split = ",",
      paramLabel = "P,...",
      description = "Policies to run at every point. Default: ${DEFAULT-VALUE}.")
  List<String> policies;

  @Option(
      names = "--errors",
      defaultValue = "0,0.2,0.4,0.6",
      split = ",",
      paramLabel = "E,...",
      description = "Prediction errors. Default: ${DEFAULT-VALUE}.")
  List<Double> errors;

  @Option(
      names = "--fractions",
      defaultValue = "0,0.25,0.5,0.75,1",
      split = ",",
      paramLabel = "F,...",
      description = "Elastic fractions. Default: ${DEFAULT-VALUE}.")
  List<Double> fractions;

  @Option(
      names = "--out",
      defaultValue = "target/aryl-sim-sweep",
      paramLabel = "DIR",
      description = "Where sweep.json and sweep.csv go. Default: ${DEFAULT-VALUE}.")
  Path out;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "Policies simulated at once. Default: cores.")
  Integer threads;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    List<PolicySpec> chosen = InputSpecs.policies("--policies", policies);
    Scenario base = scenario.toScenario();
    List<Map<String, Object>> rows = new ArrayList<>();
    StringBuilder csv =
        new StringBuilder(
            "prediction_error,elastic_fraction,policy,avg_queue_s,avg_jct_s,gpu_util,"
                + "preemptions,lost_gpu_hours\n");
    stdout.printf(
        "%-8s %-8s %-20s %12s %12s %8s%n",
        "error", "elastic", "policy", "avg queue h", "avg JCT h", "util %");
    for (double e : errors) {
      for (double f : fractions) {
        Scenario s =
            new Scenario(
                base.traceName(),
                base.jobs(),
                base.curve(),
                base.cfg(),
                base.windowStartS(),
                base.windowEndS(),
                base.warmupS(),
                base.curveOffsetS(),
                f,
                e,
                base.seed());
        for (PolicyResult r : SimCli.runWithProgress(s, chosen, threads)) {
          Map<String, Object> m = Metrics.of(r);
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("prediction_error", e);
          row.put("elastic_fraction", f);
          row.put("policy", r.policy());
          row.putAll(m);
          rows.add(row);
          csv.append(
              String.format(
                  "%s,%s,%s,%.1f,%.1f,%.4f,%s,%.2f%n",
                  e,
                  f,
                  r.policy(),
                  (double) m.get("avg_queue_s"),
                  (double) m.get("avg_jct_s"),
                  (double) m.get("gpu_util"),
                  m.get("preemptions"),
                  (double) m.get("lost_gpu_hours")));
          stdout.printf(
              "%-8.2f %-8.2f %-20s %12.2f %12.2f %8.1f%n",
              e,
              f,
              r.policy(),
              (double) m.get("avg_queue_s") / 3600,
              (double) m.get("avg_jct_s") / 3600,
              100 * (double) m.get("gpu_util"));
          stdout.flush();
        }
      }
    }
    Files.createDirectories(out);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("config", base.describe());
    doc.put("points", rows);
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(out.resolve("sweep.json").toFile(), doc);
    Files.writeString(out.resolve("sweep.csv"), csv);
    stdout.printf("wrote %s%n", out.resolve("sweep.json"));
    return 0;
  }
}
