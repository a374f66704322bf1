package io.aryl.admin;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain text table as {@code yarn application -list} prints one: a header row, then one row per
 * item, each column as wide as its widest cell, two spaces between columns, no trailing blanks. A
 * null cell prints as {@code -}.
 */
final class Table {
  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... headers) {
    if (headers.length == 0) {
      throw new IllegalArgumentException("a table needs at least one column");
    }
    this.headers = List.of(headers);
  }

  Table row(Object... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException(
          "a row of "
              + headers
              + " needs "
              + headers.size()
              + " cells, was "
              + cells.length
              + ": "
              + Arrays.toString(cells));
    }
    List<String> r = new ArrayList<>();
    for (Object c : cells) {
      r.add(c == null ? "-" : oneLine(c.toString()));
    }
    rows.add(r);
    return this;
  }

  int size() {
    return rows.size();
  }

  /** The table, one line per row after the header, each ending with a newline. */
  String render() {
    int[] width = new int[headers.size()];
    for (int i = 0; i < width.length; i++) {
      width[i] = headers.get(i).length();
      for (List<String> r : rows) {
        width[i] = Math.max(width[i], r.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    line(out, headers, width);
    for (List<String> r : rows) {
      line(out, r, width);
    }
    return out.toString();
  }

  private static void line(StringBuilder out, List<String> cells, int[] width) {
    StringBuilder l = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        l.append("  ");
      }
      l.append(cells.get(i));
      if (i < cells.size() - 1) {
        l.append(" ".repeat(width[i] - cells.get(i).length()));
      }
    }
    out.append(l.toString().stripTrailing()).append('\n');
  }

  private static String oneLine(String s) {
    return s.replaceAll("\\s*[\\r\\n]+\\s*", " ");
  }
}
