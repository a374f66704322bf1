package io.aryl.sim.report;

import io.aryl.sim.engine.Metrics;
import io.aryl.sim.engine.PolicyResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The console summary: one fixed-width row per policy, in the given order, from the same {@link
 * Metrics} as report.json.
 *
 * <p>When the baseline is one of the results, two more columns compare each policy with it: "queue
 * x" is the baseline's average queuing time over the policy's, "JCT x" the same for average JCT, so
 * above 1 means the policy does better. A ratio is "inf" when the policy's average is 0 and the
 * baseline's is not, and "-" when both are 0.
 */
public final class ResultsTable {
  private static final String[] HEADERS = {
    "policy",
    "jobs",
    "avg queue (h)",
    "p95 queue (h)",
    "p99 queue (h)",
    "max queue (h)",
    "avg JCT (h)",
    "p95 JCT (h)",
    "JCT/bound",
    "JCT/cap bound",
    "GPU util %",
    "training util %",
    "inference util %",
    "loaned GPU-h",
    "preemptions",
    "scale-ins",
    "lost GPU-h",
    "shortfall server-s",
    "inference short %",
    "starved",
    "worst slowdown"
  };
  private static final String GAP = "  ";

  private ResultsTable() {}

  /**
   * The table, lines ending in '\n'. {@code baselineName} may be null or name no result; the ratio
   * columns are then left out.
   */
  public static String format(List<PolicyResult> results, String baselineName) {
    Map<String, Object> baseline = null;
    for (PolicyResult r : results) {
      if (r.policy().equals(baselineName)) {
        baseline = Metrics.of(r);
        break;
      }
    }
    List<String> headers = new ArrayList<>(List.of(HEADERS));
    if (baseline != null) {
      headers.add("queue x");
      headers.add("JCT x");
    }
    List<List<String>> rows = new ArrayList<>();
    for (PolicyResult r : results) {
      Map<String, Object> m = Metrics.of(r);
      List<String> row =
          new ArrayList<>(
              List.of(
                  r.policy(),
                  integer(m, "jobs"),
                  fixed(hours(m, "avg_queue_s"), 2),
                  fixed(hours(m, "p95_queue_s"), 2),
                  fixed(hours(m, "p99_queue_s"), 2),
                  fixed(hours(m, "max_queue_s"), 2),
                  fixed(hours(m, "avg_jct_s"), 2),
                  fixed(hours(m, "p95_jct_s"), 2),
                  fixed(number(m, "jct_vs_bound"), 2),
                  fixed(number(m, "jct_vs_capacity_bound"), 2),
                  fixed(100 * number(m, "gpu_util"), 1),
                  fixed(100 * number(m, "training_util"), 1),
                  fixed(100 * number(m, "inference_util"), 1),
                  fixed(number(m, "loaned_gpu_hours"), 1),
                  integer(m, "preemptions"),
                  integer(m, "scale_ins"),
                  fixed(number(m, "lost_gpu_hours"), 1),
                  fixed(number(m, "inference_shortfall_server_s"), 0),
                  fixed(100 * number(m, "inference_short_share"), 3),
                  integer(m, "starved_jobs"),
                  fixed(number(m, "worst_slowdown"), 1)));
      if (baseline != null) {
        row.add(ratio(number(baseline, "avg_queue_s"), number(m, "avg_queue_s")));
        row.add(ratio(number(baseline, "avg_jct_s"), number(m, "avg_jct_s")));
      }
      rows.add(row);
    }

    int[] widths = new int[headers.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = headers.get(c).length();
      for (List<String> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    StringBuilder out = new StringBuilder();
    line(out, headers, widths);
    List<String> rule = new ArrayList<>();
    for (int width : widths) {
      rule.add("-".repeat(width));
    }
    line(out, rule, widths);
    for (List<String> row : rows) {
      line(out, row, widths);
    }
    if (baseline != null) {
      out.append("queue x, JCT x: ")
          .append(baselineName)
          .append("'s average over the policy's (above 1: better than ")
          .append(baselineName)
          .append(")\n");
    }
    return out.toString();
  }

  /** The first column left-aligned, the others right-aligned, no trailing spaces. */
  private static void line(StringBuilder out, List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      String cell = cells.get(c);
      String pad = " ".repeat(widths[c] - cell.length());
      if (c == 0) {
        line.append(cell).append(pad);
      } else {
        line.append(GAP).append(pad).append(cell);
      }
    }
    int end = line.length();
    while (end > 0 && line.charAt(end - 1) == ' ') {
      end--;
    }
    out.append(line, 0, end).append('\n');
  }

  static String ratio(double baseline, double policy) {
    if (policy == 0) {
      return baseline == 0 ? "-" : "inf";
    }
    return fixed(baseline / policy, 2);
  }

  private static double number(Map<String, Object> m, String key) {
    return ((Number) m.get(key)).doubleValue();
  }

  private static double hours(Map<String, Object> m, String key) {
    return number(m, key) / 3600;
  }

  private static String integer(Map<String, Object> m, String key) {
    return Long.toString(((Number) m.get(key)).longValue());
  }

  private static String fixed(double v, int decimals) {
    String s = String.format(Locale.ROOT, "%." + decimals + "f", v);
    // "-0.00" reads as a sign error; a value that rounds to zero is zero.
    return s.matches("-0\\.?0*") ? s.substring(1) : s;
  }
}
