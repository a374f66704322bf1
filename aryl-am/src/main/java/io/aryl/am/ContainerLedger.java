package io.aryl.am;

import io.aryl.am.Membership.ScalingEvent;
import io.aryl.am.Membership.State;
import io.aryl.am.Membership.Worker;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The job's containers as the AM holds them, the same under either launcher: each one's {@link
 * State}, the asks outstanding for more, when membership last changed, the scaling events, and the
 * restart budget. It moves containers between states as it is told and records what happened; what
 * an event means for the job, and when to start or stop what, is the {@link Membership}'s ({@link
 * WorkerGroup}, {@link AgentGroup}).
 */
final class ContainerLedger {
  /**
   * Exit statuses that are YARN's doing, not the process's (ContainerExitStatus): lost, not failed.
   */
  static final Set<Integer> LOST_STATUSES = Set.of(-100, -101, -102, -105, -106, -107);

  /**
   * How long a container granted for a move waits aside for the workers it replaces to be asked
   * back: longer than the scheduler's default aryl.scheduler.move-timeout-ms (30 s), after which
   * the scheduler gives the move up.
   */
  static final long MOVE_WAIT_MS = 120_000;

  private final int min;
  private final int max;
  private final RestartBudget budget;

  /** How events name a container: each launcher has its own words (a rank, an agent). */
  private final Function<Worker, String> describe;

  private final Map<String, Worker> containers = new LinkedHashMap<>();
  private final List<ScalingEvent> events = new ArrayList<>();
  private int outstanding;
  private long changedAt;

  ContainerLedger(int min, int max, int maxRestarts, Function<Worker, String> describe) {
    if (min < 1 || max < min) {
      throw new IllegalArgumentException("need 1 <= min <= max, was min " + min + ", max " + max);
    }
    this.min = min;
    this.max = max;
    this.budget = new RestartBudget(maxRestarts);
    this.describe = describe;
  }

  /**
   * A container granted by the RM, held unless {@code wanted} is false (the job is finishing or
   * over) or max are held already: then it is released.
   */
  List<WorkerAction> allocated(String id, String host, boolean wanted, long now) {
    outstanding = Math.max(0, outstanding - 1);
    if (!wanted || containers.size() >= max) {
      return List.of(new WorkerAction.Release(id));
    }
    add(id, host, State.HELD, 0);
    changed(now, "allocated", id + " on " + host + " (" + containers.size() + " held)");
    return List.of();
  }

  /**
   * A container granted for a move: held aside (a {@link Worker#replacement}) unless {@code wanted}
   * is false or max are held aside already, then released. Membership has not changed: the settle
   * time does not start again.
   */
  List<WorkerAction> allocatedForMove(String id, String host, boolean wanted, long now) {
    if (!wanted || containers.values().stream().filter(w -> w.replacement).count() >= max) {
      return List.of(new WorkerAction.Release(id));
    }
    Worker w = add(id, host, State.HELD, 0);
    w.replacement = true;
    w.heldAsideSince = now;
    events.add(
        new ScalingEvent(
            now,
            "move",
            id
                + " on "
                + host
                + ": a new worker of a move, held aside until the"
                + " workers it replaces are asked back"));
    return List.of();
  }

  /**
   * The containers held aside for a move join as ordinary ones: the workers they replace were asked
   * back, or ({@code timedOut}) they waited longer than {@link #MOVE_WAIT_MS} and the scheduler
   * gave the move up.
   */
  void replacementsJoin(long now, boolean timedOut) {
    List<String> joined = new ArrayList<>();
    for (Worker w : containers.values()) {
      if (w.replacement && (!timedOut || now - w.heldAsideSince >= MOVE_WAIT_MS)) {
        w.replacement = false;
        joined.add(w.id);
      }
    }
    if (!joined.isEmpty()) {
      changed(
          now,
          "move",
          String.join(", ", joined)
              + (timedOut
                  ? " held aside for "
                      + MOVE_WAIT_MS / 1000
                      + " s with no worker asked back: joining as ordinary containers"
                  : " join: the workers they replace are" + " asked back"));
    }
  }

  /** Every container held but those held aside for a move, in the order they came. */
  List<Worker> memberWorkers() {
    return containers.values().stream().filter(w -> !w.replacement).toList();
  }

  /**
   * Holds a container from now on (one allocated, or recovered from an earlier attempt), in this
   * state.
   */
  Worker add(String id, String host, State state, int generation) {
    Worker w = new Worker(id, host, state, generation);
    containers.put(id, w);
    return w;
  }

  /**
   * The NodeManager accepted the start of a container's process: it runs. One told to stop while
   * its start was in flight gets its SIGTERM now, the one action returned.
   */
  List<WorkerAction> launched(String id) {
    Worker w = containers.get(id);
    if (w != null && w.state == State.LAUNCHING) {
      w.state = State.RUNNING;
    } else if (w != null && w.terminateOnLaunch) {
      w.terminateOnLaunch = false;
      return List.of(new WorkerAction.Terminate(id));
    }
    return List.of();
  }

  /**
   * A container's supervisor reports that its process exited ({@code how}, for the events). Held or
   * idle, it is a late report, ignored; draining, the container is released; stopping, it goes
   * idle. True when the process was running (RUNNING, or LAUNCHING when it exited before its
   * NodeManager's answer reached the AM): it is idle now, and what that exit means is the caller's
   * to decide.
   */
  boolean exited(Worker w, String how, long now, List<WorkerAction> out) {
    String what = describe.apply(w) + ": " + how;
    switch (w.state) {
      case HELD, IDLE -> {
        return false;
      }
      case DRAINING -> {
        containers.remove(w.id);
        changed(now, "drained", what + "; released");
        out.add(new WorkerAction.Release(w.id));
        return false;
      }
      default -> {
        // STOPPING, or running: the container is kept, running nothing.
      }
    }
    boolean running = w.running();
    w.state = State.IDLE;
    w.terminateOnLaunch = false;
    events.add(new ScalingEvent(now, "exited", what));
    return running;
  }

  /**
   * The held containers among {@code ids} that are not draining already, in id order: what a
   * preemption takes.
   */
  List<Worker> notDraining(Set<String> ids) {
    List<Worker> out = new ArrayList<>();
    for (String id : new TreeSet<>(ids)) {
      Worker w = containers.get(id);
      if (w != null && w.state != State.DRAINING) {
        out.add(w);
      }
    }
    return out;
  }

  /**
   * The RM asks for this container back. Running nothing, it is released at once; else it drains: a
   * running process is told to stop, and the container is released once its process exited, or at
   * {@code deadline}.
   */
  void preempt(Worker w, long deadline, long now, List<WorkerAction> out) {
    changed(now, "preempted", describe.apply(w) + " asked back by the RM");
    if (w.state == State.HELD || w.state == State.IDLE) {
      containers.remove(w.id);
      out.add(new WorkerAction.Release(w.id));
      return;
    }
    if (w.running()) {
      signal(w, out);
    }
    w.state = State.DRAINING;
    w.drainDeadline = deadline;
  }

  /** The containers whose process runs, or is being started. */
  List<Worker> running() {
    return containers.values().stream().filter(Worker::running).toList();
  }

  /**
   * Tells these running processes to stop (a change of membership): their containers stay,
   * STOPPING.
   */
  void stop(List<Worker> running, List<WorkerAction> out) {
    for (Worker w : running) {
      signal(w, out);
      w.state = State.STOPPING;
    }
  }

  /** SIGTERM now, or, while the start is in flight, once the NodeManager has accepted it. */
  private static void signal(Worker w, List<WorkerAction> out) {
    if (w.state == State.RUNNING) {
      out.add(new WorkerAction.Terminate(w.id));
    } else {
      w.terminateOnLaunch = true;
    }
  }

  /** Releases the draining containers whose process outlived the grace. */
  void releaseDrainedAtGrace(long now, List<WorkerAction> out) {
    for (Worker w : List.copyOf(containers.values())) {
      if (w.state == State.DRAINING && now >= w.drainDeadline) {
        containers.remove(w.id);
        out.add(new WorkerAction.Release(w.id));
        events.add(
            new ScalingEvent(
                now, "released", describe.apply(w) + " released at the end of the grace"));
      }
    }
  }

  /**
   * While the job finishes: releases the containers that run nothing, since nothing will start in
   * them again.
   */
  void releaseUnused(long now, List<WorkerAction> out) {
    for (Worker w : List.copyOf(containers.values())) {
      if (w.state == State.HELD || w.state == State.IDLE) {
        containers.remove(w.id);
        out.add(new WorkerAction.Release(w.id));
        events.add(
            new ScalingEvent(
                now, "released", describe.apply(w) + ": not needed, the job is finishing"));
      }
    }
  }

  /** Asks for the containers that max still lacks, beyond those asked for already. */
  void askForMissing(List<WorkerAction> out) {
    int want = max - containers.size() - outstanding;
    if (want > 0) {
      outstanding += want;
      out.add(new WorkerAction.Ask(want));
    }
  }

  /** Withdraws every outstanding ask: the job is finishing. */
  List<WorkerAction> cancelAsks() {
    List<WorkerAction> out = new ArrayList<>();
    if (outstanding > 0) {
      out.add(new WorkerAction.CancelAsks(outstanding));
      outstanding = 0;
    }
    return out;
  }

  /**
   * Charges a failure ({@code what} the container's process did) to the restart budget, with an
   * event; false, and no event, when that failure is one past the budget.
   */
  boolean charge(Worker w, String what, long now) {
    if (!budget.spend()) {
      return false;
    }
    events.add(
        new ScalingEvent(
            now,
            "restart",
            describe.apply(w)
                + " "
                + what
                + " (restart "
                + budget.used()
                + " of "
                + budget.max()
                + ")"));
    return true;
  }

  /** Why the budget failed the job, e.g. {@code 4 worker failures, more than --max-restarts=3}. */
  String overBudget(String failures) {
    return budget.used() + " " + failures + " failures, more than --max-restarts=" + budget.max();
  }

  /** A change of membership: the settle time starts again. */
  void changed(long now) {
    changedAt = now;
  }

  /** A change of membership, and its event. */
  void changed(long now, String kind, String detail) {
    changedAt = now;
    events.add(new ScalingEvent(now, kind, detail));
  }

  void event(long now, String kind, String detail) {
    events.add(new ScalingEvent(now, kind, detail));
  }

  /** Whether membership has not changed for {@code ms}. */
  boolean stillFor(long ms, long now) {
    return now - changedAt >= ms;
  }

  /**
   * The containers held, kept at least until the ones draining are released; none held aside for a
   * move.
   */
  long members() {
    return containers.values().stream()
        .filter(w -> w.state != State.DRAINING && !w.replacement)
        .count();
  }

  boolean any(State state) {
    return containers.values().stream().anyMatch(w -> w.state == state);
  }

  /**
   * The containers running nothing: not started yet, or their process exited; none held aside for a
   * move.
   */
  List<Worker> unused() {
    return containers.values().stream()
        .filter(w -> (w.state == State.HELD || w.state == State.IDLE) && !w.replacement)
        .toList();
  }

  Worker get(String id) {
    return containers.get(id);
  }

  Worker remove(String id) {
    return containers.remove(id);
  }

  boolean holds(String id) {
    return containers.containsKey(id);
  }

  /** Every container held, in the order they came; a live view. */
  Collection<Worker> all() {
    return Collections.unmodifiableCollection(containers.values());
  }

  Set<String> ids() {
    return Collections.unmodifiableSet(containers.keySet());
  }

  int size() {
    return containers.size();
  }

  boolean isEmpty() {
    return containers.isEmpty();
  }

  /** Every container held, in the order they came; a copy. */
  List<Worker> list() {
    return List.copyOf(containers.values());
  }

  List<ScalingEvent> events() {
    return List.copyOf(events);
  }

  int outstandingAsks() {
    return outstanding;
  }

  int restartsUsed() {
    return budget.used();
  }

  int min() {
    return min;
  }

  int max() {
    return max;
  }
}
