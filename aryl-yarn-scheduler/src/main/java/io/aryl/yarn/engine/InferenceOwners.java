package io.aryl.yarn.engine;

import io.aryl.yarn.state.Owners;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Which nodes the inference pool owns: a fact about the fleet, not something to infer from the label seen last. A node
 * is inference's once it was seen labelled {@code inference} (or its name matches
 * {@code aryl.scheduler.inference.nodes}); labelled {@code training}, it is on loan. The set is durable: a newly
 * active scheduler knows every loan its predecessor knew.
 */
final class InferenceOwners {
  private final String inferenceLabel;
  private final Pattern configured;
  private final Set<String> owned = ConcurrentHashMap.newKeySet(); // only ever added to
  /** Whether {@link #owned} is still empty: asked for every node each round, where the set's size() sums counters. */
  private volatile boolean noneOwned = true;
  /** Whether each node's name matches {@code configured}: asked for every node each round, matched once. */
  private final Map<String, Boolean> matchesConfigured = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong learnt = new java.util.concurrent.atomic.AtomicLong();
  private volatile long saved;
  /** Moves whenever an answer of {@link #owns} may have changed: a node learnt or restored. */
  private final java.util.concurrent.atomic.AtomicLong changes = new java.util.concurrent.atomic.AtomicLong();

  InferenceOwners(String inferenceLabel, Pattern configured) {
    this.inferenceLabel = inferenceLabel;
    this.configured = configured;
  }

  boolean owns(String nodeName) {
    if (configured == null && noneOwned) {
      return false; // a cluster without inference nodes: asked for every node each round, answered at once
    }
    return owned.contains(nodeName) || (configured != null && matchesConfigured.computeIfAbsent(nodeName,
        n -> configured.matcher(n).matches()));
  }

  /** Remembers a node seen in the inference pool; true if it was not known. */
  boolean observe(String nodeName, String label) {
    if (inferenceLabel.equals(label) && owned.add(nodeName)) {
      noneOwned = false;
      learnt.incrementAndGet();
      changes.incrementAndGet();
      return true;
    }
    return false;
  }

  /** What to store, and the count of nodes learnt it covers: pass that to {@link #saved} once it is stored. */
  Snapshot snapshot() {
    long n = learnt.get();
    return new Snapshot(new Owners(List.copyOf(new TreeSet<>(owned))), n);
  }

  record Snapshot(Owners owners, long learnt) {}

  /** True if a node was learnt since the last snapshot that was stored. */
  boolean unsaved() {
    return learnt.get() != saved;
  }

  void saved(Snapshot s) {
    saved = Math.max(saved, s.learnt());
  }

  /** Adds the stored nodes to those seen since this scheduler was made; the union is what is stored next. */
  void restore(Owners stored) {
    stored.inference().forEach(n -> {
      if (n == null || n.isBlank()) {
        throw new IllegalArgumentException("an inference node name is blank");
      }
    });
    owned.addAll(stored.inference());
    noneOwned = owned.isEmpty();
    changes.incrementAndGet();
  }

  /** A count that moves, after the change, whenever an answer of {@link #owns} may have changed. */
  long changes() {
    return changes.get();
  }
}
