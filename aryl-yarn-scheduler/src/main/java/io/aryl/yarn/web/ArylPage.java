package io.aryl.yarn.web;

import static io.aryl.yarn.web.Html.esc;
import static io.aryl.yarn.web.Html.link;
import static io.aryl.yarn.web.Html.names;
import static io.aryl.yarn.web.Html.orEmpty;

import io.aryl.api.ArylPaths;
import io.aryl.api.status.HistorySample;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.yarn.rm.StatusHistory;
import java.time.Instant;
import java.util.List;
import java.util.function.Predicate;

/**
 * Aryl's page for operators, as HTML: the pools as node tiles, the loan target beside the inference
 * demand it was decided on, reclaims in flight and the last ones, the elastic applications'
 * workers, and charts of the last hours. A pure function of the status ({@link SchedulerStatus})
 * and the {@link StatusHistory}; everything is server-rendered (tables, CSS tiles, inline SVG
 * charts), readable without JavaScript, and reloads itself every {@link #REFRESH_S} seconds. Every
 * value from the status is escaped ({@link Html}).
 *
 * <p>This class draws the document around the sections: head and style, the links to the RM's
 * pages, the summary line, the recovery warning and the footer. The sections are drawn by {@link
 * PoolTiles}, {@link LoanSection}, {@link ReclaimTables}, {@link ApplicationsTable} and {@link
 * HistoryCharts}, each from the status's typed records.
 */
public final class ArylPage {
  /** Seconds between the page's reloads. */
  public static final int REFRESH_S = 10;

  /**
   * What the page is drawn from.
   *
   * @param status the status as {@code GET /ws/v1/cluster/aryl} answers it
   * @param history the charts' samples, oldest first
   * @param nowMs when the page is drawn (the charts' last point)
   * @param inferenceLabel the inference pool's label
   * @param trainingLabel the training pool's label
   * @param mayView whether the caller may see an application (the RM's filter of entity lists by
   *     user)
   */
  public record Inputs(
      SchedulerStatus status,
      List<HistorySample> history,
      long nowMs,
      String inferenceLabel,
      String trainingLabel,
      Predicate<String> mayView) {}

  private ArylPage() {}

  /** The page. */
  public static String render(Inputs in) {
    StringBuilder h = new StringBuilder(16 * 1024);
    SchedulerStatus s = in.status();
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta http-equiv=\"refresh\" content=\"")
        .append(REFRESH_S)
        .append("\">")
        .append("<title>Aryl - GPU pools</title><style>")
        .append(CSS)
        .append("</style></head><body>\n");
    h.append("<header><h1>Aryl</h1><nav>")
        .append(link("/cluster/scheduler", "Scheduler"))
        .append(link("/cluster/nodes", "Nodes"))
        .append(link("/cluster/nodelabels", "Node labels"))
        .append(link("/cluster/apps", "Applications"))
        .append(link(ArylPaths.STATUS, "Status (JSON)"))
        .append(link(ArylPaths.HISTORY, "History (JSON)"))
        .append("</nav></header>\n");
    if (!s.enabled()) {
      h.append(
          "<p id=\"off\">Aryl is not running in this ResourceManager (off, or this one is not active).</p>");
      return h.append("</body></html>\n").toString();
    }
    h.append("<p id=\"summary\">Round ")
        .append(esc(s.round()))
        .append(" &middot; ")
        .append(orEmpty(s.loanedNodes()).size())
        .append(" node(s) on loan &middot; ")
        .append(orEmpty(s.reclaimsInFlight()).size())
        .append(" reclaim(s) in flight &middot; drawn ")
        .append(esc(Html.TIME.format(Instant.ofEpochMilli(in.nowMs()))))
        .append(", reloads every ")
        .append(REFRESH_S)
        .append(" s</p>\n");
    if (s.recovery() != null && s.recovery().recovering()) {
      h.append(
              "<p class=\"warn\" id=\"recovering\">Recovering after the ResourceManager became active: waiting for ")
          .append(names(s.recovery().waitingForNodes()))
          .append("</p>\n");
    }
    new PoolTiles(orEmpty(s.nodes()), in.inferenceLabel(), in.trainingLabel()).appendTo(h);
    new LoanSection(s.loanTarget()).appendTo(h);
    ReclaimTables reclaims = new ReclaimTables(in.mayView());
    reclaims.appendInFlight(h, orEmpty(s.reclaimsInFlight()), in.nowMs());
    reclaims.appendDone(h, orEmpty(s.reclaimsDone()));
    new ApplicationsTable(orEmpty(s.applications()), in.mayView()).appendTo(h);
    HistoryCharts.of(in.history(), s, in.nowMs(), in.inferenceLabel(), in.trainingLabel())
        .appendTo(h);
    h.append(
            "<footer>Tables and tiles need no JavaScript; the charts are SVG drawn by the ResourceManager from "
                + "samples kept in its memory (one a minute, the last ")
        .append(StatusHistory.CAPACITY / 60)
        .append(" hours).</footer>\n");
    return h.append("</body></html>\n").toString();
  }

  private static final String CSS =
      String.join(
          "",
          "body{font-family:system-ui,sans-serif;margin:0 1.5em 1.5em;color:#222;background:#fafafa}",
          "header{display:flex;align-items:baseline;gap:2em;border-bottom:2px solid #1b5e20}",
          "header h1{margin:.3em 0;color:#1b5e20}nav a{margin-right:1em}",
          "h2{font-size:1.2em;margin:1.2em 0 .4em}h3{font-size:1em;margin:.6em 0}h3 small{font-weight:normal;color:#555}",
          ".tiles{display:flex;flex-wrap:wrap;gap:.6em}",
          ".tile{border:1px solid #bbb;border-radius:6px;background:#fff;padding:.5em .7em;width:15em}",
          ".tile.loaned{border-color:#e65100;background:#fff3e0}.tile.fenced{border:2px dashed #b71c1c}",
          ".tile .name{font-weight:bold;word-break:break-all}.badge{font-size:.8em;padding:0 .4em;border-radius:3px;",
          "margin-right:.3em;color:#fff}.badge.loan{background:#e65100}.badge.fence{background:#b71c1c}",
          "dl{display:grid;grid-template-columns:auto 1fr;gap:0 .6em;margin:.4em 0;font-size:.9em}dt{color:#666}dd{margin:0}",
          ".bar{height:6px;background:#e0e0e0;border-radius:3px}.bar span{display:block;height:6px;background:#2e7d32;",
          "border-radius:3px}",
          "table{border-collapse:collapse;background:#fff}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;",
          "vertical-align:top}th{background:#eee}td ul{margin:0;padding-left:1em}",
          "td.left.late,.warn{color:#b71c1c}.differs{font-weight:bold;color:#e65100}.none{color:#777}",
          "td.below-max{max-width:28em;font-size:.9em}",
          ".charts{display:flex;flex-wrap:wrap;gap:1em}.chart{margin:0;background:#fff;border:1px solid #ccc;padding:.4em}",
          "figcaption{font-weight:bold}.axis{stroke:#444}.tick{font-size:10px;fill:#555}",
          "polyline{fill:none;stroke-width:2}.s0{stroke:#e65100;fill:#e65100}.s1{stroke:#6a1b9a;fill:#6a1b9a}",
          ".s2{stroke:#1565c0;fill:#1565c0}.s3{stroke:#2e7d32;fill:#2e7d32}polyline.s0,polyline.s1,polyline.s2,",
          "polyline.s3{fill:none}.key{display:inline-block;width:.8em;height:.8em;margin-right:.2em}",
          ".key.s0{background:#e65100}.key.s1{background:#6a1b9a}.key.s2{background:#1565c0}.key.s3{background:#2e7d32}",
          ".now{font-size:.9em}footer{margin-top:2em;color:#777;font-size:.85em}");
}
