package io.aryl.yarn.state;

/**
 * A container asked to stop.
 *
 * @param container its id
 * @param app its application
 * @param node the node it runs on
 * @param killAtMs when it is killed if still running, epoch ms
 * @param reason SHRINK (over its job's target), ORPHAN (part of a gang below its minimum) or RECLAIM (on a node
 *     being returned); re-checked before the kill
 * @param reclaimId the reclaim, for RECLAIM; else 0
 */
public record DrainRecord(String container, String app, String node, long killAtMs, String reason, long reclaimId) {}
