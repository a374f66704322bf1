package io.aryl.yarn;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;

/**
 * Containers asked to stop: each was marked for preemption (its ApplicationMaster got a PreemptionMessage) and is
 * killed once its grace ends, unless the ApplicationMaster released it first.
 */
final class Drains {
  private static final class Entry {
    final RMContainer container;
    long killAtMs;
    boolean killed;

    Entry(RMContainer container, long killAtMs) {
      this.container = container;
      this.killAtMs = killAtMs;
    }
  }

  private final Map<String, Entry> entries = new HashMap<>();

  /** Starts draining the container; true if it was not already draining. A sooner kill time wins. */
  synchronized boolean add(RMContainer c, long killAtMs) {
    String id = c.getContainerId().toString();
    Entry e = entries.get(id);
    if (e != null) {
      e.killAtMs = Math.min(e.killAtMs, killAtMs);
      return false;
    }
    entries.put(id, new Entry(c, killAtMs));
    return true;
  }

  synchronized Set<String> ids() {
    return new HashSet<>(entries.keySet());
  }

  /** Containers whose grace is over and that were not killed yet; they are remembered as killed. */
  synchronized java.util.List<RMContainer> due(long nowMs) {
    java.util.List<RMContainer> out = new java.util.ArrayList<>();
    for (Entry e : entries.values()) {
      if (!e.killed && e.killAtMs <= nowMs) {
        e.killed = true;
        out.add(e.container);
      }
    }
    return out;
  }

  /** Forgets containers that no longer run. */
  synchronized void retainOnly(Set<String> live) {
    entries.keySet().retainAll(live);
  }

  synchronized int size() {
    return entries.size();
  }
}
