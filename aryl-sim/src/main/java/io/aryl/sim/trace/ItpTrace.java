package io.aryl.sim.trace;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reader of the Microsoft ITP cluster traces as released in microsoft/elasticflow-traces (MIT), one
 * file per cluster.
 *
 * <p>Two layouts are recognised by their header line, whatever the column order:
 *
 * <ul>
 *   <li>raw ({@code data/raw-traces.tar.gz}): {@code job_id,submission_time,duration,num_gpu}; jobs
 *       get model {@code ""};
 *   <li>elasticflow ({@code data/elasticflow-traces.tar.gz}), the same jobs with generated fields:
 *       {@code
 *       job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration}; the
 *       model is {@code model_name}. {@code num_iteration} and {@code batch_size} must be whole
 *       numbers &gt; 0 and {@code deadline} a number &gt;= 0, although jobs do not carry them.
 * </ul>
 *
 * <p>{@code submission_time} is seconds from the start of the trace and is kept as is (a slice of a
 * trace keeps its original times); {@code duration} is seconds. Every record must be well formed: a
 * job id that is blank or used before, a submission time that is not a number or negative, a
 * duration that is not a number &gt; 0, a GPU count that is not a whole number &gt; 0 or a wrong
 * number of columns is a {@link TraceFormatException} naming the file, the line and the value. Only
 * blank lines at the end of the file are ignored.
 *
 * <p>Jobs are returned sorted by {@code (submitS, id)}. I/O failures are thrown as {@link
 * UncheckedIOException}.
 */
public final class ItpTrace {
  /** Header of the raw layout. */
  public static final List<String> RAW_HEADER =
      List.of("job_id", "submission_time", "duration", "num_gpu");

  /** Header of the elasticflow layout. */
  public static final List<String> ELASTICFLOW_HEADER =
      List.of(
          "job_id",
          "submission_time",
          "num_iteration",
          "model_name",
          "deadline",
          "batch_size",
          "num_gpu",
          "duration");

  private static final Comparator<TraceJob> ORDER =
      Comparator.comparingDouble(TraceJob::submitS).thenComparing(TraceJob::id);

  private ItpTrace() {}

  /** Reads an ITP trace file in either layout. */
  public static List<TraceJob> read(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return read(in, file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read ITP trace " + file + ": " + e, e);
    }
  }

  /**
   * Reads an ITP trace from a stream, e.g. a classpath resource; {@code sourceName} names it in
   * messages. The stream is read to its end but not closed.
   */
  public static List<TraceJob> read(InputStream in, String sourceName) {
    TraceCsv csv = TraceCsv.open(in, sourceName);
    boolean elasticflow;
    if (csv.headerIs(Set.copyOf(ELASTICFLOW_HEADER))) {
      elasticflow = true;
    } else if (csv.headerIs(Set.copyOf(RAW_HEADER))) {
      elasticflow = false;
    } else {
      throw csv.badHeader(
          "not an ITP trace header, expected the raw one ("
              + String.join(",", RAW_HEADER)
              + ") or the elasticflow one ("
              + String.join(",", ELASTICFLOW_HEADER)
              + ")");
    }
    List<TraceJob> jobs = new ArrayList<>();
    Map<String, Integer> lineOfId = new HashMap<>();
    for (TraceCsv.Row row = csv.next(); row != null; row = csv.next()) {
      String id = row.text("job_id");
      Integer earlier = lineOfId.putIfAbsent(id, row.line());
      if (earlier != null) {
        throw row.error("job_id already used on line " + earlier, id);
      }
      double submitS = row.nonNegative("submission_time");
      double durationS = row.positive("duration");
      int gpus = row.positiveInt("num_gpu");
      String model = "";
      if (elasticflow) {
        model = row.text("model_name");
        row.positiveInt("num_iteration");
        row.positiveInt("batch_size");
        row.nonNegative("deadline");
      }
      jobs.add(new TraceJob(id, submitS, durationS, gpus, model));
    }
    jobs.sort(ORDER);
    return List.copyOf(jobs);
  }
}
