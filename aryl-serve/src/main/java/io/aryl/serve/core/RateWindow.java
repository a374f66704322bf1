package io.aryl.serve.core;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * The request rate of a set of replicas from their request counters: for each replica, the
 * counter's rise between its oldest and newest sample within the window, over the time between
 * them; summed. A replica with fewer than two samples in the window adds nothing yet; a counter
 * that falls (the server restarted in its container) starts the replica's samples afresh.
 */
public final class RateWindow {
  private record Sample(long timeMs, long count) {}

  private final long windowMs;
  private final Map<String, Deque<Sample>> samples = new HashMap<>();

  public RateWindow(long windowMs) {
    this.windowMs = windowMs;
  }

  /** A replica's counter read at {@code timeMs}. */
  public void add(String replica, long count, long timeMs) {
    Deque<Sample> s = samples.computeIfAbsent(replica, r -> new ArrayDeque<>());
    if (!s.isEmpty() && (count < s.peekLast().count() || timeMs < s.peekLast().timeMs())) {
      s.clear();
    }
    s.addLast(new Sample(timeMs, count));
  }

  /** Forgets a replica that is gone. */
  public void remove(String replica) {
    samples.remove(replica);
  }

  /** Requests per second over the window ending at {@code nowMs}. */
  public double rate(long nowMs) {
    double total = 0;
    for (Deque<Sample> s : samples.values()) {
      while (s.size() > 2 && s.peekFirst().timeMs() < nowMs - windowMs) {
        s.removeFirst();
      }
      // Two samples are kept even when older than the window: a replica polled late still counts.
      if (s.size() >= 2) {
        Sample first = s.peekFirst();
        Sample last = s.peekLast();
        long dt = last.timeMs() - first.timeMs();
        if (dt > 0) {
          total += (last.count() - first.count()) * 1000.0 / dt;
        }
      }
    }
    return total;
  }
}
