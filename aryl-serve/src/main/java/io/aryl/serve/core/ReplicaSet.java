package io.aryl.serve.core;

import io.aryl.api.serve.ServeStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The inference service's replicas and how many it wants: the ApplicationMaster's decisions, with
 * no YARN or HTTP call. Events come in (a container granted, started, polled, preempted, completed;
 * a clock tick), {@link ReplicaAction}s go out, and the AM carries them out. Not thread safe: the
 * AM calls it under one lock.
 *
 * <p>The rules:
 *
 * <ul>
 *   <li><b>Target.</b> Every tick the request rate the replicas answered over the window ({@link
 *       RateWindow}) gives {@code wanted = ceil(rate / targetRpsPerReplica)} within min and max. A
 *       wanted above the target raises it at once. A wanted below it lowers it only once the rate
 *       has called for fewer replicas for {@code scaleDownAfterMs} without a break, and then to the
 *       highest wanted seen in that time (the hysteresis).
 *   <li><b>Replicas.</b> Live replicas (granted, starting or running; not draining) plus asks not
 *       granted yet are kept equal to the target: missing ones are asked for; extra asks are
 *       withdrawn first, then extra replicas drained, those not serving yet first, newest first.
 *   <li><b>Endpoints.</b> A replica serves once it answered its health check; the endpoints are the
 *       running replicas. A draining replica is out of them at once and its container is released
 *       {@code drainMs} later (at once if it never served), so requests already sent finish.
 *   <li><b>Replacement.</b> A replica preempted (PreemptionMessage), lost or exited leaves the live
 *       ones, so the next reconciliation asks for another. A replica that exits or fails to start
 *       before it ever answered counts as a failure; after {@code maxReplicaFailures} the service
 *       fails ({@link #failure()}).
 *   <li><b>Ports.</b> Each replica is given a port of the range, drawn at random (seeded) among
 *       those none of the service's replicas on the same host holds. One taken by another process
 *       makes the replica exit, and its replacement draws again.
 * </ul>
 */
public final class ReplicaSet {
  /** A replica's life, in order. */
  public enum State {
    /** Granted by the RM, its command not started yet. */
    ALLOCATED,
    /** Its command started, no healthy answer yet. */
    STARTING,
    /** Answered its health check: one of the endpoints. */
    RUNNING,
    /** Out of the endpoints; its container is released at {@code releaseAtMs}. */
    DRAINING
  }

  private static final int EVENTS_KEPT = 100;

  private static final class Replica {
    final String id;
    final String host;
    final int port;
    final long allocatedMs;
    State state = State.ALLOCATED;
    boolean everServed;
    long requests = -1;
    long releaseAtMs = Long.MAX_VALUE;
    boolean released;

    Replica(String id, String host, int port, long allocatedMs) {
      this.id = id;
      this.host = host;
      this.port = port;
      this.allocatedMs = allocatedMs;
    }

    boolean live() {
      return state != State.DRAINING;
    }
  }

  private final ScalingSettings settings;
  private final Random ports;
  private final Map<String, Replica> replicas = new LinkedHashMap<>();
  private final RateWindow rate;
  private final Deque<ServeStatus.ScaleEvent> events = new ArrayDeque<>();
  private int asked;
  private int target;
  private double lastRate;
  private long belowSinceMs = -1;
  private int highestWantedBelow;
  private int failures;
  private String failure;

  public ReplicaSet(ScalingSettings settings, long seed) {
    this.settings = settings;
    this.ports = new Random(seed);
    this.rate = new RateWindow(settings.windowMs());
    this.target = settings.replicasMin();
  }

  /** The first actions: ask for the minimum. */
  public List<ReplicaAction> start(long now) {
    event(now, "start", "target " + target + " (--replicas-min)");
    return reconcile(now);
  }

  /** The RM granted a container for a replica. */
  public List<ReplicaAction> allocated(String id, String host, long now) {
    if (asked > 0) {
      asked--;
    }
    List<ReplicaAction> out = new ArrayList<>();
    if (liveCount() >= target) {
      // An ask withdrawn too late: the RM had granted it already.
      event(now, "surplus", id, id + " on " + host + " is not needed (target " + target + ")");
      out.add(new ReplicaAction.Release(id));
      return out;
    }
    Replica r = new Replica(id, host, freePort(host), now);
    replicas.put(id, r);
    event(now, ServeStatus.ScaleEvent.ALLOCATED, id, id + " on " + host + ", port " + r.port);
    out.add(new ReplicaAction.Launch(id, host, r.port));
    out.addAll(reconcile(now));
    return out;
  }

  /** The NodeManager started the replica's command. */
  public List<ReplicaAction> launched(String id, long now) {
    Replica r = replicas.get(id);
    if (r != null && r.state == State.ALLOCATED) {
      r.state = State.STARTING;
    }
    return List.of();
  }

  /** The NodeManager refused to start the replica's command. */
  public List<ReplicaAction> launchFailed(String id, String why, long now) {
    Replica r = replicas.get(id);
    if (r == null || r.released) {
      return List.of();
    }
    failed(now, "launch-failed", id, id + ": " + why);
    List<ReplicaAction> out = new ArrayList<>(drain(r, now));
    out.addAll(reconcile(now));
    return out;
  }

  /**
   * The AM polled a replica: whether it answered its health check, and its request counter (-1 if
   * it reported none).
   */
  public List<ReplicaAction> polled(String id, boolean healthy, long requests, long now) {
    Replica r = replicas.get(id);
    if (r == null || r.state == State.DRAINING) {
      return List.of();
    }
    if (healthy && r.state != State.RUNNING) {
      r.state = State.RUNNING;
      r.everServed = true;
      event(
          now,
          ServeStatus.ScaleEvent.READY,
          id,
          id + " serves at " + endpoint(r) + ", " + (now - r.allocatedMs) + " ms after its grant");
    }
    if (requests >= 0) {
      r.requests = requests;
      rate.add(id, requests, now);
    }
    return List.of();
  }

  /** The RM will take these containers back (a PreemptionMessage): drain them, replace them. */
  public List<ReplicaAction> preempted(Set<String> ids, long now) {
    List<ReplicaAction> out = new ArrayList<>();
    for (String id : ids) {
      Replica r = replicas.get(id);
      if (r != null && r.live()) {
        event(
            now, "preempted", id, id + " on " + r.host + ": draining, a replacement is asked for");
        out.addAll(drain(r, now));
      }
    }
    out.addAll(reconcile(now));
    return out;
  }

  /** A replica's container ended: released by the AM, preempted, lost with its node, or exited. */
  public List<ReplicaAction> completed(String id, int exitStatus, String diagnostics, long now) {
    Replica r = replicas.remove(id);
    rate.remove(id);
    if (r == null) {
      return List.of();
    }
    if (r.state != State.DRAINING) {
      String what =
          id + " on " + r.host + " ended with exit status " + exitStatus + oneLine(diagnostics);
      if (r.everServed) {
        event(now, "lost", id, what + "; a replacement is asked for");
      } else {
        failed(now, "exited", id, what + " before it ever answered its health check");
      }
    } else {
      event(now, "released", id, id + " on " + r.host);
    }
    return reconcile(now);
  }

  /** The clock: the rate, the target, drains that are over. */
  public List<ReplicaAction> tick(long now) {
    lastRate = rate.rate(now);
    int wanted = settings.replicasFor(lastRate);
    if (wanted > target) {
      event(
          now,
          "scale-up",
          String.format("rate %.1f/s wants %d: %d -> %d", lastRate, wanted, target, wanted));
      target = wanted;
      belowSinceMs = -1;
    } else if (wanted < target) {
      if (belowSinceMs < 0) {
        belowSinceMs = now;
        highestWantedBelow = wanted;
      }
      highestWantedBelow = Math.max(highestWantedBelow, wanted);
      if (now - belowSinceMs >= settings.scaleDownAfterMs()) {
        event(
            now,
            "scale-down",
            String.format(
                "rate %.1f/s has wanted at most %d for %d ms: %d -> %d",
                lastRate, highestWantedBelow, now - belowSinceMs, target, highestWantedBelow));
        target = highestWantedBelow;
        belowSinceMs = -1;
      }
    } else {
      belowSinceMs = -1;
    }
    List<ReplicaAction> out = new ArrayList<>();
    for (Replica r : replicas.values()) {
      if (r.state == State.DRAINING && !r.released && now >= r.releaseAtMs) {
        r.released = true;
        out.add(new ReplicaAction.Release(r.id));
      }
    }
    out.addAll(reconcile(now));
    return out;
  }

  /** Why the service failed, or null while it runs. */
  public String failure() {
    return failure;
  }

  public int target() {
    return target;
  }

  public double rate() {
    return lastRate;
  }

  public int asked() {
    return asked;
  }

  /** The replicas serving now, by container id, in the order they were granted. */
  public List<String> running() {
    return replicas.values().stream().filter(r -> r.state == State.RUNNING).map(r -> r.id).toList();
  }

  /** Where the AM polls: every replica whose command may be up (not draining), by container id. */
  public Map<String, String> pollable() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Replica r : replicas.values()) {
      if (r.state == State.STARTING || r.state == State.RUNNING) {
        out.put(r.id, endpoint(r));
      }
    }
    return out;
  }

  /** The status the AM serves, from this set. */
  public ServeStatus status(String application, String state, int gpusPerReplica) {
    List<String> endpoints = new ArrayList<>();
    List<ServeStatus.ReplicaStatus> all = new ArrayList<>();
    int starting = 0;
    for (Replica r : replicas.values()) {
      if (r.state == State.RUNNING) {
        endpoints.add(endpoint(r));
      } else if (r.state != State.DRAINING) {
        starting++;
      }
      all.add(new ServeStatus.ReplicaStatus(r.id, r.host, r.port, r.state.name(), r.requests));
    }
    return new ServeStatus(
        application,
        failure != null ? "FAILED" : state,
        settings.replicasMin(),
        settings.replicasMax(),
        settings.targetRpsPerReplica(),
        gpusPerReplica,
        lastRate,
        target,
        endpoints.size(),
        starting,
        asked,
        endpoints,
        all,
        List.copyOf(events));
  }

  private static String endpoint(Replica r) {
    return "http://" + r.host + ":" + r.port;
  }

  private List<ReplicaAction> drain(Replica r, long now) {
    boolean served = r.state == State.RUNNING;
    r.state = State.DRAINING;
    rate.remove(r.id);
    r.releaseAtMs = served ? now + settings.drainMs() : now;
    if (r.releaseAtMs <= now && !r.released) {
      r.released = true;
      return List.of(new ReplicaAction.Release(r.id));
    }
    return List.of();
  }

  /** Live replicas plus asks equal to the target. */
  private List<ReplicaAction> reconcile(long now) {
    if (failure != null) {
      return List.of();
    }
    List<ReplicaAction> out = new ArrayList<>();
    int need = target - liveCount() - asked;
    if (need > 0) {
      asked += need;
      event(now, "ask", need + " replica(s): " + liveCount() + " live, target " + target);
      out.add(new ReplicaAction.Ask(need));
      return out;
    }
    int cancel = Math.min(asked, -need);
    if (cancel > 0) {
      asked -= cancel;
      out.add(new ReplicaAction.CancelAsks(cancel));
      need += cancel;
    }
    List<Replica> live = replicas.values().stream().filter(Replica::live).toList();
    List<Replica> order = new ArrayList<>();
    for (int i = live.size() - 1; i >= 0; i--) {
      if (live.get(i).state != State.RUNNING) {
        order.add(live.get(i));
      }
    }
    for (int i = live.size() - 1; i >= 0; i--) {
      if (live.get(i).state == State.RUNNING) {
        order.add(live.get(i));
      }
    }
    for (int i = 0; i < -need && i < order.size(); i++) {
      Replica r = order.get(i);
      event(
          now,
          "drain",
          r.id,
          r.id + " on " + r.host + ": " + liveCount() + " live, target " + target);
      out.addAll(drain(r, now));
    }
    return out;
  }

  private int liveCount() {
    int n = 0;
    for (Replica r : replicas.values()) {
      if (r.live()) {
        n++;
      }
    }
    return n;
  }

  private int freePort(String host) {
    Set<Integer> taken = new HashSet<>();
    for (Replica r : replicas.values()) {
      if (r.host.equals(host)) {
        taken.add(r.port);
      }
    }
    int span = settings.portTo() - settings.portFrom() + 1;
    while (true) {
      int p = settings.portFrom() + ports.nextInt(span);
      if (!taken.contains(p)) {
        return p;
      }
    }
  }

  private void failed(long now, String kind, String container, String what) {
    failures++;
    event(
        now,
        kind,
        container,
        what + " (failure " + failures + " of " + settings.maxReplicaFailures() + " allowed)");
    if (failures > settings.maxReplicaFailures() && failure == null) {
      failure =
          failures
              + " replicas failed before they ever answered their health check (--max-replica-failures "
              + settings.maxReplicaFailures()
              + "); the last: "
              + what;
      event(now, "failed", failure);
    }
  }

  private void event(long now, String kind, String detail) {
    event(now, kind, null, detail);
  }

  /** An event about one replica, {@code container}; null: about the service as a whole. */
  private void event(long now, String kind, String container, String detail) {
    events.addLast(new ServeStatus.ScaleEvent(now, kind, detail, container));
    while (events.size() > EVENTS_KEPT) {
      events.removeFirst();
    }
  }

  private static String oneLine(String diagnostics) {
    if (diagnostics == null || diagnostics.isBlank()) {
      return "";
    }
    String s = diagnostics.strip().replaceAll("\\s+", " ");
    return ": " + (s.length() > 200 ? s.substring(0, 200) + "..." : s);
  }
}
