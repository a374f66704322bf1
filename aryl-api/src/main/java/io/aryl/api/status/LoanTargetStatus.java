package io.aryl.api.status;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.aryl.api.loan.LoanDemand;
import java.util.Locale;

/**
 * {@code loanTarget} of the status, present once a loan controller set one ({@link
 * io.aryl.api.loan.LoanTarget}): the target in force, who set it, and what is on loan now.
 *
 * @param epoch the controller leader's epoch that set it
 * @param controller its instance name
 * @param maxOnLoan how many inference nodes may be on loan
 * @param returnByMs by when the nodes above it must be back, epoch ms; 0 for the scheduler's
 *     default deadline
 * @param decidedMs when the controller decided it, epoch ms
 * @param reason the controller's reason, or a reclaim by hand that lowered it
 * @param receivedMs when the scheduler accepted it, epoch ms
 * @param onLoan inference nodes on loan now (lent or being lent), but for those a reclaim returns
 * @param demand the inference demand the controller decided the target on; null (absent) when its
 *     target did not say, or since the scheduler became active and before the controller's next
 *     target (the demand is not kept in the durable state: the controller sends it every decision)
 */
public record LoanTargetStatus(
    long epoch,
    String controller,
    int maxOnLoan,
    long returnByMs,
    long decidedMs,
    String reason,
    long receivedMs,
    int onLoan,
    @JsonInclude(JsonInclude.Include.NON_NULL) LoanDemand demand) {

  /** A target in force without the demand it was decided on. */
  public LoanTargetStatus(
      long epoch,
      String controller,
      int maxOnLoan,
      long returnByMs,
      long decidedMs,
      String reason,
      long receivedMs,
      int onLoan) {
    this(epoch, controller, maxOnLoan, returnByMs, decidedMs, reason, receivedMs, onLoan, null);
  }

  /**
   * The demand beside the nodes on loan, in the words the RM page and {@code aryl-admin status}
   * both show: "inference demand: 120.0 req/s (forecast 150.0), needs 2 servers; 1 lent, target 2"
   * (the forecast only when above the rate; the time to serve it looked ahead by after it, split
   * into the reclaim and the replica's start-up when the controller measured start-ups: "(forecast
   * 150.0, 4.8 s ahead: 2.4 s reclaim + 2.4 s start-up)"); null when the target does not carry its
   * demand.
   */
  public String demandSummary() {
    if (demand == null) {
      return null;
    }
    String split =
        demand.startupMs() == null
            ? ""
            : String.format(
                Locale.ROOT,
                ": %.1f s reclaim + %.1f s start-up",
                demand.reclaimMs() / 1000.0,
                demand.startupMs() / 1000.0);
    String forecast =
        demand.forecastRps() > demand.rateRps()
            ? String.format(
                Locale.ROOT,
                " (forecast %.1f, %.1f s ahead%s)",
                demand.forecastRps(),
                demand.timeToServeMs() / 1000.0,
                split)
            : "";
    return String.format(
        Locale.ROOT,
        "inference demand: %.1f req/s%s, needs %d server%s; %d lent, target %d",
        demand.rateRps(),
        forecast,
        demand.serversNeeded(),
        demand.serversNeeded() == 1 ? "" : "s",
        onLoan,
        maxOnLoan);
  }
}
