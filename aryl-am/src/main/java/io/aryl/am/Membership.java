package io.aryl.am;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The job's containers and what to do next, as the ApplicationMaster drives it: pure bookkeeping,
 * no YARN calls. Events go in, {@link WorkerAction}s come out; one thread at a time (the AM holds a
 * lock around it). Two implementations, one per launcher: {@link WorkerGroup} ({@code --launcher
 * env}: the AM forms every generation) and {@link AgentGroup} ({@code --launcher torchrun}:
 * torchrun's agents form them among themselves). Both keep their containers in a {@link
 * ContainerLedger}. The types below are theirs in common, named through this interface (e.g. {@code
 * Membership.Worker}) wherever either implementation may be behind it.
 */
public interface Membership {
  enum State {
    /** Allocated; no worker started in it yet. */
    HELD,
    /** A worker's start or restart was sent to its NodeManager, which has not accepted it yet. */
    LAUNCHING,
    /** Its worker runs, as far as the AM knows. */
    RUNNING,
    /** Told to stop for a generation change; it stays for the next generation. */
    STOPPING,
    /** Asked back by the RM and told to stop; released once its worker exited, or at the grace. */
    DRAINING,
    /**
     * Its worker exited; the container is kept, running nothing but its supervisor, until a
     * generation uses it.
     */
    IDLE
  }

  /** One worker container as the group sees it. */
  final class Worker {
    final String id;
    final String host;
    State state;
    int generation;
    long drainDeadline;

    /**
     * Told to stop while its start was in flight: SIGTERM goes out once the NodeManager has
     * accepted the start.
     */
    boolean terminateOnLaunch;

    /**
     * A new worker of a move (granted under {@code JobShape.MOVE_REQUEST_ID}), held aside since
     * {@link #heldAsideSince}: not a member until the workers it replaces are asked back.
     */
    boolean replacement;

    long heldAsideSince;

    Worker(String id, String host, State state, int generation) {
      this.id = id;
      this.host = host;
      this.state = state;
      this.generation = generation;
    }

    public String id() {
      return id;
    }

    public String host() {
      return host;
    }

    public State state() {
      return state;
    }

    public int generation() {
      return generation;
    }

    /** Its process runs, or its start is in flight. */
    boolean running() {
      return state == State.RUNNING || state == State.LAUNCHING;
    }
  }

  /** Something that changed the job's size or membership, for the status page. */
  record ScalingEvent(long timeMs, String kind, String detail) {}

  /** How the job ended. */
  record Outcome(boolean succeeded, String diagnostics) {}

  /** What the previous AM attempt recorded; called once, before the first tick. */
  void resume(GenerationRecord previous, long now);

  /** The previous attempt's record exists but cannot be trusted. */
  void recordUnreadable(String problem, long now);

  /** A container granted by the RM. */
  List<WorkerAction> allocated(String id, String host, long now);

  /**
   * A container granted for a move: the scheduler places the job elsewhere and grants its new
   * workers before it asks the old ones back. Held aside, not a member (no grow), until a running
   * container is asked back; then it takes part in the generation change that follows. One held
   * aside longer than {@link ContainerLedger#MOVE_WAIT_MS} joins as an ordinary container.
   */
  List<WorkerAction> allocatedForMove(String id, String host, long now);

  /** A container kept from an earlier AM attempt. */
  List<WorkerAction> recovered(String id, String host, long now);

  /** The NodeManager accepted the start (or re-initialisation) of a container's process. */
  List<WorkerAction> launched(String id);

  /** The NodeManager refused to start a container's process. */
  List<WorkerAction> launchFailed(String id, String why, long now);

  /** A container ended (exited, killed or released). */
  List<WorkerAction> completed(String id, int exitStatus, String diagnostics, long now);

  /** A container the RM reported completed: its id, exit status and diagnostics. */
  record Completion(String id, int exitStatus, String diagnostics) {}

  /**
   * Exit status of a container the AM counts as gone without the RM's word (ContainerExitStatus
   * ABORTED, one of {@link ContainerLedger#LOST_STATUSES}): YARN's doing, never charged.
   */
  int GONE_STATUS = -100;

  /**
   * Containers the RM reported completed together (one heartbeat's): each as {@link
   * #completed(String, int, String, long)}, in order. They are gone: none of the actions returned
   * addresses one of them (a generation change that the first starts must not signal, restart or
   * release the others, whose NodeManager no longer knows them).
   */
  default List<WorkerAction> completed(List<Completion> batch, long now) {
    Set<String> ids = new LinkedHashSet<>();
    batch.forEach(c -> ids.add(c.id()));
    List<WorkerAction> out = new ArrayList<>();
    for (Completion c : batch) {
      out.addAll(completed(c.id(), c.exitStatus(), c.diagnostics(), now));
    }
    return withoutActionsOn(ids, out);
  }

  /**
   * Containers that are gone though the RM has not reported them completed (yet): their node was
   * reported lost or unusable, or their NodeManager refused a call on them as not its own (an
   * NMToken it did not issue, a container it does not know). Each ends as a container completed
   * with {@link #GONE_STATUS} ({@code why} its diagnostics): never signalled, restarted or waited
   * for again, never charged. Each one held is released, so that the RM frees whatever it still
   * holds for it (a container on an unhealthy node still runs); ids not held are ignored.
   */
  default List<WorkerAction> gone(Set<String> ids, String why, long now) {
    Set<String> held = new LinkedHashSet<>();
    for (Worker w : workers()) {
      if (ids.contains(w.id())) {
        held.add(w.id());
      }
    }
    List<WorkerAction> out = new ArrayList<>();
    for (String id : held) {
      out.addAll(completed(id, GONE_STATUS, why, now));
    }
    List<WorkerAction> kept = new ArrayList<>(withoutActionsOn(held, out));
    held.forEach(id -> kept.add(new WorkerAction.Release(id)));
    return kept;
  }

  /** The actions that address none of {@code ids}. */
  private static List<WorkerAction> withoutActionsOn(Set<String> ids, List<WorkerAction> actions) {
    return actions.stream()
        .filter(a -> WorkerAction.container(a).map(id -> !ids.contains(id)).orElse(true))
        .toList();
  }

  /** A container's supervisor reports that its process exited, the container still held. */
  List<WorkerAction> exited(String id, int generation, int status, boolean toldToStop, long now);

  /** The RM asks for these containers back. */
  List<WorkerAction> preempted(Set<String> ids, long now);

  /** Periodic decisions. */
  List<WorkerAction> tick(long now);

  /** The generation the AM formed last; null when there is none (always, under torchrun). */
  Generation current();

  List<Generation> generations();

  List<Worker> workers();

  List<ScalingEvent> events();

  int outstandingAsks();

  int restartsUsed();

  boolean finishing();

  /** Present once the job is over; the AM then unregisters. */
  Outcome outcome();
}
