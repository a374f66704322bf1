package io.aryl.api.loan;

/**
 * The answer ({@code 409}) to a {@link LoanTarget} of an older epoch than the target in force: its
 * sender was deposed and must stand down.
 *
 * @param error why, naming the leader in force
 * @param epoch the refused target's epoch
 * @param currentEpoch the epoch in force
 */
public record StaleTarget(String error, long epoch, long currentEpoch) {}
