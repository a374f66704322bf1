package io.aryl.labels;

import io.aryl.core.model.Checks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol;
import org.apache.hadoop.yarn.server.api.protocolrecords.AddToClusterNodeLabelsRequest;
import org.apache.hadoop.yarn.server.api.protocolrecords.ReplaceLabelsOnNodeRequest;

/**
 * {@code aryl-labels init}: creates the two exclusive labels if missing and puts each named node in
 * its pool. Idempotent: labels that exist and nodes already labelled are left alone. Refuses,
 * before changing anything, a node the ResourceManager does not know, a label that exists but is
 * not exclusive, and a node named for both pools.
 */
public final class LabelBootstrap {
  private final YarnClient client;
  private final ResourceManagerAdministrationProtocol admin;
  private final String inferenceLabel;
  private final String trainingLabel;

  public LabelBootstrap(
      YarnClient client,
      ResourceManagerAdministrationProtocol admin,
      String inferenceLabel,
      String trainingLabel) {
    this.client = Checks.notNull("client", client);
    this.admin = Checks.notNull("admin", admin);
    this.inferenceLabel = Checks.notBlank("inferenceLabel", inferenceLabel);
    this.trainingLabel = Checks.notBlank("trainingLabel", trainingLabel);
  }

  /** What {@link #init} did. */
  public record Result(
      List<String> labelsCreated, Map<String, String> relabelled, Map<String, String> unchanged) {}

  /**
   * Reads a hosts file: one node per line, {@code <node> <pool>} with pool {@code inference} or
   * {@code training} (or the configured label names); {@code #} starts a comment.
   */
  public Map<String, String> readHostsFile(Path file) throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    int lineNo = 0;
    for (String raw : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      lineNo++;
      String line = raw.replaceFirst("#.*", "").trim();
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\\s+", -1);
      if (f.length != 2) {
        throw new IllegalArgumentException(
            file + " line " + lineNo + ": expected '<node> <pool>', was '" + raw + "'");
      }
      String label = label(f[1]);
      if (label == null) {
        throw new IllegalArgumentException(
            file
                + " line "
                + lineNo
                + ": pool must be "
                + inferenceLabel
                + " or "
                + trainingLabel
                + ", was '"
                + f[1]
                + "'");
      }
      String before = out.put(f[0], label);
      if (before != null && !before.equals(label)) {
        throw new IllegalArgumentException(
            file + " line " + lineNo + ": node " + f[0] + " named for both pools");
      }
    }
    return out;
  }

  /** Every node the ResourceManager knows whose name matches a pattern goes to that pool. */
  public Map<String, String> fromPatterns(String inferencePattern, String trainingPattern)
      throws Exception {
    Map<String, String> out = new TreeMap<>();
    List<String> known = knownNodes();
    for (String[] p :
        List.of(
            new String[] {inferencePattern, inferenceLabel},
            new String[] {trainingPattern, trainingLabel})) {
      if (p[0] == null || p[0].isBlank()) {
        continue;
      }
      Pattern pattern = Pattern.compile(p[0]);
      int matched = 0;
      for (String n : known) {
        if (pattern.matcher(n).matches()) {
          matched++;
          String before = out.put(n, p[1]);
          if (before != null && !before.equals(p[1])) {
            throw new IllegalArgumentException(
                "node " + n + " matches both the inference and the training pattern");
          }
        }
      }
      if (matched == 0) {
        throw new IllegalArgumentException(
            "pattern '"
                + p[0]
                + "' for "
                + p[1]
                + " matches none of the "
                + known.size()
                + " nodes the ResourceManager knows: "
                + known);
      }
    }
    return out;
  }

  /** Creates the labels if missing and labels the nodes of {@code pools} (node name to label). */
  public Result init(Map<String, String> pools) throws Exception {
    Map<String, NodeReport> known = new HashMap<>();
    for (NodeReport r : client.getNodeReports()) {
      known.put(r.getNodeId().toString(), r);
    }
    Set<String> unknown = new TreeSet<>(pools.keySet());
    unknown.removeAll(known.keySet());
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "unknown node(s) "
              + unknown
              + ": not among the "
              + known.size()
              + " nodes the ResourceManager knows "
              + new TreeSet<>(known.keySet())
              + " (name nodes host:port as the ResourceManager reports them; nothing was changed)");
    }
    for (Map.Entry<String, String> e : pools.entrySet()) {
      if (!e.getValue().equals(inferenceLabel) && !e.getValue().equals(trainingLabel)) {
        throw new IllegalArgumentException(
            "node "
                + e.getKey()
                + ": label must be "
                + inferenceLabel
                + " or "
                + trainingLabel
                + ", was "
                + e.getValue());
      }
    }
    List<String> created = new ArrayList<>();
    Map<String, Boolean> existing = new HashMap<>();
    for (NodeLabel l : client.getClusterNodeLabels()) {
      existing.put(l.getName(), l.isExclusive());
    }
    List<NodeLabel> toAdd = new ArrayList<>();
    for (String label : List.of(inferenceLabel, trainingLabel)) {
      Boolean exclusive = existing.get(label);
      if (exclusive == null) {
        toAdd.add(NodeLabel.newInstance(label, true));
        created.add(label);
      } else if (!exclusive) {
        throw new IllegalStateException(
            "label "
                + label
                + " exists but is not exclusive; exclusivity is fixed when a"
                + " label is created: remove it (yarn rmadmin -removeFromClusterNodeLabels "
                + label
                + ") and run init"
                + " again (nothing was changed)");
      }
    }
    if (!toAdd.isEmpty()) {
      admin.addToClusterNodeLabels(AddToClusterNodeLabelsRequest.newInstance(toAdd));
    }
    Map<NodeId, Set<String>> replace = new HashMap<>();
    Map<String, String> relabelled = new TreeMap<>();
    Map<String, String> unchanged = new TreeMap<>();
    for (Map.Entry<String, String> e : pools.entrySet()) {
      NodeReport r = known.get(e.getKey());
      Set<String> now = r.getNodeLabels() == null ? Set.of() : r.getNodeLabels();
      if (now.equals(Set.of(e.getValue()))) {
        unchanged.put(e.getKey(), e.getValue());
      } else {
        replace.put(r.getNodeId(), Set.of(e.getValue()));
        relabelled.put(e.getKey(), e.getValue());
      }
    }
    if (!replace.isEmpty()) {
      admin.replaceLabelsOnNode(ReplaceLabelsOnNodeRequest.newInstance(replace));
    }
    return new Result(created, relabelled, unchanged);
  }

  private List<String> knownNodes() throws Exception {
    List<String> out = new ArrayList<>();
    for (NodeReport r : client.getNodeReports()) {
      out.add(r.getNodeId().toString());
    }
    out.sort(null);
    return out;
  }

  private String label(String pool) {
    if (pool.equals(inferenceLabel) || pool.equals("inference")) {
      return inferenceLabel;
    }
    if (pool.equals(trainingLabel) || pool.equals("training")) {
      return trainingLabel;
    }
    return null;
  }
}
