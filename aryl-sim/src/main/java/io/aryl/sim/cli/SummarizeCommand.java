package io.aryl.sim.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.aryl.sim.report.ReportJson;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code aryl-sim summarize}: report.json files as Markdown tables, for the documentation. */
@Command(
    name = "summarize",
    mixinStandardHelpOptions = true,
    description =
        "Prints one Markdown table per report.json (or directory holding one): each policy's queuing, JCT "
            + "against the baseline and against the bound, utilization, preemptions and starved jobs.")
final class SummarizeCommand implements Callable<Integer> {
  @Parameters(
      paramLabel = "REPORT",
      arity = "1..*",
      description = "report.json files or directories holding one.")
  List<Path> reports;

  @Option(
      names = "--compare",
      description =
          "One table for runs of one slice with different settings: a row per report and policy, named by "
              + "the report's directory and the policy; queuing, JCT against both bounds, and the tail.")
  boolean compare;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    if (compare) {
      out.print(COMPARE_HEADER);
    }
    for (Path p : reports) {
      Path file = Files.isDirectory(p) ? p.resolve("report.json") : p;
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException("REPORT names no report.json: '" + p + "'");
      }
      JsonNode report = readReport(file);
      if (compare) {
        Path dir = file.toAbsolutePath().getParent();
        out.print(compareRows(dir.getFileName().toString(), report));
      } else {
        out.print(table(report));
        out.println();
      }
    }
    out.flush();
    return 0;
  }

  /**
   * The report in {@code file}, refused with the file's name when it is not JSON or holds no
   * policies.
   */
  private static JsonNode readReport(Path file) throws IOException {
    JsonNode report;
    try {
      report = ReportJson.read(file);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "REPORT is not JSON: '"
              + file
              + "' (line "
              + e.getLocation().getLineNr()
              + ", column "
              + e.getLocation().getColumnNr()
              + ")");
    }
    if (!report.path("policies").isObject()) {
      throw new IllegalArgumentException(
          "REPORT has no \"policies\" object, so is no aryl-sim report: '" + file + "'");
    }
    return report;
  }

  static final String COMPARE_HEADER =
      "| run | avg queue (h) | avg JCT (h) | JCT / bound | JCT / capacity bound "
          + "| p95 queue (h) | p99 queue (h) | max queue (h) | starved | worst slowdown |\n"
          + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";

  /**
   * A row of the {@code --compare} table for each policy of {@code report}, named {@code "name:
   * policy"}.
   */
  static String compareRows(String name, JsonNode report) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, JsonNode> e : report.path("policies").properties()) {
      JsonNode m = e.getValue();
      sb.append(
          String.format(
              "| %s: %s | %.2f | %.2f | %.2f | %s | %.1f | %.1f | %.1f | %d | %.0f |%n",
              name,
              e.getKey(),
              m.path("avg_queue_s").asDouble() / 3600,
              m.path("avg_jct_s").asDouble() / 3600,
              m.path("jct_vs_bound").asDouble(),
              capacityRatio(m),
              m.path("p95_queue_s").asDouble() / 3600,
              m.path("p99_queue_s").asDouble() / 3600,
              m.path("max_queue_s").asDouble() / 3600,
              m.path("starved_jobs").asLong(),
              m.path("worst_slowdown").asDouble()));
    }
    return sb.toString();
  }

  // Reports written before the capacity-aware bound have no such field.
  private static String capacityRatio(JsonNode m) {
    return m.has("jct_vs_capacity_bound")
        ? String.format("%.2f", m.path("jct_vs_capacity_bound").asDouble())
        : "-";
  }

  static String table(JsonNode report) {
    JsonNode cfg = report.path("config");
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            "%s: %d jobs, %d + %d servers x %d GPUs (training = %.2fx mean demand of %.0f GPUs), "
                + "inference GPU speed %s, %s%% elastic, prediction error %s%%%n%n",
            cfg.path("trace").asText(),
            cfg.path("jobs_in_window").asLong(),
            cfg.path("training_servers").asInt(),
            cfg.path("inference_servers").asInt(),
            cfg.path("gpus_per_server").asInt(),
            cfg.path("training_gpus_vs_mean_demand").asDouble(),
            cfg.path("mean_demand_gpus").asDouble(),
            cfg.path("inference_gpu_speed").asText(),
            Math.round(100 * cfg.path("elastic_fraction").asDouble()),
            Math.round(100 * cfg.path("prediction_error").asDouble())));
    sb.append(
        "| policy | avg queue (h) | queue removed | avg JCT (h) | JCT vs baseline | JCT / bound "
            + "| JCT / capacity bound | GPU util | GPU-s per work | preemptions | lost GPU-h | p95 queue (h) "
            + "| p99 queue (h) | max queue (h) | starved | worst slowdown |\n");
    sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    JsonNode policies = report.path("policies");
    double baseJct = policies.path("baseline").path("avg_jct_s").asDouble(Double.NaN);
    for (Map.Entry<String, JsonNode> e : policies.properties()) {
      JsonNode m = e.getValue();
      double jct = m.path("avg_jct_s").asDouble();
      sb.append(
          String.format(
              "| %s | %.2f | %s | %.2f | %s | %.2f | %s | %.1f%% | %.2f | %d | %.1f | %.1f | %.1f "
                  + "| %.1f | %d | %.0f |%n",
              e.getKey(),
              m.path("avg_queue_s").asDouble() / 3600,
              m.has("queue_removed_pct")
                  ? String.format("%.0f%%", m.path("queue_removed_pct").asDouble())
                  : "-",
              jct / 3600,
              Double.isNaN(baseJct) ? "-" : String.format("%.2fx", baseJct / jct),
              m.path("jct_vs_bound").asDouble(),
              capacityRatio(m),
              100 * m.path("gpu_util").asDouble(),
              m.path("gpu_s_per_work").asDouble(),
              m.path("preemptions").asLong(),
              m.path("lost_gpu_hours").asDouble(),
              m.path("p95_queue_s").asDouble() / 3600,
              m.path("p99_queue_s").asDouble() / 3600,
              m.path("max_queue_s").asDouble() / 3600,
              m.path("starved_jobs").asLong(),
              m.path("worst_slowdown").asDouble()));
    }
    return sb.toString();
  }
}
