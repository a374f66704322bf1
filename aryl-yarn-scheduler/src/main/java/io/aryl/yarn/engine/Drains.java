package io.aryl.yarn.engine;

import io.aryl.yarn.state.DrainList;
import io.aryl.yarn.state.DrainRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Containers asked to stop: each is recorded (and stored) first, then announced to its
 * ApplicationMaster (a PreemptionMessage), and killed once its grace ends unless the
 * ApplicationMaster released it first — and unless the reason it was asked for no longer holds,
 * which is checked again just before the kill.
 */
final class Drains {
  /** Why a container is asked to stop. */
  enum Reason {
    /** Its job is above the plan's target. */
    SHRINK,
    /** It belongs to a gang below its minimum that nothing completes. */
    ORPHAN,
    /** Its node is being returned to inference. */
    RECLAIM,
    /**
     * Its job moves whole to other nodes: it is announced only once the job's new workers are
     * allocated there (or given up at {@link Drain#holdUntilMs}), so that the job changes
     * generation once and never runs narrower.
     */
    MOVE
  }

  /**
   * One container being drained.
   *
   * @param holdUntilMs for a MOVE, until when its announcement may wait for the job's new workers;
   *     else 0
   * @param stopsJob whether the container goes because its whole job stops (a reclaim's or a plan's
   *     PREEMPT): its ApplicationMaster was told that every worker goes, so it is killed at its
   *     time wherever it runs, whatever becomes of its node (no longer being returned) or of the
   *     plan (wanting the job there again); a shrink's reason, by contrast, is checked again before
   *     the kill
   */
  record Drain(
      String container,
      String app,
      String node,
      long killAtMs,
      Reason reason,
      long reclaimId,
      long holdUntilMs,
      boolean stopsJob) {
    Drain(String container, String app, String node, long killAtMs, Reason reason, long reclaimId) {
      this(container, app, node, killAtMs, reason, reclaimId, 0, false);
    }

    /**
     * A worker of a job being moved, told only once the job's new workers are allocated or at
     * {@code holdUntilMs}.
     */
    static Drain move(String container, String app, String node, long killAtMs, long holdUntilMs) {
      return new Drain(container, app, node, killAtMs, Reason.MOVE, 0, holdUntilMs, false);
    }

    /** A worker of a job stopped as a whole: killed at {@code killAtMs} wherever it runs. */
    static Drain stop(
        String container, String app, String node, long killAtMs, Reason reason, long reclaimId) {
      return new Drain(container, app, node, killAtMs, reason, reclaimId, 0, true);
    }

    DrainRecord toRecord() {
      return new DrainRecord(
          container, app, node, killAtMs, reason.name(), reclaimId, holdUntilMs, stopsJob);
    }
  }

  /** What a held MOVE drain waits for. */
  enum Hold {
    /** The job's new workers are not all allocated yet: keep waiting. */
    WAIT,
    /** They are: announce it. */
    ANNOUNCE,
    /** The plan no longer moves the job: forget it, the worker stays. */
    CANCEL
  }

  private static final class Entry {
    Drain drain;
    boolean announced;
    boolean killed;

    Entry(Drain drain, boolean announced) {
      this.drain = drain;
      this.announced = announced;
    }
  }

  private final Map<String, Entry> entries = new LinkedHashMap<>();

  /**
   * MOVE drains by application, computed on first read after a change: every ApplicationMaster
   * heartbeat asks for its own count, and the drains change only in rounds.
   */
  private Map<String, Integer> movingByApp;

  /**
   * Starts draining the container; true if it was not already draining. A sooner kill time wins; a
   * reclaim's reason wins over a shrink's, so the kill re-checks the fence rather than the plan;
   * and a container once drained because its job stops stays so: the job was told.
   */
  synchronized boolean add(Drain d) {
    movingByApp = null;
    Entry e = entries.get(d.container());
    if (e != null) {
      Drain old = e.drain;
      boolean reclaim = d.reason() == Reason.RECLAIM;
      // A reclaim does not wait for a move: its node must empty by its deadline.
      e.drain =
          new Drain(
              old.container(),
              old.app(),
              old.node(),
              Math.min(old.killAtMs(), d.killAtMs()),
              reclaim ? d.reason() : old.reason(),
              reclaim ? d.reclaimId() : old.reclaimId(),
              reclaim ? 0 : old.holdUntilMs(),
              old.stopsJob() || d.stopsJob());
      return false;
    }
    entries.put(d.container(), new Entry(d, false));
    return true;
  }

  synchronized Set<String> ids() {
    return new HashSet<>(entries.keySet());
  }

  /** Drains recorded but whose ApplicationMaster was not told yet; they are remembered as told. */
  synchronized List<Drain> announce() {
    return announce(Long.MAX_VALUE, d -> Hold.ANNOUNCE);
  }

  /**
   * Drains recorded but whose ApplicationMaster was not told yet, but for held MOVE drains that
   * {@code hold} says still wait (or, cancelled, are forgotten); they are remembered as told. A
   * MOVE's grace starts when it is told. At {@code nowMs} past its hold a MOVE is cancelled: the
   * job keeps the workers it runs on.
   */
  synchronized List<Drain> announce(long nowMs, java.util.function.Function<Drain, Hold> hold) {
    movingByApp = null;
    List<Drain> out = new ArrayList<>();
    for (var it = entries.values().iterator(); it.hasNext(); ) {
      Entry e = it.next();
      if (e.announced) {
        continue;
      }
      Drain d = e.drain;
      if (d.holdUntilMs() > 0) {
        Hold h = nowMs >= d.holdUntilMs() ? Hold.CANCEL : hold.apply(d);
        if (h == Hold.CANCEL) {
          it.remove();
          continue;
        }
        if (h == Hold.WAIT) {
          continue;
        }
        long grace = Math.max(0, d.killAtMs() - d.holdUntilMs());
        e.drain =
            d =
                new Drain(
                    d.container(),
                    d.app(),
                    d.node(),
                    Math.min(d.killAtMs(), nowMs + grace),
                    d.reason(),
                    d.reclaimId(),
                    0,
                    d.stopsJob());
      }
      e.announced = true;
      out.add(d);
    }
    return out;
  }

  /** Workers of the job being moved off their nodes (held or told). */
  synchronized int moving(String app) {
    return moving().getOrDefault(app, 0);
  }

  /** Workers of each job being moved off their nodes (held or told), by application. */
  synchronized Map<String, Integer> moving() {
    if (movingByApp == null) {
      Map<String, Integer> out = new java.util.HashMap<>();
      entries.values().stream()
          .filter(e -> e.drain.reason() == Reason.MOVE)
          .forEach(e -> out.merge(e.drain.app(), 1, Integer::sum));
      movingByApp = Map.copyOf(out);
    }
    return movingByApp;
  }

  /**
   * The containers killed and still listed on their node: the kill reaches the Capacity Scheduler
   * through its event queue, and the container leaves its node a moment later.
   */
  synchronized Set<String> killed() {
    Set<String> out = new HashSet<>();
    entries.values().stream().filter(e -> e.killed).forEach(e -> out.add(e.drain.container()));
    return out;
  }

  /** Drains told and not yet killed whose grace is over; they are remembered as killed. */
  synchronized List<Drain> due(long nowMs) {
    List<Drain> out = new ArrayList<>();
    for (Entry e : entries.values()) {
      if (e.announced && !e.killed && e.drain.killAtMs() <= nowMs) {
        e.killed = true;
        out.add(e.drain);
      }
    }
    return out;
  }

  /** Drops a drain whose reason no longer holds: the container is not killed. */
  synchronized void cancel(String container) {
    movingByApp = null;
    entries.remove(container);
  }

  /** Forgets containers that no longer run. */
  synchronized void retainOnly(Set<String> live) {
    movingByApp = null;
    entries.keySet().retainAll(live);
  }

  synchronized int size() {
    return entries.size();
  }

  /** Nodes of the containers being drained. */
  synchronized Set<String> nodes() {
    Set<String> out = new HashSet<>();
    entries.values().forEach(e -> out.add(e.drain.node()));
    return out;
  }

  synchronized DrainList toRecord() {
    return new DrainList(entries.values().stream().map(e -> e.drain.toRecord()).toList());
  }

  /**
   * Drains read back from the store; their kill times stand. They are announced again: the earlier
   * scheduler may have stopped between storing a drain and telling its ApplicationMaster, and a
   * second notice is harmless.
   */
  synchronized void restore(DrainList stored) {
    movingByApp = null;
    entries.clear();
    for (DrainRecord r : stored.containers()) {
      Reason reason = Reason.valueOf(r.reason());
      Drain d =
          new Drain(
              r.container(),
              r.app(),
              r.node(),
              r.killAtMs(),
              reason,
              r.reclaimId(),
              r.holdUntilMs(),
              r.stopsJob());
      entries.put(r.container(), new Entry(d, false));
    }
  }
}
