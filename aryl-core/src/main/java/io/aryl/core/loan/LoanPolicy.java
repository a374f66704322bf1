package io.aryl.core.loan;

import io.aryl.core.model.Checks;

/**
 * How many inference servers training may borrow at a given inference request rate, and how many
 * must come back. Pure functions of the rate and the pool's size, so the simulator and the YARN
 * scheduler agree.
 *
 * <p>The inference pool needs {@link #serversNeeded(double)} servers to serve the rate with {@code
 * headroom} to spare. Servers are lent only beyond that need plus {@code safetyMarginServers}, but
 * reclaimed only once the pool's un-lent servers fall below the need itself. The margin is
 * therefore a band in which demand may move without lending or reclaiming anything: it keeps a rate
 * that hovers near a threshold from bouncing servers (and the training workers on them) back and
 * forth.
 *
 * @param capacityPerServer requests per second one inference server serves
 * @param headroom fraction of extra capacity kept above the rate, e.g. 0.2 to absorb bursts between
 *     decisions
 * @param safetyMarginServers servers kept back beyond the need before any is lent
 */
public record LoanPolicy(double capacityPerServer, double headroom, int safetyMarginServers) {
  /**
   * Slack, relative to the quotient, under which {@link #serversNeeded(double)} treats a ratio as
   * whole: keeps a fleet provisioned for exactly its peak from needing one phantom server because
   * of rounding.
   */
  private static final double WHOLE_TOLERANCE = 1e-9;

  public LoanPolicy {
    Checks.positive("loan.capacityPerServer", capacityPerServer);
    Checks.nonNegative("loan.headroom", headroom);
    Checks.nonNegative("loan.safetyMarginServers", safetyMarginServers);
  }

  /**
   * A policy for a pool sized to serve {@code peakRate} (with headroom) with all of its servers
   * busy: the usual case when the real per-server capacity is unknown but the fleet is known to be
   * provisioned for the peak.
   */
  public static LoanPolicy provisionedForPeak(
      double peakRate, int inferenceServers, double headroom, int margin) {
    Checks.positive("inference.peakRate", peakRate);
    Checks.positive("inference.servers", inferenceServers);
    Checks.nonNegative("loan.headroom", headroom);
    return new LoanPolicy(peakRate * (1 + headroom) / inferenceServers, headroom, margin);
  }

  /**
   * Inference servers needed to serve {@code rate} requests/s with headroom: {@code
   * ceil(rate*(1+h)/capacity)}.
   */
  public int serversNeeded(double rate) {
    Checks.nonNegative("inference.rate", rate);
    double exact = rate * (1 + headroom) / capacityPerServer;
    double nearest = Math.rint(exact);
    double servers =
        Math.abs(exact - nearest) <= WHOLE_TOLERANCE * Math.max(1, nearest)
            ? nearest
            : Math.ceil(exact);
    return (int) Math.min(servers, Integer.MAX_VALUE);
  }

  /**
   * How many of the pool's {@code inferenceServers} (lent ones included) may be on loan at {@code
   * rate}: those beyond the need and the safety margin.
   */
  public int lendable(double rate, int inferenceServers) {
    Checks.nonNegative("inference.servers", inferenceServers);
    long spare = (long) inferenceServers - serversNeeded(rate) - safetyMarginServers;
    return (int) Math.max(0, spare);
  }

  /**
   * How many of the {@code loanedNow} lent servers must return so that the pool's un-lent servers
   * cover the need at {@code rate}; 0 while they do, at most {@code loanedNow} when even all of
   * them would not.
   *
   * @param inferenceServers the pool's size, lent servers included
   */
  public int toReclaim(double rate, int inferenceServers, int loanedNow) {
    Checks.nonNegative("inference.servers", inferenceServers);
    Checks.nonNegative("loan.loanedNow", loanedNow);
    if (loanedNow > inferenceServers) {
      throw new IllegalArgumentException(
          "loan.loanedNow must be <= inference.servers, was loanedNow="
              + loanedNow
              + ", inference.servers="
              + inferenceServers);
    }
    long shortfall = (long) serversNeeded(rate) - (inferenceServers - loanedNow);
    return (int) Math.max(0, Math.min(shortfall, loanedNow));
  }
}
