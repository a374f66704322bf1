package io.aryl.yarn.web;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The page's HTML text: status values escaped for element content and attributes, links, node
 * lists, times in UTC and durations. Every value the page takes from the status passes through
 * here, so no renderer writes a status value unescaped.
 */
final class Html {
  /** Times on the page: UTC, to the second. */
  static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  private Html() {}

  /** HTML-escapes text for element content and double-quoted attributes; null is empty. */
  static String esc(Object o) {
    String s = str(o);
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  /** A link whose address and text are both escaped. */
  static String link(String href, String text) {
    return "<a href=\"" + esc(href) + "\">" + esc(text) + "</a>";
  }

  /** Node names, escaped, comma-separated. */
  static String names(List<String> nodes) {
    List<String> out = new ArrayList<>();
    nodes.forEach(n -> out.add(esc(n)));
    return String.join(", ", out);
  }

  /** An epoch time in UTC; empty for a time not set (0 or less). */
  static String time(long ms) {
    return ms <= 0 ? "" : esc(TIME.format(Instant.ofEpochMilli(ms)));
  }

  /** Milliseconds as seconds to one decimal; empty for a duration not known (negative). */
  static String seconds(long ms) {
    return ms < 0 ? "" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  /** The value as text; null is empty. */
  static String str(Object o) {
    return o == null ? "" : String.valueOf(o);
  }

  /** A list the status may leave null (Aryl off, or an older scheduler) as a list. */
  static <T> List<T> orEmpty(List<T> l) {
    return l == null ? List.of() : l;
  }
}
