package io.aryl.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** The summary table: one row per metric, one column per run. */
public final class SummaryTable {
  private SummaryTable() {}

  /**
   * What the GPU rows mean, printed under the table: lending adds GPUs, so the in-use share alone
   * misleads.
   */
  static final String DEFINITIONS =
      """
      training work: GPU-hours allocated to training per hour of the run, i.e. GPUs busy with training on average
      GPUs lent: inference GPUs on loan to training, on average; they add to the GPUs training can use
      in use: training work over training's GPUs (own + lent); lending adds to both, so it can fall while more is done
      inference: every request the load generator sent on the day's curve; failed = errors, timeouts, none listed
      waited for a reclaim: replicas asked for while their node was on loan (ask to first answer, p50 / max)
      """;

  public static String format(List<RunSummary> runs) {
    List<String[]> rows = new ArrayList<>();
    List<String> head = new ArrayList<>(List.of(""));
    runs.forEach(r -> head.add(r.label()));
    rows.add(head.toArray(String[]::new));
    row(rows, runs, "jobs finished", r -> r.finished() + "/" + r.jobs());
    row(rows, runs, "avg queuing time", r -> bound(r) + secs(r.avgQueuingS()));
    row(rows, runs, "avg JCT", r -> bound(r) + secs(r.avgJctS()));
    row(rows, runs, "training work (GPUs busy, average)", r -> num(r.trainingGpusAverage()));
    row(rows, runs, "GPUs lent by inference (average)", r -> num(r.loanedGpusAverage()));
    row(rows, runs, "training GPUs in use (own + lent)", r -> pct(r.trainingUtilization()));
    row(rows, runs, "training GPU-hours used", r -> num(r.trainingGpuHours()));
    row(rows, runs, "loaned GPU-hours", r -> num(r.loanedGpuHours()));
    row(rows, runs, "reclaims", r -> Long.toString(r.reclaims()));
    row(rows, runs, "preemptions (containers killed)", r -> Long.toString(r.preemptedContainers()));
    row(rows, runs, "workers shrunk gracefully", r -> Long.toString(r.shrunkWorkers()));
    if (runs.stream().anyMatch(r -> r.inference() != null)) {
      double slo =
          runs.stream().filter(r -> r.inference() != null).findFirst().get().inference().sloMs();
      row(
          rows,
          runs,
          String.format(Locale.ROOT, "inference requests within %.0f ms", slo),
          r -> r.inference() == null ? "-" : share(r.inference().withinSlo()));
      row(
          rows,
          runs,
          "inference latency p99",
          r -> r.inference() == null ? "-" : ms(r.inference().p99Ms()));
      row(
          rows,
          runs,
          "inference requests failed",
          r ->
              r.inference() == null
                  ? "-"
                  : r.inference().failed() + " of " + r.inference().requests());
      row(rows, runs, "replicas that waited for a reclaim", SummaryTable::behindReclaim);
    }
    row(rows, runs, "run length", r -> secs(r.runS()));

    int[] width = new int[head.size()];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < rows.size(); i++) {
      String[] row = rows.get(i);
      StringBuilder line = new StringBuilder(pad(row[0], width[0], false));
      for (int c = 1; c < row.length; c++) {
        line.append("   ").append(pad(row[c], width[c], true));
      }
      out.append(line.toString().stripTrailing()).append('\n');
      if (i == 0) {
        out.append("-".repeat(line.length())).append('\n');
      }
    }
    out.append(DEFINITIONS);
    if (runs.stream().anyMatch(RunSummary::censored)) {
      out.append("(>=: some jobs had not ended when the run ended; they count until then)\n");
    }
    return out.toString();
  }

  private static void row(
      List<String[]> rows, List<RunSummary> runs, String name, Function<RunSummary, String> f) {
    List<String> cells = new ArrayList<>(List.of(name));
    runs.forEach(r -> cells.add(f.apply(r)));
    rows.add(cells.toArray(String[]::new));
  }

  /** Replicas behind a reclaim, with their ask-to-answer p50 and max; "0" when none. */
  static String behindReclaim(RunSummary r) {
    InferenceSummary i = r.inference();
    if (i == null) {
      return "-";
    }
    if (i.replicasBehindReclaim() == 0) {
      return "0";
    }
    return String.format(
        Locale.ROOT,
        "%d (%.1f / %.1f s)",
        i.replicasBehindReclaim(),
        i.reclaimWaitP50S(),
        i.reclaimWaitMaxS());
  }

  static String share(double f) {
    return String.format(Locale.ROOT, "%.2f%%", f * 100);
  }

  static String ms(double v) {
    return String.format(Locale.ROOT, "%.1f ms", v);
  }

  private static String bound(RunSummary r) {
    return r.censored() ? ">=" : "";
  }

  static String secs(double s) {
    return String.format(Locale.ROOT, "%.1f s", s);
  }

  static String pct(double f) {
    return String.format(Locale.ROOT, "%.1f%%", f * 100);
  }

  static String num(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static String pad(String s, int w, boolean right) {
    String fill = " ".repeat(Math.max(0, w - s.length()));
    return right ? fill + s : s + fill;
  }
}
