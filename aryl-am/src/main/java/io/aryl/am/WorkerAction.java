package io.aryl.am;

/** What {@link WorkerGroup} wants done; the AM's glue does it against the RM and the NodeManagers. */
public sealed interface WorkerAction {
  /** Write the generation record durably, before any of the actions that follow it. */
  record Record(GenerationRecord record) implements WorkerAction {}

  /** Start the worker process in a container not yet used. */
  record Launch(String id, Generation generation) implements WorkerAction {}

  /** Restart a running container's process with a new generation's environment (NM re-initialization). */
  record Relaunch(String id, Generation generation) implements WorkerAction {}

  /** Replace a container's process with an idle one: the container is kept but runs no worker (partial gang). */
  record Park(String id) implements WorkerAction {}

  /** SIGTERM to the worker: it should checkpoint and exit within the grace. */
  record Terminate(String id) implements WorkerAction {}

  /** Give the container back to the RM (which kills it if still running). */
  record Release(String id) implements WorkerAction {}

  /** Ask the RM for n more worker containers. */
  record Ask(int n) implements WorkerAction {}

  /** Withdraw n outstanding asks. */
  record CancelAsks(int n) implements WorkerAction {}
}
