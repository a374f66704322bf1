package io.aryl.yarn.rm;

import io.aryl.api.status.History;
import io.aryl.api.status.HistorySample;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The last hours of the status, for the charts of Aryl's page: one {@link HistorySample} per
 * interval (one minute), at most {@link #CAPACITY} of them (six hours), oldest dropped first. Kept
 * in the ResourceManager's memory only (a few tens of kilobytes at most); a restarted or newly
 * active ResourceManager starts an empty history.
 */
public final class StatusHistory {
  /** Milliseconds between samples. */
  public static final long INTERVAL_MS = 60_000;

  /** Most samples kept: six hours at one a minute. */
  public static final int CAPACITY = 360;

  private final long intervalMs;
  private final int capacity;
  private final ArrayDeque<HistorySample> samples = new ArrayDeque<>();

  public StatusHistory() {
    this(INTERVAL_MS, CAPACITY);
  }

  StatusHistory(long intervalMs, int capacity) {
    if (intervalMs <= 0 || capacity <= 0) {
      throw new IllegalArgumentException("interval and capacity must be positive");
    }
    this.intervalMs = intervalMs;
    this.capacity = capacity;
  }

  /**
   * True when a sample taken at {@code nowMs} would be kept: the first one, or an interval after
   * the last.
   */
  public synchronized boolean due(long nowMs) {
    return samples.isEmpty() || nowMs - samples.peekLast().timeMs() >= intervalMs;
  }

  /** Keeps the sample if it is due (see {@link #due}), dropping the oldest beyond the capacity. */
  public synchronized boolean add(HistorySample s) {
    if (!due(s.timeMs())) {
      return false;
    }
    samples.addLast(s);
    while (samples.size() > capacity) {
      samples.removeFirst();
    }
    return true;
  }

  /** The samples kept, oldest first. */
  public synchronized List<HistorySample> samples() {
    return new ArrayList<>(samples);
  }

  /** {@code GET /ws/v1/cluster/aryl/history}. */
  public History answer() {
    return new History(intervalMs, capacity, samples());
  }

  public long intervalMs() {
    return intervalMs;
  }

  public int capacity() {
    return capacity;
  }
}
