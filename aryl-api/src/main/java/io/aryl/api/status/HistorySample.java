package io.aryl.api.status;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the charts of Aryl's page show at one time: one sample of {@code GET
 * /ws/v1/cluster/aryl/history}, taken from a status ({@link #of}) by the scheduler once a minute,
 * and drawn by the page.
 *
 * @param timeMs epoch milliseconds of the sample
 * @param loanedNodes inference nodes on loan to training
 * @param queuedJobs elastic applications holding no worker yet (waiting for their gang)
 * @param gpusUsed GPUs held by containers, by the label (pool) of their node
 * @param gpus GPUs of the nodes, by label
 */
public record HistorySample(
    long timeMs,
    int loanedNodes,
    int queuedJobs,
    Map<String, Integer> gpusUsed,
    Map<String, Integer> gpus) {
  public HistorySample {
    gpusUsed = Copies.map(gpusUsed);
    gpus = Copies.map(gpus);
  }

  /** The sample of a status at {@code timeMs}. */
  public static HistorySample of(long timeMs, SchedulerStatus status) {
    Map<String, Integer> used = new LinkedHashMap<>();
    Map<String, Integer> gpus = new LinkedHashMap<>();
    for (NodeStatus n : orEmpty(status.nodes())) {
      String label = n.label() == null ? "" : n.label();
      used.merge(label, n.usedGpus(), Integer::sum);
      gpus.merge(label, n.gpus(), Integer::sum);
    }
    int queued = 0;
    for (ApplicationStatus a : orEmpty(status.applications())) {
      if (a.actualWorkers() == 0) {
        queued++;
      }
    }
    return new HistorySample(timeMs, orEmpty(status.loanedNodes()).size(), queued, used, gpus);
  }

  private static <T> List<T> orEmpty(List<T> l) {
    return l == null ? List.of() : l;
  }
}
