package io.aryl.yarn.web;

import io.aryl.api.ArylPaths;
import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.HistorySample;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.yarn.rm.StatusHistory;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * Aryl's page for operators, as HTML: the pools as node tiles, reclaims in flight and the last
 * ones, the elastic applications' workers, and charts of the last hours. A pure function of the
 * status ({@link SchedulerStatus}) and the {@link StatusHistory}; everything is server-rendered
 * (tables, CSS tiles, inline SVG charts), readable without JavaScript, and reloads itself every
 * {@link #REFRESH_S} seconds. Every value from the status is escaped.
 */
public final class ArylPage {
  /** Seconds between the page's reloads. */
  public static final int REFRESH_S = 10;

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

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
        .append(esc(TIME.format(Instant.ofEpochMilli(in.nowMs()))))
        .append(", reloads every ")
        .append(REFRESH_S)
        .append(" s</p>\n");
    if (s.recovery() != null && s.recovery().recovering()) {
      h.append(
              "<p class=\"warn\" id=\"recovering\">Recovering after the ResourceManager became active: waiting for ")
          .append(names(s.recovery().waitingForNodes()))
          .append("</p>\n");
    }
    pools(h, in);
    reclaimsInFlight(h, in);
    reclaimsDone(h, in);
    applications(h, in);
    charts(h, in);
    h.append(
            "<footer>Tables and tiles need no JavaScript; the charts are SVG drawn by the ResourceManager from "
                + "samples kept in its memory (one a minute, the last ")
        .append(StatusHistory.CAPACITY / 60)
        .append(" hours).</footer>\n");
    return h.append("</body></html>\n").toString();
  }

  // ---------------------------------------------------------------------------------------------------------------

  private static void pools(StringBuilder h, Inputs in) {
    Map<String, List<NodeStatus>> byLabel = new LinkedHashMap<>();
    byLabel.put(in.inferenceLabel(), new ArrayList<>());
    byLabel.put(in.trainingLabel(), new ArrayList<>());
    for (NodeStatus n : orEmpty(in.status().nodes())) {
      byLabel.computeIfAbsent(str(n.label()), k -> new ArrayList<>()).add(n);
    }
    h.append("<section id=\"pools\"><h2>Pools</h2>\n");
    for (Map.Entry<String, List<NodeStatus>> pool : byLabel.entrySet()) {
      List<NodeStatus> nodes = pool.getValue();
      if (nodes.isEmpty()
          && !pool.getKey().equals(in.inferenceLabel())
          && !pool.getKey().equals(in.trainingLabel())) {
        continue;
      }
      int used = nodes.stream().mapToInt(NodeStatus::usedGpus).sum();
      int gpus = nodes.stream().mapToInt(NodeStatus::gpus).sum();
      String name = pool.getKey().isEmpty() ? "(no label)" : pool.getKey();
      h.append("<div class=\"pool\" data-pool=\"")
          .append(esc(pool.getKey()))
          .append("\"><h3>")
          .append(esc(name))
          .append(" <small>")
          .append(nodes.size())
          .append(" node(s), ")
          .append(used)
          .append(" / ")
          .append(gpus)
          .append(" GPUs used</small></h3><div class=\"tiles\">\n");
      for (NodeStatus n : nodes) {
        tile(h, n);
      }
      if (nodes.isEmpty()) {
        h.append("<p class=\"none\">no node</p>");
      }
      h.append("</div></div>\n");
    }
    h.append("</section>\n");
  }

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
        .append(esc(owner(n)))
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

  private static void reclaimsInFlight(StringBuilder h, Inputs in) {
    List<ReclaimStatus> rs = orEmpty(in.status().reclaimsInFlight());
    h.append("<section id=\"reclaims-in-flight\"><h2>Reclaims in flight</h2>\n");
    if (rs.isEmpty()) {
      h.append("<p class=\"none\">none</p></section>\n");
      return;
    }
    h.append(
        "<table><thead><tr><th>id</th><th>phase</th><th>nodes</th><th>requested</th><th>deadline</th>"
            + "<th>left</th><th>jobs drained</th><th>containers shrunk</th><th>containers preempted</th>"
            + "<th>returned</th></tr></thead><tbody>\n");
    for (ReclaimStatus r : rs) {
      long deadline = r.deadlineMs();
      long left = deadline - in.nowMs();
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
          .append("</td><td class=\"deadline\" data-deadline-ms=\"")
          .append(deadline)
          .append("\">")
          .append(time(deadline))
          .append("</td><td class=\"left")
          .append(left < 0 ? " late" : "")
          .append("\">")
          .append(left >= 0 ? (left / 1000) + " s" : (-left / 1000) + " s late")
          .append("</td><td class=\"jobs\">")
          .append(jobs(r.jobs(), in.mayView()))
          .append("</td><td class=\"shrunk\">")
          .append(r.containersShrunk())
          .append("</td><td class=\"preempted\">")
          .append(r.containersPreempted())
          .append("</td><td>")
          .append(names(r.returnedNodes()))
          .append("</td></tr>\n");
    }
    h.append("</tbody></table></section>\n");
  }

  private static void reclaimsDone(StringBuilder h, Inputs in) {
    List<ReclaimStatus> rs = orEmpty(in.status().reclaimsDone());
    h.append("<section id=\"reclaims-done\"><h2>Last reclaims</h2>\n");
    if (rs.isEmpty()) {
      h.append("<p class=\"none\">none yet</p></section>\n");
      return;
    }
    h.append(
        "<table><thead><tr><th>id</th><th>phase</th><th>nodes</th><th>requested</th><th>took</th><th>late</th>"
            + "<th>jobs drained</th><th>containers shrunk</th><th>containers preempted</th><th>short by</th>"
            + "</tr></thead><tbody>\n");
    for (int i = rs.size() - 1; i >= 0; i--) {
      ReclaimStatus r = rs.get(i);
      boolean late = r.late();
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
          .append("</td><td class=\"took\">")
          .append(seconds(r.tookMs()))
          .append("</td><td class=\"late")
          .append(late ? " warn" : "")
          .append("\">")
          .append(late ? "late" : "on time")
          .append("</td><td class=\"jobs\">")
          .append(jobs(r.jobs(), in.mayView()))
          .append("</td><td class=\"shrunk\">")
          .append(r.containersShrunk())
          .append("</td><td class=\"preempted\">")
          .append(r.containersPreempted())
          .append("</td><td>")
          .append(r.shortBy())
          .append("</td></tr>\n");
    }
    h.append("</tbody></table></section>\n");
  }

  private static void applications(StringBuilder h, Inputs in) {
    List<ApplicationStatus> apps = orEmpty(in.status().applications());
    h.append("<section id=\"applications\"><h2>Elastic applications</h2>\n");
    List<ApplicationStatus> shown =
        apps.stream().filter(a -> in.mayView().test(str(a.application()))).toList();
    if (shown.isEmpty()) {
      h.append("<p class=\"none\">none</p>");
    } else {
      h.append(
          "<table><thead><tr><th>application</th><th>team</th><th>min</th><th>target</th><th>actual</th>"
              + "<th>max</th><th>asked</th><th>GPUs per worker</th><th>change</th></tr></thead><tbody>\n");
      for (ApplicationStatus a : shown) {
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
            .append("</td><td class=\"asked\">")
            .append(a.askedWorkers())
            .append("</td><td>")
            .append(a.gpusPerWorker())
            .append("</td><td class=\"change\">")
            .append(esc(a.change()))
            .append("</td></tr>\n");
      }
      h.append("</tbody></table>");
    }
    if (shown.size() < apps.size()) {
      h.append("<p class=\"hidden-apps\">")
          .append(apps.size() - shown.size())
          .append(" application(s) you may not view are not listed.</p>");
    }
    h.append("</section>\n");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Charts

  private static final int W = 420;
  private static final int H = 150;
  private static final int LEFT = 40;
  private static final int BOTTOM = 22;
  private static final int TOP = 10;
  private static final int RIGHT = 10;

  /** One line of a chart. */
  private record Series(String name, String cssClass, ToIntFunction<HistorySample> value) {}

  private static void charts(StringBuilder h, Inputs in) {
    List<HistorySample> points = new ArrayList<>(in.history());
    HistorySample now = HistorySample.of(in.nowMs(), in.status());
    if (points.isEmpty() || points.get(points.size() - 1).timeMs() < in.nowMs()) {
      points.add(now);
    }
    h.append("<section id=\"charts\"><h2>Last hours</h2><div class=\"charts\">\n");
    chart(
        h,
        "loaned",
        "Nodes on loan",
        points,
        List.of(new Series("on loan", "s0", HistorySample::loanedNodes)),
        0);
    chart(
        h,
        "queued",
        "Queued jobs (no worker yet)",
        points,
        List.of(new Series("queued", "s1", HistorySample::queuedJobs)),
        0);
    String inf = in.inferenceLabel();
    String tr = in.trainingLabel();
    int most = 0;
    for (HistorySample p : points) {
      most = Math.max(most, Math.max(p.gpus().getOrDefault(inf, 0), p.gpus().getOrDefault(tr, 0)));
    }
    chart(
        h,
        "gpus",
        "GPUs used",
        points,
        List.of(
            new Series(inf, "s2", p -> p.gpusUsed().getOrDefault(inf, 0)),
            new Series(tr, "s3", p -> p.gpusUsed().getOrDefault(tr, 0))),
        most);
    h.append("</div></section>\n");
  }

  private static void chart(
      StringBuilder h,
      String id,
      String title,
      List<HistorySample> points,
      List<Series> series,
      int atLeast) {
    long t0 = points.get(0).timeMs();
    long t1 = points.get(points.size() - 1).timeMs();
    int max = Math.max(1, atLeast);
    for (HistorySample p : points) {
      for (Series s : series) {
        max = Math.max(max, s.value().applyAsInt(p));
      }
    }
    StringBuilder nowText = new StringBuilder();
    h.append("<figure class=\"chart\" id=\"chart-")
        .append(id)
        .append("\" data-points=\"")
        .append(points.size())
        .append("\"><figcaption>")
        .append(esc(title))
        .append("</figcaption>");
    h.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(W)
        .append("\" height=\"")
        .append(H)
        .append("\" viewBox=\"0 0 ")
        .append(W)
        .append(' ')
        .append(H)
        .append("\" role=\"img\"><title>")
        .append(esc(title))
        .append("</title>");
    int x0 = LEFT;
    int x1 = W - RIGHT;
    int y0 = H - BOTTOM;
    int y1 = TOP;
    h.append("<line class=\"axis\" x1=\"")
        .append(x0)
        .append("\" y1=\"")
        .append(y0)
        .append("\" x2=\"")
        .append(x1)
        .append("\" y2=\"")
        .append(y0)
        .append("\"/><line class=\"axis\" x1=\"")
        .append(x0)
        .append("\" y1=\"")
        .append(y0)
        .append("\" x2=\"")
        .append(x0)
        .append("\" y2=\"")
        .append(y1)
        .append("\"/>");
    h.append("<text class=\"tick\" x=\"")
        .append(x0 - 4)
        .append("\" y=\"")
        .append(y1 + 8)
        .append("\" text-anchor=\"end\">")
        .append(max)
        .append("</text><text class=\"tick\" x=\"")
        .append(x0 - 4)
        .append("\" y=\"")
        .append(y0)
        .append("\" text-anchor=\"end\">0</text>");
    h.append("<text class=\"tick\" x=\"")
        .append(x0)
        .append("\" y=\"")
        .append(H - 6)
        .append("\">")
        .append(CLOCK.format(Instant.ofEpochMilli(t0)))
        .append("</text><text class=\"tick\" x=\"")
        .append(x1)
        .append("\" y=\"")
        .append(H - 6)
        .append("\" text-anchor=\"end\">")
        .append(CLOCK.format(Instant.ofEpochMilli(t1)))
        .append(" UTC</text>");
    for (Series s : series) {
      StringBuilder xy = new StringBuilder();
      for (HistorySample p : points) {
        double x = t1 == t0 ? x1 : x0 + (x1 - x0) * (double) (p.timeMs() - t0) / (t1 - t0);
        double y = y0 - (y0 - y1) * (double) s.value().applyAsInt(p) / max;
        xy.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
      }
      int last = s.value().applyAsInt(points.get(points.size() - 1));
      h.append("<polyline class=\"")
          .append(s.cssClass())
          .append("\" data-series=\"")
          .append(esc(s.name()))
          .append("\" data-last=\"")
          .append(last)
          .append("\" points=\"")
          .append(xy.toString().trim())
          .append("\"/>");
      if (points.size() == 1) {
        h.append("<circle class=\"")
            .append(s.cssClass())
            .append("\" r=\"3\" cx=\"")
            .append(x1)
            .append("\" cy=\"")
            .append(String.format(Locale.ROOT, "%.1f", y0 - (y0 - y1) * (double) last / max))
            .append("\"/>");
      }
      if (!nowText.isEmpty()) {
        nowText.append(", ");
      }
      nowText
          .append("<span class=\"key ")
          .append(s.cssClass())
          .append("\"></span>")
          .append(esc(s.name()))
          .append(": <b data-series=\"")
          .append(esc(s.name()))
          .append("\">")
          .append(last)
          .append("</b>");
    }
    h.append("</svg><div class=\"now\">now ").append(nowText).append("</div></figure>\n");
  }

  // ---------------------------------------------------------------------------------------------------------------

  private static String jobs(Map<String, ReclaimStatus.Action> jobs, Predicate<String> mayView) {
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

  private static String names(List<String> nodes) {
    List<String> out = new ArrayList<>();
    nodes.forEach(n -> out.add(esc(n)));
    return String.join(", ", out);
  }

  /** The owner as the status writes it: inference or training. */
  private static String owner(NodeStatus n) {
    return n.owner() == null ? "" : n.owner().value();
  }

  private static <T> List<T> orEmpty(List<T> l) {
    return l == null ? List.of() : l;
  }

  private static String time(long ms) {
    return ms <= 0 ? "" : esc(TIME.format(Instant.ofEpochMilli(ms)));
  }

  private static String seconds(long ms) {
    return ms < 0 ? "" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  private static String link(String href, String text) {
    return "<a href=\"" + esc(href) + "\">" + esc(text) + "</a>";
  }

  private static String str(Object o) {
    return o == null ? "" : String.valueOf(o);
  }

  /** HTML-escapes text for element content and double-quoted attributes. */
  static String esc(Object o) {
    String s = str(o);
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
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
          ".charts{display:flex;flex-wrap:wrap;gap:1em}.chart{margin:0;background:#fff;border:1px solid #ccc;padding:.4em}",
          "figcaption{font-weight:bold}.axis{stroke:#444}.tick{font-size:10px;fill:#555}",
          "polyline{fill:none;stroke-width:2}.s0{stroke:#e65100;fill:#e65100}.s1{stroke:#6a1b9a;fill:#6a1b9a}",
          ".s2{stroke:#1565c0;fill:#1565c0}.s3{stroke:#2e7d32;fill:#2e7d32}polyline.s0,polyline.s1,polyline.s2,",
          "polyline.s3{fill:none}.key{display:inline-block;width:.8em;height:.8em;margin-right:.2em}",
          ".key.s0{background:#e65100}.key.s1{background:#6a1b9a}.key.s2{background:#1565c0}.key.s3{background:#2e7d32}",
          ".now{font-size:.9em}footer{margin-top:2em;color:#777;font-size:.85em}");
}
