package io.aryl.sim.trace;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The line reader shared by the trace readers: a header line naming the columns, then one record
 * per line, cells separated by commas (the public traces quote nothing). Every problem is a {@link
 * TraceFormatException} naming the file and the line; nothing is skipped except blank lines at the
 * very end of the file.
 */
final class TraceCsv implements Closeable {
  /**
   * A plain decimal number; refuses what {@link Double#parseDouble} would also take: NaN, Infinity,
   * hex, 1d.
   */
  private static final Pattern NUMBER =
      Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?");

  private static final Pattern WHOLE = Pattern.compile("\\+?\\d+");

  private final String source;
  private final BufferedReader in;
  private final String headerLine;
  private final List<String> header;
  private final Map<String, Integer> columns;
  private int lineNo;
  private int firstPendingBlank;

  private TraceCsv(String source, BufferedReader in) {
    this.source = source;
    this.in = in;
    String first = readLine();
    if (first != null && first.startsWith("\uFEFF")) {
      first = first.substring(1);
    }
    if (first == null || first.isBlank()) {
      throw new TraceFormatException(source, 1, "missing header line", first == null ? "" : first);
    }
    this.headerLine = first;
    List<String> names = new ArrayList<>();
    Map<String, Integer> index = new HashMap<>();
    for (String cell : first.split(",", -1)) {
      String name = cell.trim();
      if (name.isEmpty() || index.put(name, names.size()) != null) {
        throw new TraceFormatException(
            source,
            1,
            "header column names must be non-blank and distinct, column "
                + (names.size() + 1)
                + " is '"
                + name
                + "'",
            first);
      }
      names.add(name);
    }
    this.header = Collections.unmodifiableList(names);
    this.columns = index;
  }

  /** Opens a trace and reads its header line; {@code source} is the file name used in messages. */
  static TraceCsv open(InputStream in, String source) {
    if (in == null) {
      throw new IllegalArgumentException("no input for trace " + source);
    }
    return new TraceCsv(
        source, new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)));
  }

  String source() {
    return source;
  }

  /** The column names, in file order. */
  List<String> header() {
    return header;
  }

  /** Whether the header holds exactly these column names, in any order. */
  boolean headerIs(Set<String> names) {
    return new HashSet<>(header).equals(names);
  }

  /** The index of a column, or a {@link TraceFormatException} on the header line. */
  int column(String name) {
    Integer i = columns.get(name);
    if (i == null) {
      throw new TraceFormatException(source, 1, "header has no column '" + name + "'", headerLine);
    }
    return i;
  }

  /** A {@link TraceFormatException} on the header line. */
  TraceFormatException badHeader(String problem) {
    return new TraceFormatException(source, 1, problem, headerLine);
  }

  /**
   * The next record, or {@code null} at the end of the file. Blank lines are accepted only at the
   * end: a blank line followed by a record is an error on the blank line.
   */
  Row next() {
    while (true) {
      String line = readLine();
      if (line == null) {
        return null;
      }
      if (line.isBlank()) {
        if (firstPendingBlank == 0) {
          firstPendingBlank = lineNo;
        }
        continue;
      }
      if (firstPendingBlank != 0) {
        throw new TraceFormatException(
            source,
            firstPendingBlank,
            "blank line before the end of the file (next record on line " + lineNo + ")",
            "");
      }
      String[] cells = line.split(",", -1);
      if (cells.length != header.size()) {
        throw new TraceFormatException(
            source,
            lineNo,
            "expected "
                + header.size()
                + " comma-separated columns ("
                + String.join(",", header)
                + "), found "
                + cells.length,
            line);
      }
      for (int i = 0; i < cells.length; i++) {
        cells[i] = cells[i].trim();
      }
      return new Row(lineNo, cells);
    }
  }

  private String readLine() {
    try {
      String line = in.readLine();
      if (line != null) {
        lineNo++;
      }
      return line;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read " + source + " after line " + lineNo + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close " + source + ": " + e.getMessage(), e);
    }
  }

  /** One record: its 1-based line number and its trimmed cells. */
  final class Row {
    private final int line;
    private final String[] cells;

    private Row(int line, String[] cells) {
      this.line = line;
      this.cells = cells;
    }

    int line() {
      return line;
    }

    String cell(String column) {
      return cells[column(column)];
    }

    TraceFormatException error(String problem, String value) {
      return new TraceFormatException(source, line, problem, value);
    }

    String text(String column) {
      String v = cell(column);
      if (v.isEmpty()) {
        throw error(column + " must not be blank", v);
      }
      return v;
    }

    double number(String column) {
      String v = cell(column);
      if (!NUMBER.matcher(v).matches()) {
        throw error(column + " must be a number", v);
      }
      double d = Double.parseDouble(v);
      if (Double.isInfinite(d)) {
        throw error(column + " must be a finite number", v);
      }
      return d + 0.0; // -0 becomes 0
    }

    double nonNegative(String column) {
      double d = number(column);
      if (d < 0) {
        throw error(column + " must be >= 0", cell(column));
      }
      return d;
    }

    double positive(String column) {
      double d = number(column);
      if (!(d > 0)) {
        throw error(column + " must be > 0", cell(column));
      }
      return d;
    }

    int positiveInt(String column) {
      String v = cell(column);
      int n;
      try {
        n = WHOLE.matcher(v).matches() ? Integer.parseInt(v) : 0;
      } catch (NumberFormatException e) {
        n = 0;
      }
      if (n <= 0) {
        throw error(column + " must be a whole number > 0", v);
      }
      return n;
    }
  }
}
