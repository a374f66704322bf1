package io.aryl.api.loan;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.aryl.api.body.BadRequestException;
import java.util.Iterator;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code demand} of a {@link LoanTarget}: the inference demand the loan controller decided the
 * target on, so that the scheduler's page and {@code aryl-admin status} show it beside the nodes on
 * loan. Optional: a target without it (an older controller's) is taken all the same.
 *
 * @param rateRps the demanded rate when the target was decided, requests per second
 * @param forecastRps the rate expected one time to serve ahead, requests per second; the controller
 *     plans for the larger of the two
 * @param serversNeeded inference servers that demand needs
 * @param timeToServeMs the time to serve the forecast looked ahead by: from the decision that
 *     lowers the target to a replica serving on a server asked back, milliseconds; the servers'
 *     reclaim (the decision to the servers home) plus {@code startupMs}
 * @param startupMs the part of {@code timeToServeMs} that is an inference replica's start-up (its
 *     container granted to its health check answered), milliseconds; null (absent) when the
 *     controller measured none (a demand source that sees no replicas), or is older than this
 *     field: then {@code timeToServeMs} is the reclaim alone
 */
public record LoanDemand(
    double rateRps,
    double forecastRps,
    int serversNeeded,
    long timeToServeMs,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long startupMs) {
  /** The fields there are, each required but {@link #OPTIONAL_FIELDS}. */
  public static final Set<String> FIELDS =
      Set.of("rateRps", "forecastRps", "serversNeeded", "timeToServeMs", "startupMs");

  /** The fields a demand may leave out. */
  public static final Set<String> OPTIONAL_FIELDS = Set.of("startupMs");

  /** Largest rate taken, requests per second. */
  public static final double MAX_RPS = 1e9;

  /** Most servers a demand may need. */
  public static final int MAX_SERVERS = 1_000_000;

  /** Longest time to serve, milliseconds (a day). */
  public static final long MAX_TIME_TO_SERVE_MS = 24 * 3_600_000L;

  public LoanDemand {
    rate("rateRps", rateRps);
    rate("forecastRps", forecastRps);
    if (serversNeeded < 0 || serversNeeded > MAX_SERVERS) {
      throw new IllegalArgumentException(
          "demand.serversNeeded must be in [0, " + MAX_SERVERS + "], was " + serversNeeded);
    }
    if (timeToServeMs < 0 || timeToServeMs > MAX_TIME_TO_SERVE_MS) {
      throw new IllegalArgumentException(
          "demand.timeToServeMs must be in [0, "
              + MAX_TIME_TO_SERVE_MS
              + "], was "
              + timeToServeMs);
    }
    if (startupMs != null && (startupMs < 0 || startupMs > timeToServeMs)) {
      throw new IllegalArgumentException(
          "demand.startupMs must be in [0, timeToServeMs=" + timeToServeMs + "], was " + startupMs);
    }
  }

  /** A demand that does not say how much of its time to serve is a replica's start-up. */
  public LoanDemand(double rateRps, double forecastRps, int serversNeeded, long timeToServeMs) {
    this(rateRps, forecastRps, serversNeeded, timeToServeMs, null);
  }

  /** The reclaim's part of {@link #timeToServeMs}: all of it when no start-up is said. */
  public long reclaimMs() {
    return startupMs == null ? timeToServeMs : timeToServeMs - startupMs;
  }

  private static void rate(String field, double v) {
    if (!(v >= 0 && v <= MAX_RPS)) {
      throw new IllegalArgumentException(
          "demand." + field + " must be a rate in [0, " + (long) MAX_RPS + "], was " + v);
    }
  }

  /**
   * The demand in {@code node}: a JSON object with {@link #FIELDS} only, each but {@link
   * #OPTIONAL_FIELDS} present, the rates numbers in [0, {@link #MAX_RPS}], {@code serversNeeded} an
   * integer in [0, {@link #MAX_SERVERS}], {@code timeToServeMs} an integer in [0, {@link
   * #MAX_TIME_TO_SERVE_MS}], {@code startupMs}, when present, an integer in [0, {@code
   * timeToServeMs}].
   *
   * @throws BadRequestException naming the field ({@code demand.<field>}) and the value
   */
  static LoanDemand parse(JsonNode node) throws BadRequestException {
    if (!node.isObject()) {
      throw new BadRequestException(
          "demand must be an object with "
              + String.join(", ", new TreeSet<>(FIELDS))
              + ", was "
              + shortened(node));
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!FIELDS.contains(f)) {
        throw new BadRequestException(
            "unknown field 'demand."
                + f
                + "'; its fields are "
                + String.join(", ", new TreeSet<>(FIELDS)));
      }
    }
    double rate = number(node, "rateRps");
    double forecast = number(node, "forecastRps");
    long servers = integer(node, "serversNeeded", MAX_SERVERS);
    long tts = integer(node, "timeToServeMs", MAX_TIME_TO_SERVE_MS);
    Long startup =
        node.get("startupMs") == null || node.get("startupMs").isNull()
            ? null
            : integer(node, "startupMs", tts);
    return new LoanDemand(rate, forecast, (int) servers, tts, startup);
  }

  private static double number(JsonNode node, String field) throws BadRequestException {
    JsonNode v = node.get(field);
    if (v == null || !v.isNumber() || !(v.asDouble() >= 0) || v.asDouble() > MAX_RPS) {
      throw new BadRequestException(
          "demand."
              + field
              + " must be a rate in [0, "
              + (long) MAX_RPS
              + "] requests/s, was "
              + shortened(v));
    }
    return v.asDouble();
  }

  private static long integer(JsonNode node, String field, long max) throws BadRequestException {
    JsonNode v = node.get(field);
    if (v == null
        || !v.isIntegralNumber()
        || !v.canConvertToLong()
        || v.asLong() < 0
        || v.asLong() > max) {
      throw new BadRequestException(
          "demand." + field + " must be an integer in [0, " + max + "], was " + shortened(v));
    }
    return v.asLong();
  }

  private static String shortened(JsonNode v) {
    if (v == null) {
      return "missing";
    }
    String s = v.toString();
    return s.length() <= 80 ? s : s.substring(0, 80) + "...";
  }
}
