package io.aryl.yarn.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * What a round (or a reclaim request) changed that operators count: the adapter adds it to the
 * scheduler's metrics. Kept apart from the actions, which change the cluster; these only describe
 * it.
 */
public final class Tally {
  int containersShrunk;
  int containersPreempted;
  int containersMoved;
  long gpuSecondsLost;
  int reclaimsStarted;
  int reclaimsFinished;
  int reclaimsLate;
  final List<Long> reclaimDurationsMs = new ArrayList<>();

  public int containersShrunk() {
    return containersShrunk;
  }

  public int containersPreempted() {
    return containersPreempted;
  }

  public int containersMoved() {
    return containersMoved;
  }

  /** Work thrown away by shrinks and preemptions, GPU-seconds. */
  public long gpuSecondsLost() {
    return gpuSecondsLost;
  }

  public int reclaimsStarted() {
    return reclaimsStarted;
  }

  public int reclaimsFinished() {
    return reclaimsFinished;
  }

  public int reclaimsLate() {
    return reclaimsLate;
  }

  /** How long each reclaim that finished took, milliseconds. */
  public List<Long> reclaimDurationsMs() {
    return List.copyOf(reclaimDurationsMs);
  }

  /** Adds {@code other}'s counts to these. */
  void add(Tally other) {
    containersShrunk += other.containersShrunk;
    containersPreempted += other.containersPreempted;
    containersMoved += other.containersMoved;
    gpuSecondsLost += other.gpuSecondsLost;
    reclaimsStarted += other.reclaimsStarted;
    reclaimsFinished += other.reclaimsFinished;
    reclaimsLate += other.reclaimsLate;
    reclaimDurationsMs.addAll(other.reclaimDurationsMs);
  }
}
