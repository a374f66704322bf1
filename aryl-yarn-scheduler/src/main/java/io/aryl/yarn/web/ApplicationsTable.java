package io.aryl.yarn.web;

import static io.aryl.yarn.web.Html.esc;
import static io.aryl.yarn.web.Html.link;
import static io.aryl.yarn.web.Html.str;

import io.aryl.api.status.ApplicationStatus;
import java.util.List;
import java.util.function.Predicate;

/**
 * The page's {@code #applications} section: each elastic application the caller may view, linked to
 * the RM's page of it, with its team, its min / target / actual / max workers (actual marked when
 * it differs from the target), why the last round runs it below its maximum (the status's {@code
 * belowMaxBecause}, so that "why does my job run 6 of 8" is answered beside the numbers; empty at
 * its maximum and while it waits), the workers it asks for, its GPUs per worker and the last
 * round's change. The applications the caller may not view are only counted.
 *
 * @param applications the status's {@code applications}
 * @param mayView whether the caller may see an application
 */
record ApplicationsTable(List<ApplicationStatus> applications, Predicate<String> mayView) {

  void appendTo(StringBuilder h) {
    h.append("<section id=\"applications\"><h2>Elastic applications</h2>\n");
    List<ApplicationStatus> shown =
        applications.stream().filter(a -> mayView.test(str(a.application()))).toList();
    if (shown.isEmpty()) {
      h.append("<p class=\"none\">none</p>");
    } else {
      h.append(
          "<table><thead><tr><th>application</th><th>team</th><th>min</th><th>target</th>"
              + "<th>actual</th><th>max</th><th>why below max</th><th>asked</th>"
              + "<th>GPUs per worker</th><th>change</th></tr></thead><tbody>\n");
      for (ApplicationStatus a : shown) {
        row(h, a);
      }
      h.append("</tbody></table>");
    }
    if (shown.size() < applications.size()) {
      h.append("<p class=\"hidden-apps\">")
          .append(applications.size() - shown.size())
          .append(" application(s) you may not view are not listed.</p>");
    }
    h.append("</section>\n");
  }

  private static void row(StringBuilder h, ApplicationStatus a) {
    String id = str(a.application());
    int actual = a.actualWorkers();
    int target = a.targetWorkers();
    h.append("<tr data-application=\"")
        .append(esc(id))
        .append("\"><td class=\"application\">")
        .append(link("/cluster/app/" + id, id))
        .append("</td><td class=\"team\">")
        .append(esc(a.team()))
        .append("</td><td class=\"min\">")
        .append(a.minWorkers())
        .append("</td><td class=\"target\">")
        .append(target)
        .append("</td><td class=\"actual")
        .append(actual != target ? " differs" : "")
        .append("\">")
        .append(actual)
        .append("</td><td class=\"max\">")
        .append(a.maxWorkers())
        .append("</td><td class=\"below-max\">")
        .append(esc(a.belowMaxBecause()))
        .append("</td><td class=\"asked\">")
        .append(a.askedWorkers())
        .append("</td><td>")
        .append(a.gpusPerWorker())
        .append("</td><td class=\"change\">")
        .append(esc(a.change()))
        .append("</td></tr>\n");
  }
}
