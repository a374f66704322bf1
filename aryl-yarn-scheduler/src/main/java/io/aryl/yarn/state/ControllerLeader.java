package io.aryl.yarn.state;

/**
 * The loan controller leader the scheduler last accepted a report from.
 *
 * @param epoch the leader's epoch (its ZooKeeper fencing epoch, from 1); -1 before any report
 * @param instance the leader's instance name; empty before any report
 * @param acceptedMs when its first report under this epoch was accepted, epoch milliseconds
 */
public record ControllerLeader(long epoch, String instance, long acceptedMs) {
  public static final ControllerLeader NONE = new ControllerLeader(-1, "", 0);
}
