package io.aryl.admin;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A duration as an operator types it: a whole number and one unit, {@code 500ms}, {@code 90s},
 * {@code 5m}, {@code 1h}.
 */
final class Durations {
  private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  /** The scheduler refuses deadlines further ahead than this. */
  static final Duration MAX = Duration.ofDays(7);

  private Durations() {}

  /**
   * @throws IllegalArgumentException not of that form, zero, or more than 7 days; the message says
   *     what is expected and names the value (the caller names the option)
   */
  static Duration parse(String value) {
    Matcher m = FORM.matcher(value == null ? "" : value.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "must be a duration such as 90s, 5m or 1h (units ms, s, m, h, d),"
              + " was '"
              + value
              + "'");
    }
    long n = Long.parseLong(m.group(1));
    Duration d =
        switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
    if (d.isZero()) {
      throw new IllegalArgumentException("must be more than 0, was '" + value + "'");
    }
    if (d.compareTo(MAX) > 0) {
      throw new IllegalArgumentException(
          "must be at most 7d (the scheduler's limit), was '" + value + "'");
    }
    return d;
  }
}
