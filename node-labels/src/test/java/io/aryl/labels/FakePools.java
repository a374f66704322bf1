package io.aryl.labels;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/** {@link Pools} in memory: nodes with one label each, and a scheduler whose reclaims the test finishes. */
final class FakePools implements Pools {
  final Map<String, String> labels = new TreeMap<>();
  final Map<String, Integer> containers = new TreeMap<>();
  final List<SchedulerReclaim> reclaims = new ArrayList<>();
  final AtomicInteger reclaimRequests = new AtomicInteger();
  final AtomicInteger relabels = new AtomicInteger();
  volatile boolean down;
  /** Run after a reclaim was accepted, before its answer returns (e.g. to kill the caller). */
  volatile Runnable afterReclaimAccepted = () -> {};

  synchronized void node(String name, String label, int running) {
    labels.put(name, label);
    containers.put(name, running);
  }

  @Override
  public synchronized List<PoolNode> nodes() throws IOException {
    if (down) {
      throw new IOException("RM down");
    }
    List<PoolNode> out = new ArrayList<>();
    labels.forEach((n, l) -> out.add(new PoolNode(n, Set.of(l), containers.get(n))));
    return out;
  }

  @Override
  public synchronized void relabel(String node, String label) {
    relabels.incrementAndGet();
    labels.put(node, label);
  }

  @Override
  public SchedulerReclaim requestReclaim(int nodes, long deadlineMs) throws ReclaimRefusedException {
    SchedulerReclaim r;
    synchronized (this) {
      reclaimRequests.incrementAndGet();
      List<String> loaned = new ArrayList<>();
      Set<String> fenced = new java.util.HashSet<>();
      reclaims.stream().filter(x -> !x.done()).forEach(x -> fenced.addAll(x.nodes()));
      labels.forEach((n, l) -> {
        if (n.startsWith("inf") && l.equals("training") && !fenced.contains(n)) {
          loaned.add(n);
        }
      });
      if (loaned.size() < nodes) {
        throw new ReclaimRefusedException("asked for " + nodes + ", only " + loaned.size() + " are loaned");
      }
      r = new SchedulerReclaim(reclaims.size() + 1, "DRAINING", loaned.subList(0, nodes), System.currentTimeMillis(),
          deadlineMs);
      reclaims.add(r);
    }
    afterReclaimAccepted.run();
    return r;
  }

  /** The scheduler finishes every reclaim: relabels its nodes inference. */
  synchronized void finishReclaims() {
    for (int i = 0; i < reclaims.size(); i++) {
      SchedulerReclaim r = reclaims.get(i);
      if (!r.done()) {
        r.nodes().forEach(n -> labels.put(n, "inference"));
        reclaims.set(i, new SchedulerReclaim(r.id(), "DONE", r.nodes(), r.requestedMs(), r.deadlineMs()));
      }
    }
  }

  @Override
  public synchronized List<SchedulerReclaim> reclaims() {
    return List.copyOf(reclaims);
  }

  synchronized long count(String label) {
    return labels.entrySet().stream().filter(e -> e.getKey().startsWith("inf") && e.getValue().equals(label)).count();
  }
}
