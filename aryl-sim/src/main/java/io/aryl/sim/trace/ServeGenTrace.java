package io.aryl.sim.trace;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reader of the ServeGen aggregate request-rate table ({@code servegen_aggregate_rate_10min.csv},
 * derived from alibaba/ServeGen, Apache-2.0): header {@code
 * model,window_start_s,total_rate_rps,active_clients}, one line per model and window, {@code
 * window_start_s} in seconds from the trace's t=0 (local midnight).
 *
 * <p>Every line is checked, including those of other models: {@code model} non-blank, {@code
 * window_start_s} and {@code total_rate_rps} numbers &gt;= 0, {@code active_clients} a number &gt;=
 * 0 (not carried). The chosen model's windows, in file order, must start at 0 and follow each other
 * without gap or overlap at one fixed spacing (the spacing of its first two windows), so that the
 * curve's time 0 is the trace's t=0. Any violation is a {@link TraceFormatException} naming the
 * file, the line and the value. Only blank lines at the end of the file are ignored. I/O failures
 * are thrown as {@link UncheckedIOException}.
 */
public final class ServeGenTrace {
  /** The header, in file order. */
  public static final List<String> HEADER =
      List.of("model", "window_start_s", "total_rate_rps", "active_clients");

  private ServeGenTrace() {}

  /**
   * The request-rate curve of one model.
   *
   * @throws TraceFormatException on a malformed line or a gap, overlap or uneven spacing in the
   *     model's windows
   * @throws IllegalArgumentException if the file has no line for {@code model} (the message lists
   *     the models it has), or only one, from which no window length can be inferred
   */
  public static InferenceCurve read(Path file, String model) {
    try (InputStream in = Files.newInputStream(file)) {
      return read(in, file.toString(), model);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read ServeGen trace " + file + ": " + e, e);
    }
  }

  /**
   * The request-rate curve of one model, from a stream such as a classpath resource; {@code
   * sourceName} names it in messages. The stream is read to its end but not closed. See {@link
   * #read(Path, String)}.
   */
  public static InferenceCurve read(InputStream in, String sourceName, String model) {
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException(
          "model must not be blank, was " + (model == null ? "null" : "'" + model + "'"));
    }
    TraceCsv csv = TraceCsv.open(in, sourceName);
    for (String column : HEADER) {
      csv.column(column);
    }
    if (csv.header().size() != HEADER.size()) {
      throw csv.badHeader("not a ServeGen rate header, expected " + String.join(",", HEADER));
    }

    Set<String> models = new LinkedHashSet<>();
    List<Double> rates = new ArrayList<>();
    double windowS = Double.NaN;
    for (TraceCsv.Row row = csv.next(); row != null; row = csv.next()) {
      String rowModel = row.text("model");
      double startS = row.nonNegative("window_start_s");
      double rate = row.nonNegative("total_rate_rps");
      row.nonNegative("active_clients");
      models.add(rowModel);
      if (!rowModel.equals(model)) {
        continue;
      }
      int i = rates.size();
      if (i == 0) {
        if (startS != 0) {
          throw row.error(
              "the first window of model '" + model + "' must start at 0",
              row.cell("window_start_s"));
        }
      } else if (i == 1) {
        windowS = startS;
        if (!(windowS > 0)) {
          throw row.error(
              "windows of model '"
                  + model
                  + "' must follow each other, the second one starting after 0",
              row.cell("window_start_s"));
        }
      } else {
        double expected = i * windowS;
        if (Math.abs(startS - expected) > 1e-9 * windowS) {
          throw row.error(
              "windows of model '"
                  + model
                  + "' must be contiguous and "
                  + fmt(windowS)
                  + " s apart: expected "
                  + fmt(expected)
                  + " (previous window + "
                  + fmt(windowS)
                  + " s)",
              row.cell("window_start_s"));
        }
      }
      rates.add(rate);
    }
    if (rates.isEmpty()) {
      throw new IllegalArgumentException(
          sourceName
              + ": no line for model '"
              + model
              + "'; models present: "
              + (models.isEmpty() ? "none" : String.join(", ", models)));
    }
    if (rates.size() == 1) {
      throw new IllegalArgumentException(
          sourceName
              + ": model '"
              + model
              + "' has a single window, its length cannot be inferred");
    }
    return new InferenceCurve(
        model, windowS, rates.stream().mapToDouble(Double::doubleValue).toArray());
  }

  private static String fmt(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }
}
