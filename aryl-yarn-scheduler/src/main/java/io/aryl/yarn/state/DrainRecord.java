package io.aryl.yarn.state;

/**
 * A container asked to stop.
 *
 * @param container its id
 * @param app its application
 * @param node the node it runs on
 * @param killAtMs when it is killed if still running, epoch ms
 * @param reason SHRINK (over its job's target), ORPHAN (part of a gang below its minimum), RECLAIM
 *     (on a node being returned) or MOVE (its job moves whole to other nodes); re-checked before
 *     the kill
 * @param reclaimId for RECLAIM, the reclaim returning its node; else 0
 * @param holdUntilMs for a MOVE not told yet, until when it waits for the job's new workers, epoch
 *     ms; else 0
 * @param stopsJob whether it is one of the workers of a job stopped as a whole (a reclaim's or a
 *     plan's PREEMPT): then it is killed at its time whatever becomes of its node or the plan, and
 *     the reason is not re-checked; false in drains stored before format 4
 */
public record DrainRecord(
    String container,
    String app,
    String node,
    long killAtMs,
    String reason,
    long reclaimId,
    long holdUntilMs,
    boolean stopsJob) {}
