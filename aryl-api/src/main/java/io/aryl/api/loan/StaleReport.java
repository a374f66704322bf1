package io.aryl.api.loan;

/**
 * The answer ({@code 409}) to a {@link LoanControllerReport} of an older epoch than one the scheduler accepted: the
 * sender was deposed. The controller logs the error as a warning.
 *
 * @param error why, naming the leader in force
 * @param epoch the refused report's epoch
 * @param currentEpoch the epoch in force
 */
public record StaleReport(String error, long epoch, long currentEpoch) {}
