package io.aryl.am;

import java.util.Optional;

/**
 * What {@link WorkerGroup} wants done; the AM's glue does it against the RM and the NodeManagers.
 */
public sealed interface WorkerAction {
  /** Write the generation record durably, before any of the actions that follow it. */
  record WriteRecord(GenerationRecord record) implements WorkerAction {}

  /** Start the worker process in a container not yet used. */
  record Launch(String id, Generation generation) implements WorkerAction {}

  /**
   * Start a new generation's worker in a container whose previous worker has exited, or outlived
   * the grace (NM re-initialization: the idle supervisor, and whatever still runs there, is
   * replaced).
   */
  record Relaunch(String id, Generation generation) implements WorkerAction {}

  /**
   * SIGTERM to the worker's processes (NodeManager GRACEFUL_SHUTDOWN): it should checkpoint and
   * exit in the grace.
   */
  record Terminate(String id) implements WorkerAction {}

  /** Give the container back to the RM (which kills it if still running). */
  record Release(String id) implements WorkerAction {}

  /** Ask the RM for n more worker containers. */
  record Ask(int n) implements WorkerAction {}

  /** Withdraw n outstanding asks. */
  record CancelAsks(int n) implements WorkerAction {}

  /**
   * Start a torchrun agent ({@link AgentGroup}) of this incarnation of the job's rendezvous in the
   * container: a container not yet used, or (re-initialisation) one whose previous agent has exited
   * or outlived the grace.
   */
  record StartAgent(String id, int incarnation, boolean reinitialize) implements WorkerAction {}

  /** The container an action addresses; empty for the record and the asks. */
  static Optional<String> container(WorkerAction a) {
    if (a instanceof Launch l) {
      return Optional.of(l.id());
    } else if (a instanceof Relaunch r) {
      return Optional.of(r.id());
    } else if (a instanceof Terminate t) {
      return Optional.of(t.id());
    } else if (a instanceof Release r) {
      return Optional.of(r.id());
    } else if (a instanceof StartAgent s) {
      return Optional.of(s.id());
    }
    return Optional.empty();
  }
}
