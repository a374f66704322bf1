package io.aryl.api.status;

import java.util.List;

/**
 * {@code GET /ws/v1/cluster/aryl/history}: the charts' samples, oldest first. The scheduler keeps
 * them in the ResourceManager's memory only.
 *
 * @param intervalMs milliseconds between samples
 * @param capacity most samples kept
 * @param samples the samples, oldest first
 */
public record History(long intervalMs, int capacity, List<HistorySample> samples) {
  public History {
    samples = Copies.list(samples);
  }
}
