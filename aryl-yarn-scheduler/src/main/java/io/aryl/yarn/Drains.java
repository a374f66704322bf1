package io.aryl.yarn;

import io.aryl.yarn.state.DrainList;
import io.aryl.yarn.state.DrainRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Containers asked to stop: each is recorded (and stored) first, then announced to its ApplicationMaster (a
 * PreemptionMessage), and killed once its grace ends unless the ApplicationMaster released it first — and unless the
 * reason it was asked for no longer holds, which is checked again just before the kill.
 */
final class Drains {
  /** Why a container is asked to stop. */
  enum Reason {
    /** Its job is above the plan's target. */
    SHRINK,
    /** It belongs to a gang below its minimum that nothing completes. */
    ORPHAN,
    /** Its node is being returned to inference. */
    RECLAIM
  }

  /** One container being drained. */
  record Drain(String container, String app, String node, long killAtMs, Reason reason, long reclaimId) {
    DrainRecord toRecord() {
      return new DrainRecord(container, app, node, killAtMs, reason.name(), reclaimId);
    }
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
   * Starts draining the container; true if it was not already draining. A sooner kill time wins; a reclaim's reason
   * wins over a shrink's, so the kill re-checks the fence rather than the plan.
   */
  synchronized boolean add(Drain d) {
    Entry e = entries.get(d.container());
    if (e != null) {
      Drain old = e.drain;
      Reason reason = d.reason() == Reason.RECLAIM ? d.reason() : old.reason();
      long reclaim = d.reason() == Reason.RECLAIM ? d.reclaimId() : old.reclaimId();
      e.drain = new Drain(old.container(), old.app(), old.node(), Math.min(old.killAtMs(), d.killAtMs()), reason,
          reclaim);
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
    List<Drain> out = new ArrayList<>();
    for (Entry e : entries.values()) {
      if (!e.announced) {
        e.announced = true;
        out.add(e.drain);
      }
    }
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
    entries.remove(container);
  }

  /** Forgets containers that no longer run. */
  synchronized void retainOnly(Set<String> live) {
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
   * Drains read back from the store; their kill times stand. They are announced again: the earlier scheduler may have
   * stopped between storing a drain and telling its ApplicationMaster, and a second notice is harmless.
   */
  synchronized void restore(DrainList stored) {
    entries.clear();
    for (DrainRecord r : stored.containers()) {
      Drain d = new Drain(r.container(), r.app(), r.node(), r.killAtMs(), Reason.valueOf(r.reason()), r.reclaimId());
      entries.put(r.container(), new Entry(d, false));
    }
  }
}
