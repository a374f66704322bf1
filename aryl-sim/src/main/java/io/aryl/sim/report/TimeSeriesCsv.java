package io.aryl.sim.report;

import io.aryl.sim.engine.JobRecord;
import io.aryl.sim.engine.PolicyResult;
import io.aryl.sim.engine.Sample;
import java.io.BufferedWriter;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-policy CSV files for plotting elsewhere: {@code timeseries-<policy>.csv}, one row per sample,
 * and {@code jobs-<policy>.csv}, one row per finished job, both in the result's order.
 *
 * <p>Times are seconds from the start of the window. Doubles are written plainly with at most 3
 * decimals (trailing zeros dropped), in the same notation whatever the default locale; a non-finite
 * double is an empty field. Job ids are quoted as RFC 4180 requires when they hold a comma, quote
 * or line break. In file names, every character of a policy name other than letters, digits, '.',
 * '_', '-' and '+' becomes '_'.
 */
public final class TimeSeriesCsv {
  public static final String TIMESERIES_HEADER =
      "time_s,training_pool_busy_gpus,loaned_busy_gpus,"
          + "inference_busy_gpus,loaned_servers,queued_jobs,running_jobs";
  public static final String JOBS_HEADER =
      "id,submit_s,first_start_s,end_s,queue_s,jct_s,requested_gpus,elastic,bound_s";

  private TimeSeriesCsv() {}

  /**
   * Writes both files of every policy into {@code dir}, creating it if needed and replacing files
   * already there.
   *
   * @throws IllegalArgumentException if two policies would write the same files
   */
  public static void write(Path dir, List<PolicyResult> results) throws IOException {
    Map<String, String> owners = new HashMap<>();
    for (PolicyResult r : results) {
      String previous = owners.putIfAbsent(fileStem(r.policy()), r.policy());
      if (previous != null) {
        throw new IllegalArgumentException(
            "policies '"
                + previous
                + "' and '"
                + r.policy()
                + "' would both write "
                + timeseriesFile(r.policy()));
      }
    }
    Files.createDirectories(dir);
    for (PolicyResult r : results) {
      writeSamples(dir.resolve(timeseriesFile(r.policy())), r.samples());
      writeJobs(dir.resolve(jobsFile(r.policy())), r.jobs());
    }
  }

  /** The time-series file name of a policy. */
  public static String timeseriesFile(String policy) {
    return "timeseries-" + fileStem(policy) + ".csv";
  }

  /** The jobs file name of a policy. */
  public static String jobsFile(String policy) {
    return "jobs-" + fileStem(policy) + ".csv";
  }

  static String fileStem(String policy) {
    return policy.replaceAll("[^A-Za-z0-9._+-]", "_");
  }

  private static void writeSamples(Path file, List<Sample> samples) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write(TIMESERIES_HEADER);
      w.write('\n');
      StringBuilder line = new StringBuilder(64);
      for (Sample s : samples) {
        line.setLength(0);
        line.append(num(s.timeS()))
            .append(',')
            .append(s.trainingPoolBusyGpus())
            .append(',')
            .append(s.loanedBusyGpus())
            .append(',')
            .append(num(s.inferenceBusyGpus()))
            .append(',')
            .append(s.loanedServers())
            .append(',')
            .append(s.queuedJobs())
            .append(',')
            .append(s.runningJobs())
            .append('\n');
        w.append(line);
      }
    }
  }

  private static void writeJobs(Path file, List<JobRecord> jobs) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write(JOBS_HEADER);
      w.write('\n');
      StringBuilder line = new StringBuilder(96);
      for (JobRecord j : jobs) {
        line.setLength(0);
        line.append(text(j.id()))
            .append(',')
            .append(num(j.submitS()))
            .append(',')
            .append(num(j.firstStartS()))
            .append(',')
            .append(num(j.endS()))
            .append(',')
            .append(num(j.queueS()))
            .append(',')
            .append(num(j.jctS()))
            .append(',')
            .append(j.requestedGpus())
            .append(',')
            .append(j.elastic())
            .append(',')
            .append(num(j.boundS()))
            .append('\n');
        w.append(line);
      }
    }
  }

  /** Plain notation, at most 3 decimals, no trailing zeros; empty if not finite. */
  static String num(double v) {
    if (!Double.isFinite(v)) {
      return "";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    String s =
        BigDecimal.valueOf(v)
            .setScale(3, RoundingMode.HALF_EVEN)
            .stripTrailingZeros()
            .toPlainString();
    return s.equals("-0") ? "0" : s;
  }

  static String text(String s) {
    if (s == null) {
      return "";
    }
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }
}
