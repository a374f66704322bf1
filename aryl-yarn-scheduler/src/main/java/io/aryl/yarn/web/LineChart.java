package io.aryl.yarn.web;

import static io.aryl.yarn.web.Html.esc;

import io.aryl.api.status.HistorySample;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.function.ToIntFunction;

/**
 * One chart of the page, as inline SVG: a line per series over the samples' times, the value axis
 * from 0 to the largest value (or {@code atLeast}), the first and last sample's clock time under
 * it, and each series' last value in words below. The figure's and each line's data attributes
 * carry the number of points and the last values, which the browser tests read.
 *
 * @param id the figure's id is {@code chart-<id>}
 * @param title its caption
 * @param points the samples, oldest first; at least one
 * @param series the lines
 * @param atLeast the least top of the value axis
 */
record LineChart(
    String id, String title, List<HistorySample> points, List<Series> series, int atLeast) {
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
  private static final int W = 420;
  private static final int H = 150;
  private static final int LEFT = 40;
  private static final int BOTTOM = 22;
  private static final int TOP = 10;
  private static final int RIGHT = 10;

  /**
   * One line of a chart.
   *
   * @param name its name in the key and its {@code data-series}
   * @param cssClass its colour
   * @param value its value at a sample
   */
  record Series(String name, String cssClass, ToIntFunction<HistorySample> value) {}

  void appendTo(StringBuilder h) {
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
}
