package io.aryl.yarn.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The stored state's formats, and how an older one is read: each section's bytes as an older Aryl
 * wrote them become what this one reads. The result is written back at once, under the new claim,
 * so that the old format is read only once.
 *
 * <ul>
 *   <li>1 to 2: the inference nodes ({@code owners}: names) become {@code pools}: each node with
 *       its place, all at HOME — where they really are is the labels', and the first round takes it
 *       from them; a drain's {@code reclaimId}, which held a MOVE's hold-until time, is split into
 *       {@code reclaimId} (RECLAIM only) and {@code holdUntilMs} (MOVE only).
 *   <li>2 to 3: each job gets {@code preemptions}, the times the scheduler stopped it, at 0: no
 *       earlier Aryl counted them, so a job running through the upgrade starts its preemption
 *       budget afresh.
 *   <li>3 to 4: each drain gets {@code stopsJob} at false: format 3 did not say whether a drain was
 *       part of a stop of its whole job, so a drain read from it is re-checked before its kill as
 *       format 3's Aryl did (a reclaim's on its node still being returned, a shrink's on the plan).
 * </ul>
 */
final class StateFormat {
  private static final ObjectMapper JSON = new ObjectMapper();

  private StateFormat() {}

  /**
   * The sections as the current format reads them.
   *
   * @param raw every stored section, by name
   * @param version the format they were written in
   * @return the sections that changed, by name (the caller writes them), and the rest unchanged, in
   *     {@code raw}
   */
  static Map<String, byte[]> upgrade(Map<String, byte[]> raw, int version) throws IOException {
    Map<String, byte[]> changed = new HashMap<>();
    if (version < 2) {
      byte[] owners = raw.remove("owners");
      if (owners != null && !raw.containsKey(Section.POOLS.name())) {
        ObjectNode nodes = JSON.createObjectNode();
        for (JsonNode n : JSON.readTree(owners).path("inference")) {
          nodes.put(n.asText(), InferenceNodes.Place.HOME.name());
        }
        ObjectNode pools = JSON.createObjectNode();
        pools.set("nodes", nodes);
        changed.put(Section.POOLS.name(), JSON.writeValueAsBytes(pools));
      }
      byte[] drains = raw.get(Section.DRAINS.name());
      if (drains != null) {
        JsonNode tree = JSON.readTree(drains);
        if (tree.path("containers") instanceof ArrayNode containers) {
          for (JsonNode c : containers) {
            if (c instanceof ObjectNode drain && !drain.has("holdUntilMs")) {
              boolean move = "MOVE".equals(drain.path("reason").asText());
              drain.put("holdUntilMs", move ? drain.path("reclaimId").asLong() : 0);
              if (move) {
                drain.put("reclaimId", 0);
              }
            }
          }
        }
        changed.put(Section.DRAINS.name(), JSON.writeValueAsBytes(tree));
      }
    }
    if (version < 3) {
      byte[] jobs = raw.get(Section.JOBS.name());
      if (jobs != null) {
        JsonNode tree = JSON.readTree(jobs);
        if (tree.path("jobs") instanceof ObjectNode byId) {
          for (JsonNode job : byId) {
            if (job instanceof ObjectNode record && !record.has("preemptions")) {
              record.put("preemptions", 0);
            }
          }
        }
        changed.put(Section.JOBS.name(), JSON.writeValueAsBytes(tree));
      }
    }
    if (version < 4) {
      byte[] drains = changed.getOrDefault(Section.DRAINS.name(), raw.get(Section.DRAINS.name()));
      if (drains != null) {
        JsonNode tree = JSON.readTree(drains);
        if (tree.path("containers") instanceof ArrayNode containers) {
          for (JsonNode c : containers) {
            if (c instanceof ObjectNode drain && !drain.has("stopsJob")) {
              drain.put("stopsJob", false);
            }
          }
        }
        changed.put(Section.DRAINS.name(), JSON.writeValueAsBytes(tree));
      }
    }
    raw.putAll(changed);
    return changed;
  }
}
