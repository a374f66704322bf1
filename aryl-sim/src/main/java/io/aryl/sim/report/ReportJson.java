package io.aryl.sim.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.aryl.sim.engine.Metrics;
import io.aryl.sim.engine.PolicyResult;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The machine-readable summary of a simulation: {@code report.json}.
 *
 * <pre>{@code
 * {
 *   "config": { ...the run's configuration... },
 *   "policies": {
 *     "<policy>": { ...Metrics.of(result), in Metrics' order... },
 *     ...in the order given...
 *   }
 * }
 * }</pre>
 *
 * <p>Metric values stay JSON numbers. Doubles are rounded to 4 decimal places, or to 4 significant
 * digits when that keeps more of a small value (0.000123456 is written 1.235E-4, not 0.0001); a
 * non-finite double is written as {@code null}, since JSON has no NaN or infinity. The
 * configuration is written as given, unrounded.
 */
public final class ReportJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ReportJson() {}

  /**
   * Writes the report, creating the file's directory if needed and replacing any file already
   * there.
   *
   * @throws IllegalArgumentException if two results have the same policy name
   */
  public static void write(Path file, Map<String, Object> config, List<PolicyResult> results)
      throws IOException {
    MAPPER.writeValue(prepare(file).toFile(), toJson(config, results));
  }

  /** The policy whose queuing {@code queue_removed_pct} is measured against. */
  public static final String BASELINE = "baseline";

  /** Reads a report (or any JSON file) back as a tree. */
  public static JsonNode read(Path file) throws IOException {
    return MAPPER.readTree(file.toFile());
  }

  /** The report as a tree, without writing it. */
  public static ObjectNode toJson(Map<String, Object> config, List<PolicyResult> results) {
    ObjectNode root = MAPPER.createObjectNode();
    root.set("config", config == null ? MAPPER.createObjectNode() : MAPPER.valueToTree(config));
    ObjectNode policies = root.putObject("policies");
    PolicyResult baseline =
        results.stream().filter(r -> r.policy().equals(BASELINE)).findFirst().orElse(null);
    Set<String> seen = new HashSet<>();
    for (PolicyResult r : results) {
      if (!seen.add(r.policy())) {
        throw new IllegalArgumentException("two results for policy '" + r.policy() + "'");
      }
      ObjectNode node = policies.putObject(r.policy());
      for (Map.Entry<String, Object> e : Metrics.of(r, baseline).entrySet()) {
        put(node, e.getKey(), e.getValue());
      }
    }
    return root;
  }

  private static void put(ObjectNode node, String name, Object value) {
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (Double.isFinite(d)) {
        node.put(name, round(d));
      } else {
        node.putNull(name);
      }
    } else {
      node.set(name, MAPPER.valueToTree(value));
    }
  }

  /** {@code v} to 4 decimal places, or to 4 significant digits if that keeps more of it. */
  static double round(double v) {
    if (v == 0 || !Double.isFinite(v)) {
      return v;
    }
    int magnitude = (int) Math.floor(Math.log10(Math.abs(v)));
    int scale = Math.max(4, 3 - magnitude);
    return new BigDecimal(v).setScale(scale, RoundingMode.HALF_EVEN).doubleValue();
  }

  private static Path prepare(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    return file;
  }
}
