package io.aryl.api.status;

import io.aryl.api.loan.LoanControllerReport;
import java.util.Map;

/**
 * {@code loanController} of the status, present once the loan controller's leader has reported
 * ({@link LoanControllerReport}): when, under which epoch, and its report as it sent it. The report's content is the
 * controller's own and is kept as it came; only the fields the scheduler checks are read here.
 *
 * @param receivedMs epoch milliseconds the scheduler accepted the report
 * @param epoch the leader's epoch
 * @param status the report as the controller sent it
 */
public record LoanControllerStatus(long receivedMs, long epoch, Map<String, Object> status) {
  public LoanControllerStatus {
    status = Copies.map(status);
  }

  /** The reporting instance's name, or null if the report does not say. */
  public String instance() {
    return text(LoanControllerReport.INSTANCE);
  }

  /** The reporting instance's role ({@code LEADER}), or null if the report does not say. */
  public String role() {
    return text(LoanControllerReport.ROLE);
  }

  private String text(String field) {
    Object v = status.get(field);
    return v == null ? null : String.valueOf(v);
  }
}
