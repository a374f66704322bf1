package io.aryl.labels;

import io.aryl.api.status.ReclaimStatus.Phase;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * {@link Pools} in memory: nodes with one label each, and a scheduler whose reclaims the test finishes, and which the
 * test can make unreachable, recovering, forgetful of its reclaims (a new scheduler instance after a restart or
 * failover), or refusing.
 */
final class FakePools implements Pools {
  final Map<String, String> labels = new TreeMap<>();
  final Map<String, Integer> containers = new TreeMap<>();
  final List<SchedulerReclaim> reclaims = new ArrayList<>();
  final AtomicInteger reclaimRequests = new AtomicInteger();
  final AtomicInteger relabels = new AtomicInteger();
  final AtomicLong nextReclaimId = new AtomicLong(1);
  /** Every reclaim request, accepted or refused, at the time of {@link #clock}. */
  final List<Long> reclaimRequestsMs = new CopyOnWriteArrayList<>();
  final List<Map<String, Object>> reports = new CopyOnWriteArrayList<>();
  /** The ResourceManager does not answer at all. */
  volatile boolean down;
  /** The scheduler's REST resource does not answer. */
  volatile boolean schedulerDown;
  /** The scheduler says it is recovering. */
  volatile boolean recovering;
  /** The scheduler lists no reclaim and fences none: it does not know them. */
  volatile boolean forgetsReclaims;
  /** The scheduler refuses every reclaim. */
  volatile boolean refusesReclaims;
  volatile LongSupplier clock = System::currentTimeMillis;
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
  public SchedulerReclaim requestReclaim(int nodes, long deadlineMs) throws IOException, ReclaimRefusedException {
    SchedulerReclaim r;
    synchronized (this) {
      if (down || schedulerDown) {
        throw new IOException("scheduler down");
      }
      reclaimRequests.incrementAndGet();
      reclaimRequestsMs.add(clock.getAsLong());
      if (refusesReclaims) {
        throw new ReclaimRefusedException("the scheduler refuses every reclaim");
      }
      List<String> loaned = new ArrayList<>();
      Set<String> fenced = new HashSet<>();
      visibleReclaims().stream().filter(x -> !x.done()).forEach(x -> fenced.addAll(x.nodes()));
      labels.forEach((n, l) -> {
        if (n.startsWith("inf") && l.equals("training") && !fenced.contains(n)) {
          loaned.add(n);
        }
      });
      if (loaned.size() < nodes) {
        throw new ReclaimRefusedException("asked for " + nodes + ", only " + loaned.size() + " are loaned");
      }
      r = new SchedulerReclaim(nextReclaimId.getAndIncrement(), Phase.DRAINING, loaned.subList(0, nodes),
          clock.getAsLong(), deadlineMs);
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
        reclaims.set(i, new SchedulerReclaim(r.id(), Phase.DONE, r.nodes(), r.requestedMs(), r.deadlineMs()));
      }
    }
  }

  private List<SchedulerReclaim> visibleReclaims() {
    return forgetsReclaims ? List.of() : List.copyOf(reclaims);
  }

  @Override
  public synchronized SchedulerView scheduler() throws IOException {
    if (down || schedulerDown) {
      throw new IOException("scheduler down");
    }
    return new SchedulerView(visibleReclaims(), recovering);
  }

  @Override
  public void reportStatus(Map<String, Object> status) throws IOException {
    if (down || schedulerDown) {
      throw new IOException("scheduler down");
    }
    reports.add(status);
  }

  synchronized long count(String label) {
    return labels.entrySet().stream().filter(e -> e.getKey().startsWith("inf") && e.getValue().equals(label)).count();
  }
}
