package io.aryl.yarn.engine;

/**
 * A loan controller report or target from a leader older than the one in force: its sender was
 * deposed.
 */
public final class StaleEpochException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final long reported;
  private final long current;

  public StaleEpochException(
      long reported, long current, String currentInstance, String resetHint) {
    this("loan controller report", reported, current, currentInstance, resetHint);
  }

  /**
   * @param what what was refused, e.g. "loan target"
   */
  public StaleEpochException(
      String what, long reported, long current, String currentInstance, String resetHint) {
    super(
        what
            + " of epoch "
            + reported
            + " refused: the leader in force is "
            + currentInstance
            + " with epoch "
            + current
            + " ("
            + resetHint
            + ")");
    this.reported = reported;
    this.current = current;
  }

  /** The epoch the refused report carried. */
  public long reported() {
    return reported;
  }

  /** The epoch in force. */
  public long current() {
    return current;
  }
}
