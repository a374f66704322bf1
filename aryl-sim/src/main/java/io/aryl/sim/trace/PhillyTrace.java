package io.aryl.sim.trace;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Reader of the Microsoft Philly trace in the form petuum/adaptdl ships it ({@code
 * simulator/traces/philly.csv}, branch {@code osdi21-artifact}; Philly data CC-BY-4.0): header
 * {@code timestamp,duration,num_gpus,gpu_time,cluster}, one job per line, not sorted by time.
 *
 * <ul>
 *   <li>{@code timestamp} is {@code yyyy-MM-dd HH:mm:ss}, read as UTC. A job's {@code submitS} is
 *       the seconds since the earliest timestamp among the jobs returned (after the cluster
 *       filter), so the first job kept is submitted at 0.
 *   <li>The file has no job ids: a job's id is {@code philly-<line>}, its 1-based line in the file
 *       (the header is line 1, so the first job is {@code philly-2}). Ids therefore stay the same
 *       whatever the filter.
 *   <li>{@code duration} is seconds and must be &gt; 0. The released file has no job with a zero or
 *       negative duration (the shortest is 1 s), so such a line is not a real job of that file but
 *       a damaged one, and is refused like any other malformed line rather than dropped or patched.
 *   <li>{@code num_gpus} must be a whole number &gt; 0; {@code gpu_time} a number &gt;= 0 (it is
 *       not carried); {@code cluster} non-blank, and is the job's {@link TraceJob#tenant()}:
 *       Philly's virtual clusters are teams sharing one physical cluster. Models are unknown
 *       ({@code ""}).
 * </ul>
 *
 * <p>Every line is checked, including those of clusters the filter leaves out; any malformed line
 * is a {@link TraceFormatException} naming the file, the line and the value. Only blank lines at
 * the end of the file are ignored. Jobs are returned sorted by {@code submitS}, then by line. I/O
 * failures are thrown as {@link UncheckedIOException}.
 */
public final class PhillyTrace {
  /** The header, in file order. */
  public static final List<String> HEADER =
      List.of("timestamp", "duration", "num_gpus", "gpu_time", "cluster");

  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss").withResolverStyle(ResolverStyle.STRICT);

  private PhillyTrace() {}

  /**
   * Reads the Philly trace.
   *
   * @param file the CSV file
   * @param clusterOrNull a virtual cluster id (e.g. {@code 6214e9}) to keep only its jobs, or
   *     {@code null} for all
   * @throws TraceFormatException on a malformed line
   * @throws IllegalArgumentException if the file has no job in {@code clusterOrNull}; the message
   *     lists the clusters it has, with their job counts
   */
  public static List<TraceJob> read(Path file, String clusterOrNull) {
    try (InputStream in = Files.newInputStream(file)) {
      return read(in, file.toString(), clusterOrNull);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Philly trace " + file + ": " + e, e);
    }
  }

  /**
   * Reads the Philly trace from a stream; {@code sourceName} names it in messages. The stream is
   * read to its end but not closed. See {@link #read(Path, String)}.
   */
  public static List<TraceJob> read(InputStream in, String sourceName, String clusterOrNull) {
    if (clusterOrNull != null && clusterOrNull.isBlank()) {
      throw new IllegalArgumentException(
          "cluster must be null (all clusters) or non-blank, was '" + clusterOrNull + "'");
    }
    TraceCsv csv = TraceCsv.open(in, sourceName);
    for (String column : HEADER) {
      csv.column(column);
    }
    if (csv.header().size() != HEADER.size()) {
      throw csv.badHeader("not a Philly trace header, expected " + String.join(",", HEADER));
    }

    record Line(int line, long epochS, double durationS, int gpus, String cluster) {}
    List<Line> kept = new ArrayList<>();
    Map<String, Integer> jobsPerCluster = new TreeMap<>();
    for (TraceCsv.Row row = csv.next(); row != null; row = csv.next()) {
      String stamp = row.cell("timestamp");
      long epochS;
      try {
        epochS = LocalDateTime.parse(stamp, TIMESTAMP).toEpochSecond(ZoneOffset.UTC);
      } catch (DateTimeParseException e) {
        throw row.error("timestamp must be a date and time yyyy-MM-dd HH:mm:ss", stamp);
      }
      double durationS = row.positive("duration");
      int gpus = row.positiveInt("num_gpus");
      row.nonNegative("gpu_time");
      String cluster = row.text("cluster");
      jobsPerCluster.merge(cluster, 1, Integer::sum);
      if (clusterOrNull == null || clusterOrNull.equals(cluster)) {
        kept.add(new Line(row.line(), epochS, durationS, gpus, cluster));
      }
    }
    if (clusterOrNull != null && kept.isEmpty()) {
      StringJoiner present = new StringJoiner(", ");
      jobsPerCluster.forEach((c, n) -> present.add(c + " (" + n + ")"));
      throw new IllegalArgumentException(
          sourceName
              + ": no job in cluster '"
              + clusterOrNull
              + "'; clusters present (jobs): "
              + (jobsPerCluster.isEmpty() ? "none" : present.toString()));
    }

    long start = kept.stream().mapToLong(Line::epochS).min().orElse(0);
    kept.sort(Comparator.comparingLong(Line::epochS).thenComparingInt(Line::line));
    List<TraceJob> jobs = new ArrayList<>(kept.size());
    for (Line l : kept) {
      jobs.add(
          new TraceJob(
              "philly-" + l.line(), l.epochS() - start, l.durationS(), l.gpus(), "", l.cluster()));
    }
    return List.copyOf(jobs);
  }
}
