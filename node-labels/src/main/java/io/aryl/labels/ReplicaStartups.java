package io.aryl.labels;

import io.aryl.api.serve.ServeStatus;
import io.aryl.api.serve.ServeStatus.ScaleEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Inference replicas' start-ups, measured from the services' own scaling events ({@link
 * ServeStatus#events()}): from a container's {@link ScaleEvent#ALLOCATED} to the {@link
 * ScaleEvent#READY} of the same container, in the same service. That is the part of a returned
 * server's time to serve after it is home: the replica's launch, its model's load and its first
 * health check answered. Both times are the service AM's clock, so the difference needs no
 * synchronized hosts.
 *
 * <p>Why a replica's own start-up and not the whole chain a request waits for (the service's ask to
 * the ready of the replica granted for it): the service asks for replicas by count ({@code ask}
 * names no container, and YARN matches asks and grants by count as well), withdraws asks without an
 * event and releases a late grant as {@code surplus}, so which ask a replica answers cannot be told
 * from the events; pairing them in order would measure some other replica's wait. The reclaim (the
 * decision to the servers home) is measured by the controller itself ({@link LeadPlanner}); the
 * grant on the returned node, at most a NodeManager heartbeat after it is home, is in neither.
 *
 * <p>The events are the service's latest ones, repeated in every status read: a start-up is counted
 * once per (service, container). A replica that leaves before it answered (exited, failed to
 * launch, drained, lost: any other event naming its container) is not a start-up. A service that no
 * longer runs is forgotten, and a restarted service is a new application: its containers are never
 * matched with the old one's.
 *
 * <p>Thread-safe (one lock): the decision thread reads and takes, and a test may read alongside.
 */
final class ReplicaStartups {
  /** Per service, the containers allocated and not ready yet: when each was allocated. */
  private final Map<String, Map<String, Long>> allocatedMs = new HashMap<>();

  /** Per service, the containers already counted whose ready event is still in the window. */
  private final Map<String, Set<String>> counted = new HashMap<>();

  private final List<Long> measured = new ArrayList<>();

  /**
   * The events of service {@code application} as one read of its status shows them, oldest first.
   */
  synchronized void read(String application, List<ScaleEvent> events) {
    Map<String, Long> allocated =
        allocatedMs.computeIfAbsent(application, a -> new LinkedHashMap<>());
    Set<String> done = counted.computeIfAbsent(application, a -> new HashSet<>());
    Set<String> readyInWindow = new HashSet<>();
    for (ScaleEvent e : events) {
      if (e == null || e.container() == null || e.kind() == null) {
        continue; // about the service as a whole, or from an AM that names no container
      }
      String c = e.container();
      switch (e.kind()) {
        case ScaleEvent.ALLOCATED -> {
          if (!done.contains(c)) {
            allocated.putIfAbsent(c, e.timeMs());
          }
        }
        case ScaleEvent.READY -> {
          readyInWindow.add(c);
          Long from = allocated.remove(c);
          if (from != null && done.add(c)) {
            measured.add(Math.max(0, e.timeMs() - from));
          }
        }
        default -> allocated.remove(c);
      }
    }
    // A ready event gone from the window never comes back: its container need not be kept.
    done.retainAll(readyInWindow);
  }

  /** Only {@code applications} run now: what was kept of any other service is dropped. */
  synchronized void running(Collection<String> applications) {
    allocatedMs.keySet().retainAll(applications);
    counted.keySet().retainAll(applications);
  }

  /** The start-ups measured since the last call, milliseconds, in the order they were read. */
  synchronized List<Long> take() {
    List<Long> out = List.copyOf(measured);
    measured.clear();
    return out;
  }
}
