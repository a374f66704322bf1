package io.aryl.yarn.engine;

import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.JobProgress;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.state.JobRecord;
import io.aryl.yarn.state.Jobs;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Measures each elastic job's progress between rounds — work done at its minimum width's pace, time
 * since its workers last changed — which prices its workers and its preemption, and counts the
 * times the scheduler stopped each job, which bounds how often aryl+ stops it for a shorter one.
 * Durable: the measurements, the counts and where each job's workers ran are stored, so a newly
 * active scheduler prices and bounds jobs as its predecessor did and knows which nodes to wait for.
 * A count is stored before the stop it counts is told ({@link #countsUnsaved}); the measurements
 * are stored off the round.
 */
final class JobProgressMeter {
  /** Measurements are stored at least this often even when no worker moved. */
  static final long SAVE_EVERY_MS = 10_000;

  private final Map<String, JobProgress> progress = new HashMap<>();
  private final Map<String, Map<String, Integer>> workersByNode = new HashMap<>();
  private long lastRoundMs = -1;
  private long lastSavedMs = -1;
  private boolean workersMoved;

  /** A job was stopped since the counts were last stored. */
  private boolean countsUnsaved;

  /** Advances every job's progress by the time since the last round, at the width it ran. */
  void update(Map<String, AppView> views, java.util.List<NodeView> nodes, long nowMs) {
    Set<String> jobs =
        new HashSet<>(views.keySet()); // looked up for every container: a hash, not the views' tree
    Map<String, Map<String, Integer>> live = new HashMap<>();
    for (NodeView n : nodes) {
      for (ContainerView c : n.containers()) {
        if (!c.amContainer() && jobs.contains(c.appId())) {
          live.computeIfAbsent(c.appId(), a -> new TreeMap<>()).merge(n.id(), 1, Integer::sum);
        }
      }
    }
    double dt = lastRoundMs < 0 ? 0 : (nowMs - lastRoundMs) / 1000.0;
    lastRoundMs = nowMs;
    for (AppView v : views.values()) {
      Map<String, Integer> where = live.getOrDefault(v.id(), Map.of());
      int w = sum(where);
      JobProgress p = progress.getOrDefault(v.id(), JobProgress.NONE);
      double attained =
          p.attainedBaseS() + (w >= v.shape().minWorkers() ? dt * w / v.shape().minWorkers() : 0);
      Map<String, Integer> before = workersByNode.get(v.id());
      boolean moved = !where.equals(before);
      if (moved) {
        workersByNode.put(
            v.id(), Map.copyOf(where)); // most jobs' workers stay where they were: no copy for them
      }
      int wasWorkers = before == null ? -1 : sum(before);
      double sinceChange = wasWorkers == w ? p.sinceChangeS() + dt : 0;
      workersMoved |= moved;
      progress.put(v.id(), new JobProgress(attained, sinceChange, p.preemptions()));
    }
  }

  private static int sum(Map<String, Integer> workers) {
    int n = 0;
    for (int w : workers.values()) {
      n += w;
    }
    return n;
  }

  /**
   * The scheduler decided to stop the job as a whole (for a shorter job, a reclaim or a team's
   * guarantee): one more preemption, stored before the job is told. Called once per decision, by
   * whoever drains the job's workers for it, when a worker's drain is new: a stop resumed after a
   * restart, or asked again of workers already draining, is not counted again.
   */
  void preempted(String appId) {
    progress.put(appId, progress.getOrDefault(appId, JobProgress.NONE).preempted());
    countsUnsaved = true;
  }

  /** True while a job's stop was counted and the count is not stored yet: store it now. */
  boolean countsUnsaved() {
    return countsUnsaved;
  }

  /** How many times each job was stopped, for jobs stopped at least once. */
  Map<String, Integer> preemptions() {
    Map<String, Integer> out = new TreeMap<>();
    progress.forEach(
        (id, p) -> {
          if (p.preemptions() > 0) {
            out.put(id, p.preemptions());
          }
        });
    return out;
  }

  JobProgress get(String appId) {
    return progress.getOrDefault(appId, JobProgress.NONE);
  }

  Map<String, JobProgress> all() {
    return new HashMap<>(progress);
  }

  /** The job ended: its measurements go. */
  JobProgress remove(String appId) {
    workersByNode.remove(appId);
    workersMoved = true;
    return progress.remove(appId);
  }

  /**
   * True when the measurements should be stored now: a worker moved, or they were not stored for a
   * while.
   */
  boolean saveDue(long nowMs) {
    return workersMoved || lastSavedMs < 0 || nowMs - lastSavedMs >= SAVE_EVERY_MS;
  }

  void saved(long nowMs) {
    workersMoved = false;
    countsUnsaved = false;
    lastSavedMs = nowMs;
  }

  /**
   * The last save failed: the measurements are due to be saved again (with the counts they held,
   * which nothing relied on: a count is stored before its stop is told, see {@link
   * #countsUnsaved}).
   */
  void saveAgain() {
    workersMoved = true;
  }

  Jobs toRecord() {
    Map<String, JobRecord> out = new TreeMap<>();
    progress.forEach(
        (id, p) ->
            out.put(
                id,
                new JobRecord(
                    round(p.attainedBaseS()),
                    round(p.sinceChangeS()),
                    workersByNode.getOrDefault(id, Map.of()),
                    p.preemptions())));
    return new Jobs(out);
  }

  /**
   * Stored to the millisecond: finer digits would make every save differ from the last for nothing.
   */
  private static double round(double s) {
    return Math.round(s * 1000) / 1000.0;
  }

  /** Takes over the stored measurements; the first round after measures from then on. */
  void restore(Jobs stored) {
    progress.clear();
    workersByNode.clear();
    stored
        .jobs()
        .forEach(
            (id, r) -> {
              progress.put(
                  id, new JobProgress(r.attainedBaseS(), r.sinceChangeS(), r.preemptions()));
              workersByNode.put(id, r.workersByNode());
            });
    lastRoundMs = -1;
    countsUnsaved = false;
  }

  /** Nodes where the stored jobs' workers ran. */
  Set<String> nodesWithWorkers() {
    Set<String> out = new HashSet<>();
    workersByNode.values().forEach(m -> out.addAll(m.keySet()));
    return out;
  }
}
