package io.aryl.yarn.web;

import io.aryl.api.status.HistorySample;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.yarn.web.LineChart.Series;
import java.util.ArrayList;
import java.util.List;

/**
 * What the page's {@code #charts} section plots: the history's samples with the current status as
 * the last point (unless a sample is already that recent), as three charts: nodes on loan, queued
 * jobs, and GPUs used in each pool on a scale that reaches at least the larger pool's GPUs, so a
 * full pool reads as full.
 *
 * @param charts the charts, in the order they are drawn
 */
record HistoryCharts(List<LineChart> charts) {

  /**
   * The charts of the history ending at {@code status}, taken at {@code nowMs}.
   *
   * @param history the samples, oldest first
   */
  static HistoryCharts of(
      List<HistorySample> history,
      SchedulerStatus status,
      long nowMs,
      String inferenceLabel,
      String trainingLabel) {
    List<HistorySample> points = new ArrayList<>(history);
    if (points.isEmpty() || points.get(points.size() - 1).timeMs() < nowMs) {
      points.add(HistorySample.of(nowMs, status));
    }
    int mostGpus = 0;
    for (HistorySample p : points) {
      mostGpus =
          Math.max(
              mostGpus,
              Math.max(
                  p.gpus().getOrDefault(inferenceLabel, 0),
                  p.gpus().getOrDefault(trainingLabel, 0)));
    }
    return new HistoryCharts(
        List.of(
            new LineChart(
                "loaned",
                "Nodes on loan",
                points,
                List.of(new Series("on loan", "s0", HistorySample::loanedNodes)),
                0),
            new LineChart(
                "queued",
                "Queued jobs (no worker yet)",
                points,
                List.of(new Series("queued", "s1", HistorySample::queuedJobs)),
                0),
            new LineChart(
                "gpus",
                "GPUs used",
                points,
                List.of(
                    new Series(
                        inferenceLabel, "s2", p -> p.gpusUsed().getOrDefault(inferenceLabel, 0)),
                    new Series(
                        trainingLabel, "s3", p -> p.gpusUsed().getOrDefault(trainingLabel, 0))),
                mostGpus)));
  }

  void appendTo(StringBuilder h) {
    h.append("<section id=\"charts\"><h2>Last hours</h2><div class=\"charts\">\n");
    for (LineChart chart : charts) {
      chart.appendTo(h);
    }
    h.append("</div></section>\n");
  }
}
