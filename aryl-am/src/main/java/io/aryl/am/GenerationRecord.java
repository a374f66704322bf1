package io.aryl.am;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the AM keeps durable about its current generation, so that its next attempt can take the
 * workers over as they run: the generation (ranks, hosts, master address and port, number), the
 * attempt that started it, and whether every member's process was started and none has been stopped
 * or signalled since. As JSON:
 *
 * <pre>
 * {"format": 1, "generation": 3, "attempt": 1, "running": true, "masterAddr": "h1", "masterPort": 23456,
 *  "workers": [{"container": "container_..._000002", "host": "h1", "rank": 0}, ...]}</pre>
 *
 * @param attempt the ApplicationMaster attempt that started the generation
 * @param running true once every member's (re)start was accepted by its NodeManager, false while
 *     they are being started and again once one is signalled or parked: only a running generation
 *     can be adopted
 */
public record GenerationRecord(Generation generation, int attempt, boolean running) {
  static final int FORMAT = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @throws IllegalArgumentException naming the field and the value
   */
  public GenerationRecord {
    if (generation == null) {
      throw new IllegalArgumentException("generation must not be null");
    }
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
    }
  }

  public GenerationRecord withRunning(boolean nowRunning) {
    return new GenerationRecord(generation, attempt, nowRunning);
  }

  public byte[] toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("generation", generation.number());
    root.put("attempt", attempt);
    root.put("running", running);
    root.put("masterAddr", generation.masterAddr());
    root.put("masterPort", generation.masterPort());
    ArrayNode workers = root.putArray("workers");
    generation
        .ranks()
        .forEach(
            (id, rank) ->
                workers
                    .addObject()
                    .put("container", id)
                    .put("host", generation.hosts().get(id))
                    .put("rank", rank));
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads a record written by {@link #toJson}; nothing is guessed or defaulted.
   *
   * @throws IllegalArgumentException naming the field and the value when the text is not such a
   *     record
   */
  public static GenerationRecord fromJson(byte[] json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
    }
    if (root == null || root.isMissingNode()) {
      throw new IllegalArgumentException("is empty");
    }
    if (!root.isObject()) {
      throw new IllegalArgumentException("must be a JSON object, was " + root);
    }
    int format = intField(root, "format");
    if (format != FORMAT) {
      throw new IllegalArgumentException("format must be " + FORMAT + ", was " + format);
    }
    JsonNode running = root.get("running");
    if (running == null || !running.isBoolean()) {
      throw new IllegalArgumentException("running must be true or false, was " + running);
    }
    JsonNode workers = root.get("workers");
    if (workers == null || !workers.isArray()) {
      throw new IllegalArgumentException("workers must be an array, was " + workers);
    }
    int number = intField(root, "generation");
    Map<String, Integer> ranks = new LinkedHashMap<>();
    Map<String, String> hosts = new LinkedHashMap<>();
    for (JsonNode w : workers) {
      if (!w.isObject()) {
        throw new IllegalArgumentException(
            "workers[" + ranks.size() + "] must be an object, was " + w);
      }
      String id = textField(w, "container");
      if (ranks.put(id, intField(w, "rank")) != null) {
        throw new IllegalArgumentException("workers: container " + id + " appears twice");
      }
      hosts.put(id, textField(w, "host"));
    }
    Generation g =
        new Generation(
            number, ranks, hosts, textField(root, "masterAddr"), intField(root, "masterPort"));
    return new GenerationRecord(g, intField(root, "attempt"), running.booleanValue());
  }

  private static int intField(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null || !v.isInt()) {
      throw new IllegalArgumentException(field + " must be an integer, was " + v);
    }
    return v.intValue();
  }

  private static String textField(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null || !v.isTextual() || v.textValue().isBlank()) {
      throw new IllegalArgumentException(field + " must be a non-empty string, was " + v);
    }
    return v.textValue();
  }
}
