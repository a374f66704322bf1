package io.aryl.sls;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Prints the {@code summary.json} of SLS runs side by side, one column per scheduler, and the ratio
 * of the first to the second: {@code SlsCompare DIR_A DIR_B}.
 */
public final class SlsCompare {
  private record Row(String name, String format, ToDoubleFunction<SlsSummary> value) {}

  private static final List<Row> ROWS =
      List.of(
          new Row("nodes", "%.0f", SlsSummary::nodes),
          new Row("GPUs", "%.0f", SlsSummary::gpus),
          new Row("jobs finished", "%.0f", SlsSummary::finished),
          new Row("jobs submitted", "%.0f", SlsSummary::jobs),
          new Row("elastic jobs that grew", "%.0f", SlsSummary::elasticGrew),
          new Row("elastic jobs", "%.0f", SlsSummary::elastic),
          new Row("workers given back", "%.0f", SlsSummary::workersGivenBack),
          new Row("submission to AM running p50 (s)", "%.1f", SlsSummary::amWaitP50S),
          new Row("submission to AM running p99 (s)", "%.1f", SlsSummary::amWaitP99S),
          new Row("queue time p50 (s)", "%.1f", SlsSummary::queueP50S),
          new Row("queue time p99 (s)", "%.1f", SlsSummary::queueP99S),
          new Row("mean JCT (s)", "%.1f", SlsSummary::jctMeanS),
          new Row("makespan (s)", "%.1f", SlsSummary::makespanS),
          new Row("GPU utilisation (%)", "%.1f", s -> 100 * s.gpuUtilisation()),
          new Row("containers allocated", "%.0f", SlsSummary::containersAllocated),
          new Row("allocation rate (containers/s)", "%.2f", SlsSummary::allocationRatePerS),
          new Row(
              "peak allocation rate, 10 s (containers/s)",
              "%.2f",
              SlsSummary::peakAllocationRatePerS),
          new Row("planning rounds", "%.0f", SlsSummary::rounds),
          new Row("planning round p50 (ms)", "%.2f", SlsSummary::roundP50Ms),
          new Row("planning round p99 (ms)", "%.2f", SlsSummary::roundP99Ms),
          new Row("planning round max (ms)", "%.2f", SlsSummary::roundMaxMs),
          new Row("planning round CPU p50 (ms)", "%.2f", SlsSummary::roundCpuP50Ms),
          new Row("planning round CPU p99 (ms)", "%.2f", SlsSummary::roundCpuP99Ms),
          new Row("planning round CPU max (ms)", "%.2f", SlsSummary::roundCpuMaxMs),
          new Row("allocate call p50 (ms, SLS)", "%.3f", SlsSummary::allocateP50Ms),
          new Row("allocate call p99 (ms, SLS)", "%.3f", SlsSummary::allocateP99Ms),
          new Row("NODE_UPDATE p50 (ms, SLS)", "%.3f", SlsSummary::nodeUpdateP50Ms),
          new Row("NODE_UPDATE p99 (ms, SLS)", "%.3f", SlsSummary::nodeUpdateP99Ms),
          new Row("heap peak (MB)", "%.0f", SlsSummary::heapPeakMb),
          new Row("wall time (s)", "%.0f", SlsSummary::wallS));

  private SlsCompare() {}

  static SlsSummary read(Path dir) throws IOException {
    Path file = dir.resolve("summary.json");
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("no summary.json in " + dir + ": did its run finish?");
    }
    return new ObjectMapper().readValue(file.toFile(), SlsSummary.class);
  }

  /**
   * The table, as Markdown: a row per measure, a column per run, and the first run's value over the
   * second's.
   */
  static String table(List<SlsSummary> runs) {
    StringBuilder out = new StringBuilder("| measure |");
    runs.forEach(r -> out.append(' ').append(r.scheduler()).append(" |"));
    boolean ratio = runs.size() == 2;
    out.append(
        ratio ? " " + runs.get(0).scheduler() + " / " + runs.get(1).scheduler() + " |\n" : "\n");
    out.append("|---|").append("---:|".repeat(runs.size() + (ratio ? 1 : 0))).append('\n');
    for (Row row : ROWS) {
      out.append("| ").append(row.name()).append(" |");
      List<Double> values = new ArrayList<>();
      for (SlsSummary r : runs) {
        double v = row.value().applyAsDouble(r);
        values.add(v);
        out.append(' ').append(String.format(Locale.ROOT, row.format(), v)).append(" |");
      }
      if (ratio) {
        out.append(
            values.get(1) == 0
                ? " - |"
                : String.format(Locale.ROOT, " %.2f |", values.get(0) / values.get(1)));
      }
      out.append('\n');
    }
    return out.toString();
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: SlsCompare RUN_DIR [RUN_DIR...]");
      System.exit(2);
    }
    List<SlsSummary> runs = new ArrayList<>();
    try {
      for (String dir : args) {
        runs.add(read(Path.of(dir)));
      }
    } catch (IllegalArgumentException e) {
      System.err.println("aryl-sls: " + e.getMessage());
      System.exit(2);
    }
    System.out.print(table(runs));
  }
}
