package io.aryl.am;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * What a worker container's supervisor reports when its worker process exits: {@code POST
 * /exited?container=ID& generation=N&status=S&stopped=0|1} on the AM's status server.
 *
 * @param generation the generation the worker ran ({@code ARYL_GENERATION})
 * @param status the worker's exit status (128 + the signal when a signal ended it)
 * @param stopped whether SIGTERM reached the worker before it exited
 */
public record ExitReport(String container, int generation, int status, boolean stopped) {

  /**
   * Reads the report from a request's query string.
   *
   * @throws IllegalArgumentException naming the parameter and the value
   */
  public static ExitReport fromQuery(String rawQuery) {
    Map<String, String> p = new HashMap<>();
    if (rawQuery != null) {
      for (String pair : rawQuery.split("&", -1)) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          p.put(
              pair.substring(0, eq),
              URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
    }
    String container = p.get("container");
    if (container == null || !container.matches("container_[A-Za-z0-9_]+")) {
      throw new IllegalArgumentException("container must be a container id, was " + container);
    }
    String stopped = p.get("stopped");
    if (!"0".equals(stopped) && !"1".equals(stopped)) {
      throw new IllegalArgumentException("stopped must be 0 or 1, was " + stopped);
    }
    return new ExitReport(
        container, integer(p, "generation"), integer(p, "status"), stopped.equals("1"));
  }

  private static int integer(Map<String, String> p, String name) {
    String v = p.get(name);
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer, was " + v);
    }
  }
}
