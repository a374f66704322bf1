package io.aryl.labels;

import io.aryl.core.model.Checks;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An inference request-rate trace in the ServeGen aggregate format: a header, then rows {@code
 * model,window_start_s,total_rate_rps,...}. One model's rows, as a step function of trace time that
 * wraps around at the end (one window past the last start).
 */
public final class RateTrace {
  private final double[] startS;
  private final double[] rate;
  private final double periodS;

  private RateTrace(double[] startS, double[] rate, double periodS) {
    this.startS = startS;
    this.rate = rate;
    this.periodS = periodS;
  }

  /**
   * Reads the rows of {@code model} (blank: the first model in the file) from a ServeGen rate CSV.
   */
  public static RateTrace read(Path file, String model) throws IOException {
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String header = in.readLine();
      if (header == null) {
        throw new IOException(file + " is empty");
      }
      List<String> cols = Arrays.asList(header.trim().split(","));
      int m = cols.indexOf("model");
      int s = cols.indexOf("window_start_s");
      int r = cols.indexOf("total_rate_rps");
      if (m < 0 || s < 0 || r < 0) {
        throw new IOException(
            file + ": header must name model, window_start_s and total_rate_rps, was " + header);
      }
      String wanted = model == null || model.isBlank() ? null : model;
      List<double[]> rows = new ArrayList<>();
      String line;
      int lineNo = 1;
      while ((line = in.readLine()) != null) {
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        String[] f = line.split(",", -1);
        if (f.length <= Math.max(m, Math.max(s, r))) {
          throw new IOException(file + " line " + lineNo + ": too few fields: " + line);
        }
        if (wanted == null) {
          wanted = f[m];
        }
        if (!wanted.equals(f[m])) {
          continue;
        }
        try {
          rows.add(new double[] {Double.parseDouble(f[s]), Double.parseDouble(f[r])});
        } catch (NumberFormatException e) {
          throw new IOException(file + " line " + lineNo + ": not a number: " + line, e);
        }
      }
      if (rows.isEmpty()) {
        throw new IOException(
            file + " has no rows of model " + (wanted == null ? "(any)" : wanted));
      }
      return of(rows);
    }
  }

  /** A trace of rows {start_s, rate_rps}, sorted by start here. */
  public static RateTrace of(List<double[]> rows) {
    List<double[]> sorted = new ArrayList<>(rows);
    sorted.sort((a, b) -> Double.compare(a[0], b[0]));
    double[] starts = new double[sorted.size()];
    double[] rates = new double[sorted.size()];
    for (int i = 0; i < sorted.size(); i++) {
      starts[i] = sorted.get(i)[0];
      rates[i] = Checks.nonNegative("total_rate_rps", sorted.get(i)[1]);
    }
    double window = starts.length > 1 ? starts[1] - starts[0] : 1;
    double period = starts[starts.length - 1] - starts[0] + window;
    return new RateTrace(starts, rates, period);
  }

  /** The rate at trace time {@code t} seconds, wrapping around past the end. */
  public double rateAt(double t) {
    double offset = (t - startS[0]) % periodS;
    if (offset < 0) {
      offset += periodS;
    }
    double x = startS[0] + offset;
    int i = Arrays.binarySearch(startS, x);
    if (i < 0) {
      i = -i - 2;
    }
    return rate[Math.max(0, i)];
  }

  public double periodS() {
    return periodS;
  }

  public int windows() {
    return startS.length;
  }
}
