package io.aryl.serve.core;

/** What {@link ReplicaSet} asks its ApplicationMaster to do: the YARN calls, nothing else. */
public sealed interface ReplicaAction {
  /** Ask the ResourceManager for {@code n} more replica containers. */
  record Ask(int n) implements ReplicaAction {}

  /** Withdraw {@code n} asks not granted yet. */
  record CancelAsks(int n) implements ReplicaAction {}

  /** Start the replica command in container {@code id} on {@code host}, serving on {@code port}. */
  record Launch(String id, String host, int port) implements ReplicaAction {}

  /** Give container {@code id} back to the ResourceManager. */
  record Release(String id) implements ReplicaAction {}
}
