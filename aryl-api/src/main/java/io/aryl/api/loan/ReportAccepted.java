package io.aryl.api.loan;

/**
 * The answer ({@code 200}) to a {@link LoanControllerReport} the scheduler accepted.
 *
 * @param accepted always true
 * @param epoch the report's epoch
 */
public record ReportAccepted(boolean accepted, long epoch) {
  public static ReportAccepted of(long epoch) {
    return new ReportAccepted(true, epoch);
  }
}
