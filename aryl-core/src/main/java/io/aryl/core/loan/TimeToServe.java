package io.aryl.core.loan;

import io.aryl.core.model.Checks;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How long a server asked back takes to serve inference again, or one measured part of it: the loan
 * controller's rolling figure, the 90th percentile (nearest rank) of the last {@code window}
 * measures, and a seed until the first one. A reclaim's chain (the controller's decision, the
 * scheduler's shrink or preemption, drain and relabel, the replica's start-up) differs per cluster
 * and per job on the node; measuring it is what lets the controller ask a server back early enough,
 * and the percentile rather than the mean keeps one fast reclaim from shortening the lead that most
 * need. The controller keeps two, measured apart and added: the reclaim, up to the servers home,
 * and the replica's start-up on them.
 *
 * <p>Immutable: {@link #with} answers a new figure.
 *
 * @param seedMs the figure before anything was measured, milliseconds
 * @param window how many of the latest measures count
 * @param samplesMs the latest measures, oldest first, at most {@code window}
 */
public record TimeToServe(long seedMs, int window, List<Long> samplesMs) {
  /** The percentile the figure is. */
  public static final double PERCENTILE = 0.9;

  public TimeToServe {
    if (seedMs < 0) {
      throw new IllegalArgumentException("timeToServe.seedMs must be >= 0, was " + seedMs);
    }
    Checks.positive("timeToServe.window", window);
    samplesMs = List.copyOf(Checks.notNull("timeToServe.samplesMs", samplesMs));
    if (samplesMs.size() > window) {
      throw new IllegalArgumentException(
          "timeToServe.samplesMs must hold at most window="
              + window
              + " measures, held "
              + samplesMs.size());
    }
    for (long s : samplesMs) {
      if (s < 0) {
        throw new IllegalArgumentException("timeToServe.samplesMs must be >= 0 each, held " + s);
      }
    }
  }

  /** Nothing measured yet: the figure is the seed. */
  public static TimeToServe seeded(long seedMs, int window) {
    return new TimeToServe(seedMs, window, List.of());
  }

  /** With one more measure, the oldest dropped once there are more than {@code window}. */
  public TimeToServe with(long measuredMs) {
    if (measuredMs < 0) {
      throw new IllegalArgumentException("a time to serve must be >= 0 ms, was " + measuredMs);
    }
    List<Long> next = new ArrayList<>(samplesMs);
    next.add(measuredMs);
    while (next.size() > window) {
      next.remove(0);
    }
    return new TimeToServe(seedMs, window, next);
  }

  /** Whether any measure counts yet; false: {@link #figureMs} is the seed. */
  public boolean measured() {
    return !samplesMs.isEmpty();
  }

  /** The {@link #PERCENTILE} of the measures (nearest rank), or the seed before the first. */
  public long figureMs() {
    if (samplesMs.isEmpty()) {
      return seedMs;
    }
    List<Long> sorted = new ArrayList<>(samplesMs);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(PERCENTILE * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }
}
