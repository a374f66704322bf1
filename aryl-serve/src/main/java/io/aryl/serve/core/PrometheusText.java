package io.aryl.serve.core;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one counter from a replica's metrics in the Prometheus text format, which the default
 * replica ({@code serve.py}) and real servers (vLLM's {@code vllm:request_success_total},
 * TorchServe's {@code ts_inference_requests_total}) all write: the sum of every sample of that
 * metric name, whatever its labels.
 */
public final class PrometheusText {
  private static final Pattern VALUE = Pattern.compile("\\s*(\\S*)");

  private PrometheusText() {}

  /**
   * The sum of the samples named {@code name}, rounded down; -1 when the text has none.
   *
   * @throws IllegalArgumentException when a sample of that name has a value that is not a number
   */
  public static long counter(String text, String name) {
    double sum = 0;
    boolean found = false;
    for (String line : text.lines().map(String::strip).toList()) {
      if (line.isEmpty() || line.startsWith("#") || !line.startsWith(name)) {
        continue;
      }
      String rest = line.substring(name.length());
      if (rest.startsWith("{")) {
        int close = rest.lastIndexOf('}');
        if (close < 0) {
          throw new IllegalArgumentException(
              "metric " + name + ": unclosed labels in '" + line + "'");
        }
        rest = rest.substring(close + 1);
      } else if (!rest.isEmpty() && !Character.isWhitespace(rest.charAt(0))) {
        continue; // another metric whose name starts with this one
      }
      // The value, then an optional timestamp.
      Matcher value = VALUE.matcher(rest);
      String valueText = value.lookingAt() ? value.group(1) : "";
      try {
        sum += Double.parseDouble(valueText);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "metric " + name + ": value '" + valueText + "' is not a number in '" + line + "'", e);
      }
      found = true;
    }
    return found ? (long) Math.floor(sum) : -1;
  }
}
