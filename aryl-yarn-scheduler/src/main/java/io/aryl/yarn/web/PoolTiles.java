package io.aryl.yarn.web;

import static io.aryl.yarn.web.Html.esc;
import static io.aryl.yarn.web.Html.link;
import static io.aryl.yarn.web.Html.str;

import io.aryl.api.status.NodeStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The page's {@code #pools} section: one box per node label, the inference and training pools first
 * (shown even without a node), then the default partition and any other label that has nodes; in
 * each, one tile per node with its owner, label, on-loan and fenced badges, GPUs used and GPU type.
 * A node lent to training carries the training label, so its tile is in the pool it serves.
 *
 * <p>The unlabelled nodes belong to neither pool (their owner is {@code -}) and their box is named
 * "default partition", not a pool's name. They are shown rather than left out because they hold
 * every job's ApplicationMaster: an operator asking why a job stays ACCEPTED looks there.
 *
 * @param nodes the status's {@code nodes}
 * @param inferenceLabel the inference pool's label
 * @param trainingLabel the training pool's label
 */
record PoolTiles(List<NodeStatus> nodes, String inferenceLabel, String trainingLabel) {

  /** The heading of the unlabelled nodes' box. */
  static final String DEFAULT_PARTITION = "default partition";

  void appendTo(StringBuilder h) {
    Map<String, List<NodeStatus>> byLabel = new LinkedHashMap<>();
    byLabel.put(inferenceLabel, new ArrayList<>());
    byLabel.put(trainingLabel, new ArrayList<>());
    if (nodes.stream().anyMatch(n -> str(n.label()).isEmpty())) {
      byLabel.put("", new ArrayList<>());
    }
    for (NodeStatus n : nodes) {
      byLabel.computeIfAbsent(str(n.label()), k -> new ArrayList<>()).add(n);
    }
    h.append("<section id=\"pools\"><h2>Pools</h2>\n");
    for (Map.Entry<String, List<NodeStatus>> pool : byLabel.entrySet()) {
      List<NodeStatus> inPool = pool.getValue();
      if (inPool.isEmpty()
          && !pool.getKey().equals(inferenceLabel)
          && !pool.getKey().equals(trainingLabel)) {
        continue;
      }
      int used = inPool.stream().mapToInt(NodeStatus::usedGpus).sum();
      int gpus = inPool.stream().mapToInt(NodeStatus::gpus).sum();
      String name = pool.getKey().isEmpty() ? DEFAULT_PARTITION : pool.getKey();
      h.append("<div class=\"pool\" data-pool=\"")
          .append(esc(pool.getKey()))
          .append("\"><h3>")
          .append(esc(name))
          .append(" <small>")
          .append(inPool.size())
          .append(" node(s), ")
          .append(used)
          .append(" / ")
          .append(gpus)
          .append(" GPUs used</small></h3><div class=\"tiles\">\n");
      for (NodeStatus n : inPool) {
        tile(h, n);
      }
      if (inPool.isEmpty()) {
        h.append("<p class=\"none\">no node</p>");
      }
      h.append("</div></div>\n");
    }
    h.append("</section>\n");
  }

  /** One node's tile; its data attributes carry the values the browser tests read. */
  private static void tile(StringBuilder h, NodeStatus n) {
    boolean loaned = n.loaned();
    boolean fenced = n.fenced();
    int used = n.usedGpus();
    int gpus = n.gpus();
    String node = str(n.node());
    h.append("<div class=\"tile")
        .append(loaned ? " loaned" : "")
        .append(fenced ? " fenced" : "")
        .append("\" data-node=\"")
        .append(esc(node))
        .append("\" data-owner=\"")
        .append(esc(n.owner() == null ? "" : n.owner().value()))
        .append("\" data-label=\"")
        .append(esc(n.label()))
        .append("\" data-loaned=\"")
        .append(loaned)
        .append("\" data-fenced=\"")
        .append(fenced)
        .append("\" data-used-gpus=\"")
        .append(used)
        .append("\" data-gpus=\"")
        .append(gpus)
        .append("\">");
    h.append("<div class=\"name\">").append(link("/cluster/nodes", node)).append("</div>");
    h.append("<div class=\"badges\">");
    if (loaned) {
      h.append("<span class=\"badge loan\">on loan</span>");
    }
    if (fenced) {
      h.append("<span class=\"badge fence\">fenced</span>");
    }
    h.append("</div>");
    h.append("<dl><dt>owner</dt><dd class=\"owner\">")
        .append(esc(owner(n)))
        .append("</dd>")
        .append("<dt>label</dt><dd class=\"label\">")
        .append(esc(n.label()))
        .append("</dd>")
        .append("<dt>GPUs used</dt><dd class=\"gpus\">")
        .append(used)
        .append(" / ")
        .append(gpus)
        .append("</dd>")
        .append("<dt>GPU type</dt><dd class=\"type\">")
        .append(
            n.gpuType() == null
                ? "<span class=\"warn\">" + esc(n.gpuTypeError()) + "</span>"
                : esc(n.gpuType()))
        .append("</dd></dl>");
    int pct = gpus == 0 ? 0 : Math.round(100f * used / gpus);
    h.append("<div class=\"bar\" title=\"")
        .append(pct)
        .append("% of GPUs used\"><span style=\"width:")
        .append(pct)
        .append("%\"></span></div></div>\n");
  }

  /** The owner as the status writes it, inference or training; {@code -} for neither pool. */
  private static String owner(NodeStatus n) {
    return n.owner() == null ? "-" : n.owner().value();
  }
}
