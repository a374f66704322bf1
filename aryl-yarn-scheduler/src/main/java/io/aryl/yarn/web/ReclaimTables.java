package io.aryl.yarn.web;

import static io.aryl.yarn.web.Html.esc;
import static io.aryl.yarn.web.Html.link;
import static io.aryl.yarn.web.Html.names;
import static io.aryl.yarn.web.Html.seconds;
import static io.aryl.yarn.web.Html.time;

import io.aryl.api.status.ReclaimStatus;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The page's two reclaim sections: {@code #reclaims-in-flight} (each reclaim still draining, its
 * deadline and the time left) and {@code #reclaims-done} (the last reclaims, newest first, how long
 * each took and whether it was late). Both list the jobs a reclaim drained, each linked to the RM's
 * page of the application; the applications the caller may not view are only counted.
 *
 * @param mayView whether the caller may see an application
 */
record ReclaimTables(Predicate<String> mayView) {

  /** {@code #reclaims-in-flight}; {@code nowMs} is what the time left is counted from. */
  void appendInFlight(StringBuilder h, List<ReclaimStatus> reclaims, long nowMs) {
    h.append("<section id=\"reclaims-in-flight\"><h2>Reclaims in flight</h2>\n");
    if (reclaims.isEmpty()) {
      h.append("<p class=\"none\">none</p></section>\n");
      return;
    }
    h.append(
        "<table><thead><tr><th>id</th><th>phase</th><th>nodes</th><th>requested</th><th>deadline</th>"
            + "<th>left</th><th>jobs drained</th><th>containers shrunk</th><th>containers preempted</th>"
            + "<th>returned</th></tr></thead><tbody>\n");
    for (ReclaimStatus r : reclaims) {
      long deadline = r.deadlineMs();
      long left = deadline - nowMs;
      appendWhatWasAsked(h, r);
      h.append("<td class=\"deadline\" data-deadline-ms=\"")
          .append(deadline)
          .append("\">")
          .append(time(deadline))
          .append("</td><td class=\"left")
          .append(left < 0 ? " late" : "")
          .append("\">")
          .append(left >= 0 ? (left / 1000) + " s" : (-left / 1000) + " s late")
          .append("</td>");
      appendWhatItDid(h, r);
      h.append("<td>").append(names(r.returnedNodes())).append("</td></tr>\n");
    }
    h.append("</tbody></table></section>\n");
  }

  /** {@code #reclaims-done}; {@code reclaims} oldest first, as the status lists them. */
  void appendDone(StringBuilder h, List<ReclaimStatus> reclaims) {
    h.append("<section id=\"reclaims-done\"><h2>Last reclaims</h2>\n");
    if (reclaims.isEmpty()) {
      h.append("<p class=\"none\">none yet</p></section>\n");
      return;
    }
    h.append(
        "<table><thead><tr><th>id</th><th>phase</th><th>nodes</th><th>requested</th><th>took</th><th>late</th>"
            + "<th>jobs drained</th><th>containers shrunk</th><th>containers preempted</th><th>short by</th>"
            + "</tr></thead><tbody>\n");
    for (int i = reclaims.size() - 1; i >= 0; i--) {
      ReclaimStatus r = reclaims.get(i);
      boolean late = r.late();
      appendWhatWasAsked(h, r);
      h.append("<td class=\"took\">")
          .append(seconds(r.tookMs()))
          .append("</td><td class=\"late")
          .append(late ? " warn" : "")
          .append("\">")
          .append(late ? "late" : "on time")
          .append("</td>");
      appendWhatItDid(h, r);
      h.append("<td>").append(r.shortBy()).append("</td></tr>\n");
    }
    h.append("</tbody></table></section>\n");
  }

  /** A reclaim's row opens alike in both tables: its id, phase, nodes and when it was asked. */
  private static void appendWhatWasAsked(StringBuilder h, ReclaimStatus r) {
    h.append("<tr data-reclaim=\"")
        .append(r.id())
        .append("\"><td class=\"id\">")
        .append(r.id())
        .append("</td><td class=\"phase\">")
        .append(esc(r.phase()))
        .append("</td><td class=\"nodes\">")
        .append(names(r.nodes()))
        .append("</td><td>")
        .append(time(r.requestedMs()))
        .append("</td>");
  }

  /** What a reclaim did to the jobs on its nodes, the same three cells in both tables. */
  private void appendWhatItDid(StringBuilder h, ReclaimStatus r) {
    h.append("<td class=\"jobs\">")
        .append(drainedJobs(r.jobs()))
        .append("</td><td class=\"shrunk\">")
        .append(r.containersShrunk())
        .append("</td><td class=\"preempted\">")
        .append(r.containersPreempted())
        .append("</td>");
  }

  /**
   * The jobs a reclaim drained, by application id, each with what the reclaim did to it; those the
   * caller may not view as a count.
   */
  private String drainedJobs(Map<String, ReclaimStatus.Action> jobs) {
    if (jobs.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder("<ul>");
    int hidden = 0;
    for (Map.Entry<String, ReclaimStatus.Action> e : new TreeMap<>(jobs).entrySet()) {
      String id = e.getKey();
      if (!mayView.test(id)) {
        hidden++;
        continue;
      }
      b.append("<li data-application=\"")
          .append(esc(id))
          .append("\">")
          .append(link("/cluster/app/" + id, id))
          .append(": <span class=\"action\">")
          .append(esc(e.getValue()))
          .append("</span></li>");
    }
    if (hidden > 0) {
      b.append("<li>").append(hidden).append(" other application(s)</li>");
    }
    return b.append("</ul>").toString();
  }
}
