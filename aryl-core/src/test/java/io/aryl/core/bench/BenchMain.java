package io.aryl.core.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the core's JMH benchmarks with defaults sized for a 2-core machine (1 fork, 10 x 1 s
 * warm-up, 5 x 1 s measurement, average time in ms, GC profiler) and prints a summary against the
 * speed targets.
 *
 * <p>Arguments are include regexes (matched against the benchmark's full name, as JMH does), e.g.
 * {@code Round}; none runs every benchmark in {@code io.aryl.core.bench}. Run it with {@code
 * bin/aryl-bench [REGEX...]}.
 *
 * <p>For steadier numbers than the quick defaults give, the environment may override the counts:
 * {@code ARYL_BENCH_FORKS}, {@code ARYL_BENCH_WARMUP} (warm-up iterations) and {@code
 * ARYL_BENCH_ITERATIONS} (measurement iterations), e.g. {@code ARYL_BENCH_WARMUP=10
 * ARYL_BENCH_ITERATIONS=10 bin/aryl-bench}.
 */
public final class BenchMain {
  private BenchMain() {}

  /**
   * A speed target: a benchmark (simple class.method name) at the runs with these parameters, in
   * ms/op.
   */
  private record Target(String benchmark, String params, double maxMs) {}

  private static final List<Target> TARGETS =
      List.of(
          new Target("RoundBenchmark.round", "cluster=1000x200", 5),
          new Target("RoundBenchmark.round", "cluster=16000x2000", 100),
          new Target("ReclaimBenchmark.reclaim", "gpus=16000 jobs=2000 servers=100", 50));

  public static void main(String[] args) throws RunnerException {
    ChainedOptionsBuilder opts =
        new OptionsBuilder()
            .forks(envInt("ARYL_BENCH_FORKS", 1))
            .warmupIterations(envInt("ARYL_BENCH_WARMUP", 10))
            .warmupTime(TimeValue.seconds(1))
            .measurementIterations(envInt("ARYL_BENCH_ITERATIONS", 5))
            .measurementTime(TimeValue.seconds(1))
            .mode(Mode.AverageTime)
            .timeUnit(TimeUnit.MILLISECONDS)
            .threads(1)
            .jvmArgs("-Xms2g", "-Xmx2g")
            .addProfiler(GCProfiler.class)
            .shouldFailOnError(true);
    boolean any = false;
    for (String a : args) {
      if (a != null && !a.isBlank()) {
        opts.include(a);
        any = true;
      }
    }
    if (!any) {
      opts.include(BenchMain.class.getPackageName().replace(".", "\\.") + "\\.");
    }
    Collection<RunResult> results = new Runner(opts.build()).run();
    System.out.println();
    System.out.print(summary(results));
  }

  static String summary(Collection<RunResult> results) {
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "benchmark", "params", "score ms/op", "error ms/op", "alloc MB/op", "target", "verdict"
        });
    for (RunResult r : results) {
      BenchmarkParams bp = r.getParams();
      String name = simpleName(bp.getBenchmark());
      StringBuilder params = new StringBuilder();
      for (String k : bp.getParamsKeys()) {
        params.append(params.length() == 0 ? "" : " ").append(k).append('=').append(bp.getParam(k));
      }
      Result<?> primary = r.getPrimaryResult();
      double score = primary.getScore();
      double error = primary.getScoreError();
      double allocBytes = Double.NaN;
      for (String key : r.getSecondaryResults().keySet()) {
        if (key.endsWith("gc.alloc.rate.norm")) {
          allocBytes = r.getSecondaryResults().get(key).getScore();
        }
      }
      Target target = null;
      for (Target t : TARGETS) {
        if (t.benchmark.equals(name)
            && List.of(params.toString().split(" ")).containsAll(List.of(t.params.split(" ")))) {
          target = t;
        }
      }
      rows.add(
          new String[] {
            name,
            params.toString(),
            fmt("%.3f", score),
            fmt("± %.3f", Double.isNaN(error) ? 0 : error),
            Double.isNaN(allocBytes) ? "n/a" : fmt("%.2f", allocBytes / 1e6),
            target == null ? "-" : fmt("<= %.0f ms", target.maxMs),
            target == null ? "-" : score <= target.maxMs ? "PASS" : "MISS"
          });
    }
    int[] width = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder out =
        new StringBuilder(
            "Aryl core speed targets (single-threaded, JMH average time, error = 99.9% confidence half-width)\n");
    for (int i = 0; i < rows.size(); i++) {
      String[] row = rows.get(i);
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        boolean numeric = c >= 2 && c <= 4;
        line.append(pad(row[c], width[c], numeric)).append(c + 1 < row.length ? "  " : "");
      }
      out.append(line.toString().stripTrailing()).append('\n');
      if (i == 0) {
        int total = 0;
        for (int w : width) {
          total += w + 2;
        }
        out.append("-".repeat(total - 2)).append('\n');
      }
    }
    return out.toString();
  }

  private static int envInt(String name, int otherwise) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      return otherwise;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new IllegalArgumentException(name + " must be a whole number >= 0, was '" + v + "'");
  }

  private static String simpleName(String benchmark) {
    String[] parts = benchmark.split("\\.", -1);
    return parts.length < 2 ? benchmark : parts[parts.length - 2] + "." + parts[parts.length - 1];
  }

  private static String fmt(String format, double v) {
    return String.format(Locale.ROOT, format, v);
  }

  private static String pad(String s, int width, boolean right) {
    String fill = " ".repeat(Math.max(0, width - s.length()));
    return right ? fill + s : s + fill;
  }
}
