package io.aryl.am;

import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The partition the job's ApplicationMaster runs in ({@code --am-node-label}, default {@link
 * AmKeys#AM_NODE_LABEL}). The AM takes memory and vcores, no GPU, so its best place is the default
 * partition, where a reclaim never takes it away; but a cluster whose every node is labelled has no
 * default partition to speak of, and YARN leaves an AM asked there ACCEPTED for good, saying only
 * {@code AM Partition = <DEFAULT_PARTITION> ; Partition Resource = <memory:0, vCores:0>}. Hence:
 *
 * <ul>
 *   <li>{@value #AUTO}: the default partition when a NodeManager runs there, else the partition the
 *       job's workers go to (its queue's default label, the training pool);
 *   <li>{@code ""}: the default partition; any other value: that node label;
 *   <li>either way, a partition in which no NodeManager runs is refused before submitting, saying
 *       what to set instead: an AM there would never start.
 * </ul>
 *
 * Nodes are the RUNNING ones the ResourceManager reports now.
 */
final class AmPartition {
  /** The value that lets the client choose (the default). */
  static final String AUTO = AmKeys.AM_NODE_LABEL_AUTO;

  private AmPartition() {}

  /**
   * @param asked {@code --am-node-label}, or the configured default: {@value #AUTO}, {@code ""}
   *     (the default partition) or a node label
   * @param workerLabel the partition the workers go to (the queue's default label; "" is the
   *     default partition)
   * @param nodes the running nodes
   * @return the node label expression of the AM's container ("" is the default partition)
   * @throws IllegalArgumentException naming the option, the value and what to set instead, when no
   *     NodeManager runs in the chosen partition
   */
  static String choose(String asked, String workerLabel, List<GangFitCheck.Node> nodes) {
    String value = Objects.requireNonNullElse(asked, AUTO).trim();
    String workers = Objects.requireNonNullElse(workerLabel, "").trim();
    boolean auto = value.equalsIgnoreCase(AUTO);
    String label = auto ? (runs(nodes, "") || workers.isEmpty() ? "" : workers) : value;
    if (runs(nodes, label)) {
      return label;
    }
    TreeSet<String> running = new TreeSet<>();
    nodes.forEach(n -> running.add(name(n.label())));
    String where =
        "no NodeManager runs in "
            + name(label)
            + (auto && !label.equals("") ? " nor in " + name("") : "")
            + (running.isEmpty()
                ? " (none runs at all)"
                : " (NodeManagers run in " + String.join(", ", running) + ")");
    String instead;
    if (running.isEmpty()) {
      instead = "start a NodeManager, then submit again";
    } else if (!workers.isEmpty() && runs(nodes, workers)) {
      instead =
          "use --am-node-label "
              + AUTO
              + " (or "
              + workers
              + ") to run it in the workers' partition, or set "
              + AmKeys.AM_NODE_LABEL
              + "="
              + AUTO;
    } else {
      instead = "use --am-node-label with a partition where a NodeManager runs";
    }
    throw new IllegalArgumentException(
        "--am-node-label "
            + (auto ? AUTO : value.isEmpty() ? "''" : value)
            + ": "
            + where
            + ", so the job's ApplicationMaster would never start; "
            + instead);
  }

  private static boolean runs(List<GangFitCheck.Node> nodes, String label) {
    return nodes.stream().anyMatch(n -> n.label().equals(label));
  }

  /** A partition as a person reads it. */
  static String name(String label) {
    return label.isEmpty() ? "the default partition" : "partition '" + label + "'";
  }
}
