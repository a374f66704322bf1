package io.aryl.yarn;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last hours of the status, for the charts of Aryl's page: one {@link Sample} per interval (one minute), at most
 * {@link #CAPACITY} of them (six hours), oldest dropped first. Kept in the ResourceManager's memory only (a few
 * tens of kilobytes at most); a restarted or newly active ResourceManager starts an empty history.
 */
public final class StatusHistory {
  /** Milliseconds between samples. */
  public static final long INTERVAL_MS = 60_000;
  /** Most samples kept: six hours at one a minute. */
  public static final int CAPACITY = 360;

  /**
   * What a chart shows at one time.
   *
   * @param timeMs epoch milliseconds of the sample
   * @param loanedNodes inference nodes on loan to training
   * @param queuedJobs elastic applications holding no worker yet (waiting for their gang)
   * @param gpusUsed GPUs held by containers, by the label (pool) of their node
   * @param gpus GPUs of the nodes, by label
   */
  public record Sample(long timeMs, int loanedNodes, int queuedJobs, Map<String, Integer> gpusUsed,
      Map<String, Integer> gpus) {
    public Sample {
      gpusUsed = Map.copyOf(gpusUsed);
      gpus = Map.copyOf(gpus);
    }

    /** The sample of a status as {@code GET /ws/v1/cluster/aryl} shows it. */
    public static Sample of(long timeMs, Map<String, Object> status) {
      Map<String, Integer> used = new LinkedHashMap<>();
      Map<String, Integer> gpus = new LinkedHashMap<>();
      for (Map<?, ?> n : maps(status.get("nodes"))) {
        String label = n.get("label") == null ? "" : String.valueOf(n.get("label"));
        used.merge(label, integer(n.get("usedGpus")), Integer::sum);
        gpus.merge(label, integer(n.get("gpus")), Integer::sum);
      }
      int queued = 0;
      for (Map<?, ?> a : maps(status.get("applications"))) {
        if (integer(a.get("actualWorkers")) == 0) {
          queued++;
        }
      }
      return new Sample(timeMs, maps(status.get("loanedNodes")).size(), queued, used, gpus);
    }

    /** As JSON. */
    public Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("timeMs", timeMs);
      m.put("loanedNodes", loanedNodes);
      m.put("queuedJobs", queuedJobs);
      m.put("gpusUsed", gpusUsed);
      m.put("gpus", gpus);
      return m;
    }
  }

  private final long intervalMs;
  private final int capacity;
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();

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

  /** True when a sample taken at {@code nowMs} would be kept: the first one, or an interval after the last. */
  public synchronized boolean due(long nowMs) {
    return samples.isEmpty() || nowMs - samples.peekLast().timeMs() >= intervalMs;
  }

  /** Keeps the sample if it is due (see {@link #due}), dropping the oldest beyond the capacity. */
  public synchronized boolean add(Sample s) {
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
  public synchronized List<Sample> samples() {
    return new ArrayList<>(samples);
  }

  public long intervalMs() {
    return intervalMs;
  }

  public int capacity() {
    return capacity;
  }

  /** The maps in a list of the status (a JSON array of objects); empty when it is not one. Shared with the page. */
  public static List<Map<?, ?>> maps(Object o) {
    List<Map<?, ?>> out = new ArrayList<>();
    if (o instanceof List<?> l) {
      for (Object e : l) {
        if (e instanceof Map<?, ?> m) {
          out.add(m);
        }
      }
    }
    return out;
  }

  /** A number of the status as an int; 0 when absent. Shared with the page. */
  public static int integer(Object o) {
    return o instanceof Number n ? n.intValue() : 0;
  }
}
