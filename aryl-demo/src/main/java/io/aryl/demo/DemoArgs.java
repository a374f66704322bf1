package io.aryl.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsing of the demo's option values. */
public final class DemoArgs {
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?");
  private static final Pattern NODES = Pattern.compile("(\\d+)\\s*\\+\\s*(\\d+)");

  private DemoArgs() {}

  /** {@code 90s}, {@code 3m}, {@code 1h}, {@code 500ms}, or bare seconds; in milliseconds. */
  public static long durationMs(String text) {
    Matcher m = DURATION.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "a duration is a number with ms, s, m or h (e.g. 3m, 40s), was '" + text + "'");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> n;
      case "s" -> n * 1_000;
      case "m" -> n * 60_000;
      default -> n * 3_600_000;
    };
  }

  /** Node counts of the two pools. */
  public record Nodes(int inference, int training) {}

  /** {@code I+T} (e.g. {@code 4+4}): I inference nodes and T training nodes; T at least 1. */
  public static Nodes nodes(String text) {
    Matcher m = NODES.matcher(text == null ? "" : text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--nodes is INFERENCE+TRAINING (e.g. 4+4), was '" + text + "'");
    }
    int inf = Integer.parseInt(m.group(1));
    int tr = Integer.parseInt(m.group(2));
    if (tr < 1 || inf > 64 || tr > 64) {
      throw new IllegalArgumentException(
          "--nodes needs 1 to 64 training nodes and at most 64 inference nodes, was '"
              + text
              + "'");
    }
    return new Nodes(inf, tr);
  }

  /**
   * {@code --runs}: a comma-separated list of {@code aryl+}, {@code aryl} and {@code off}, run in
   * that order as given; {@code both} is {@code aryl,off} and {@code all} is {@code
   * aryl+,aryl,off}.
   */
  public static List<RunMode> runs(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("both")) {
      return List.of(RunMode.ARYL, RunMode.OFF);
    }
    if (t.equals("all")) {
      return List.of(RunMode.ARYL_PLUS, RunMode.ARYL, RunMode.OFF);
    }
    List<RunMode> out = new ArrayList<>();
    for (String part : t.split(",", -1)) {
      RunMode mode = null;
      for (RunMode m : RunMode.values()) {
        if (m.option().equals(part.trim())) {
          mode = m;
        }
      }
      if (mode == null || out.contains(mode)) {
        throw new IllegalArgumentException(
            "--runs is a comma-separated list of aryl+, aryl and off, each at most "
                + "once (or both, or all), was '"
                + text
                + "'");
      }
      out.add(mode);
    }
    return List.copyOf(out);
  }

  /**
   * {@code --inference-gpu-speed}: the training speed of the inference nodes' GPUs, 0 < speed <= 1.
   */
  public static double inferenceGpuSpeed(String text) {
    double speed;
    try {
      speed = Double.parseDouble(text == null ? "" : text.trim());
    } catch (NumberFormatException e) {
      speed = Double.NaN;
    }
    if (!(speed > 0 && speed <= 1)) {
      throw new IllegalArgumentException(
          "--inference-gpu-speed must be a number above 0 and at most 1 (the training "
              + "nodes' speed), was '"
              + text
              + "'");
    }
    return speed;
  }
}
