package io.aryl.yarn.engine;

/**
 * What a round asks the ResourceManager to do, in plain values: the adapter carries each out and
 * the engine never touches the ResourceManager itself. A round's actions are only returned once
 * what they rely on is stored.
 */
public sealed interface Action {
  /**
   * Hands the application's grants to the Capacity Scheduler now, as its ApplicationMaster's next
   * heartbeat would: its target changed, or its move's new workers are due.
   */
  record Grant(String appId) implements Action {}

  /** Asks the application's ApplicationMaster to give the container back (a PreemptionMessage). */
  record Notice(String containerId, String appId) implements Action {}

  /** Ends the container, whose notice went out and whose grace is over. */
  record Kill(String containerId, String appId) implements Action {}

  /**
   * Puts the node in the pool of {@code label}, provided nothing runs or is reserved on it when the
   * label is changed; the adapter tells the engine whether it did ({@link RoundEngine#relabelled}).
   */
  record Relabel(String node, String label) implements Action {}

  /** Sets the application's waiting message, or clears it when {@code message} is null. */
  record Diagnose(String appId, String message) implements Action {}
}
