package io.aryl.labels;

import io.aryl.core.loan.LoanPolicy;
import io.aryl.core.model.Checks;

/**
 * The loan controller's decision, a pure function: from inference demand, the inference servers
 * there are, how many are on loan now and what earlier decisions left, the loan target — how many
 * inference servers may be on loan now, and by when the ones above that must be back. The scheduler
 * lends and reclaims to meet it; this class only counts.
 *
 * <p>The bounds are aryl-core's {@link LoanPolicy}: servers may be on loan beyond the need plus the
 * safety margin ({@link LoanPolicy#lendable}), and must come back once those at home fall below the
 * need itself. So the target is lowered, at once, only when it would leave fewer than the need at
 * home, and raised only when the need plus the margin leaves room above it: demand moving within
 * the margin changes nothing. A lowered target carries a deadline ({@code returnWithinMs} from the
 * decision), and that deadline is what protects inference. Raising waits: until demand has allowed
 * it for {@code loanHoldMs} without a break, never within {@code loanCooldownMs} of lowering it,
 * and by at most {@code loanMaxStep} above what is on loan now. Nothing is raised while demand is
 * unknown or partly unknown, and nothing changes while the scheduler recovers (its node counts may
 * still miss nodes that have not re-registered) or cannot be reached: the last target stands, and
 * the reason says why.
 *
 * <p>The rate planned for is the larger of the rate now and its forecast one time to serve ahead
 * ({@link Observation#forecastRate}): a server asked back serves only after its reclaim, so on a
 * rising rate the target is lowered that much earlier. The forecast is never below the rate now, so
 * a falling rate lends no sooner than the hold allows.
 */
public final class LoanDecider {
  private final Settings settings;

  public LoanDecider(Settings settings) {
    this.settings = Checks.notNull("settings", settings);
  }

  /**
   * The decision's settings.
   *
   * @param policy servers needed for a rate, and how many may be on loan
   * @param loanHoldMs milliseconds demand must allow a higher target without a break before it is
   *     raised
   * @param loanCooldownMs milliseconds after the target was lowered during which it is not raised
   * @param loanMaxStep most servers a raised target allows on loan beyond those on loan now
   * @param returnWithinMs deadline of the servers above a lowered target, in milliseconds from the
   *     decision
   */
  public record Settings(
      LoanPolicy policy,
      long loanHoldMs,
      long loanCooldownMs,
      int loanMaxStep,
      long returnWithinMs) {
    public Settings {
      Checks.notNull("policy", policy);
      if (loanHoldMs < 0) {
        throw new IllegalArgumentException("loanHoldMs must be >= 0, was " + loanHoldMs);
      }
      if (loanCooldownMs < 0) {
        throw new IllegalArgumentException("loanCooldownMs must be >= 0, was " + loanCooldownMs);
      }
      Checks.positive("loanMaxStep", loanMaxStep);
      if (returnWithinMs <= 0) {
        throw new IllegalArgumentException("returnWithinMs must be > 0, was " + returnWithinMs);
      }
    }
  }

  /**
   * A loan target.
   *
   * @param maxOnLoan how many inference servers may be on loan
   * @param returnByMs by when the servers above it must be back, epoch ms; 0 for the scheduler's
   *     default deadline
   */
  public record Target(int maxOnLoan, long returnByMs) {
    public Target {
      Checks.nonNegative("maxOnLoan", maxOnLoan);
      if (returnByMs < 0) {
        throw new IllegalArgumentException("returnByMs must be >= 0, was " + returnByMs);
      }
    }
  }

  /** How the scheduler answered the status request of this decision. */
  public enum SchedulerState {
    /** Reachable and settled: its counts are what there is. */
    SETTLED,
    /** A newly active scheduler waiting for its nodes to re-register: its counts may miss some. */
    RECOVERING,
    /** No answer: nothing is known of it. */
    UNREACHABLE
  }

  /**
   * What the leader sees at one decision.
   *
   * @param nowMs the time of the decision, epoch ms
   * @param rate demanded inference requests per second; NaN when no source answered
   * @param demandComplete false when some demand source did not answer: the target may be lowered
   *     on the rate of the sources that did, not raised
   * @param scheduler how the scheduler answered; when UNREACHABLE the counts below are 0 and {@code
   *     inForce} null
   * @param inferenceServers the inference pool's servers the scheduler knows, wherever they are now
   * @param onLoan servers on loan now (lent, or being lent), but for those a reclaim returns
   *     already
   * @param inForce the target in force at the scheduler, whoever set it; null when none is
   * @param forecastRate the rate expected one time to serve ahead ({@link
   *     io.aryl.core.loan.RateTrend}); the decision plans for the larger of it and {@code rate}, so
   *     a rising rate asks servers back that much earlier. NaN when {@code rate} is
   */
  public record Observation(
      long nowMs,
      double rate,
      boolean demandComplete,
      SchedulerState scheduler,
      int inferenceServers,
      int onLoan,
      Target inForce,
      double forecastRate) {
    public Observation {
      if (!Double.isNaN(rate)) {
        Checks.nonNegative("rate", rate);
      }
      if (Double.isNaN(rate) != Double.isNaN(forecastRate)) {
        throw new IllegalArgumentException(
            "forecastRate must be NaN exactly when rate is, was rate="
                + rate
                + ", forecastRate="
                + forecastRate);
      }
      if (!Double.isNaN(forecastRate)) {
        Checks.nonNegative("forecastRate", forecastRate);
      }
      Checks.notNull("scheduler", scheduler);
      Checks.nonNegative("inferenceServers", inferenceServers);
      Checks.nonNegative("onLoan", onLoan);
      if (onLoan > inferenceServers) {
        throw new IllegalArgumentException(
            "onLoan must be <= inferenceServers, was onLoan="
                + onLoan
                + ", inferenceServers="
                + inferenceServers);
      }
    }

    /** Without a forecast: the rate now is planned for. */
    public Observation(
        long nowMs,
        double rate,
        boolean demandComplete,
        SchedulerState scheduler,
        int inferenceServers,
        int onLoan,
        Target inForce) {
      this(nowMs, rate, demandComplete, scheduler, inferenceServers, onLoan, inForce, rate);
    }

    /** The rate the decision plans for: the larger of the rate now and the forecast. */
    public double planningRate() {
      return Double.isNaN(rate) ? rate : Math.max(rate, forecastRate);
    }

    /** The rate in words, with the forecast when it is above the rate now. */
    String rateWords() {
      return planningRate() > rate
          ? String.format("rate %.1f rps (forecast %.1f)", rate, forecastRate)
          : String.format("rate %.1f rps", rate);
    }
  }

  /**
   * What earlier decisions of this leader leave for the next one.
   *
   * @param lendableSinceMs since when demand has allowed a higher target without a break; -1 when
   *     it does not now
   * @param lastLoweredMs when this leader last lowered the target; -1 never
   * @param last the target this leader last decided; null before the first
   */
  public record Memory(long lendableSinceMs, long lastLoweredMs, Target last) {
    public static final Memory NONE = new Memory(-1, -1, null);
  }

  /** How a decision's target compares with the one it started from. */
  public enum Change {
    /** More servers may be on loan. */
    RAISED,
    /** Fewer: the ones above it come back by its deadline. */
    LOWERED,
    /** The same number. */
    KEPT,
    /** No target: the scheduler cannot be reached, nothing is sent. */
    NONE
  }

  /**
   * The target to send.
   *
   * @param target the target; null when there is nothing to send ({@link Change#NONE})
   * @param needed servers the demand needs; -1 when demand is unknown
   */
  public record Decision(Target target, Change change, int needed, String reason, Memory memory) {
    public Decision {
      Checks.notNull("change", change);
      if ((target == null) != (change == Change.NONE)) {
        throw new IllegalArgumentException(
            "a decision has a target unless its change is NONE, was target="
                + target
                + ", change="
                + change);
      }
      Checks.notBlank("reason", reason);
      Checks.notNull("memory", memory);
    }
  }

  public Settings settings() {
    return settings;
  }

  public Decision decide(Observation o, Memory m) {
    long now = o.nowMs();
    if (o.scheduler() == SchedulerState.UNREACHABLE) {
      return new Decision(
          null,
          Change.NONE,
          needed(o.planningRate()),
          "the scheduler cannot be reached: "
              + (m.last() == null
                  ? "no target sent yet"
                  : "the last target (" + m.last().maxOnLoan() + " on loan) stands"),
          new Memory(-1, m.lastLoweredMs(), m.last()));
    }
    // What stands: the scheduler's target in force (after a failover of either side it is the
    // predecessor's), else
    // this leader's last one (a scheduler whose state was reset), else what is on loan now.
    Target base =
        o.inForce() != null ? o.inForce() : m.last() != null ? m.last() : new Target(o.onLoan(), 0);
    Target kept = new Target(base.maxOnLoan(), base.returnByMs() > now ? base.returnByMs() : 0);
    if (o.scheduler() == SchedulerState.RECOVERING) {
      return keep(
          kept,
          needed(o.planningRate()),
          "the scheduler is recovering (nodes re-registering): the target ("
              + kept.maxOnLoan()
              + " on loan) stands",
          m);
    }
    if (Double.isNaN(o.rate())) {
      return keep(
          kept,
          -1,
          "demand unknown (no source answered): the target ("
              + kept.maxOnLoan()
              + " on loan) stands",
          m);
    }
    LoanPolicy policy = settings.policy();
    int servers = o.inferenceServers();
    double rate = o.planningRate();
    int needed = policy.serversNeeded(rate);
    int ceiling = Math.max(0, servers - needed);
    if (base.maxOnLoan() > ceiling) {
      Target lowered = new Target(ceiling, now + settings.returnWithinMs());
      return new Decision(
          lowered,
          Change.LOWERED,
          needed,
          String.format(
              "%s needs %d of %d server(s):"
                  + " target lowered from %d to %d on loan, the rest back within %d ms",
              o.rateWords(), needed, servers, base.maxOnLoan(), ceiling, settings.returnWithinMs()),
          new Memory(-1, now, lowered));
    }
    int lendable = policy.lendable(rate, servers);
    String need =
        String.format(
            "%s needs %d server(s) + margin %d of %d",
            o.rateWords(), needed, policy.safetyMarginServers(), servers);
    if (lendable <= base.maxOnLoan()) {
      return keep(kept, needed, need + ": the target (" + kept.maxOnLoan() + " on loan) stands", m);
    }
    if (!o.demandComplete()) {
      return keep(
          kept,
          needed,
          need
              + ", but a demand source did not answer: the target ("
              + kept.maxOnLoan()
              + " on loan) is not raised",
          m);
    }
    long since = m.lendableSinceMs() < 0 ? now : m.lendableSinceMs();
    Memory held = new Memory(since, m.lastLoweredMs(), kept);
    if (now - since < settings.loanHoldMs()) {
      return new Decision(
          kept,
          Change.KEPT,
          needed,
          String.format(
              "%s: %d may be on loan, held %d of %d ms; the" + " target (%d) stands",
              need, lendable, now - since, settings.loanHoldMs(), kept.maxOnLoan()),
          held);
    }
    if (m.lastLoweredMs() >= 0 && now - m.lastLoweredMs() < settings.loanCooldownMs()) {
      return new Decision(
          kept,
          Change.KEPT,
          needed,
          String.format(
              "%s: %d may be on loan, cooling down %d of %d ms"
                  + " after lowering; the target (%d) stands",
              need, lendable, now - m.lastLoweredMs(), settings.loanCooldownMs(), kept.maxOnLoan()),
          held);
    }
    int raised = Math.min(lendable, o.onLoan() + settings.loanMaxStep());
    if (raised <= base.maxOnLoan()) {
      return new Decision(
          kept,
          Change.KEPT,
          needed,
          String.format(
              "%s: %d may be on loan, but %d are and at most %d"
                  + " more at once; the target (%d) stands",
              need, lendable, o.onLoan(), settings.loanMaxStep(), kept.maxOnLoan()),
          held);
    }
    Target up = new Target(raised, 0);
    return new Decision(
        up,
        Change.RAISED,
        needed,
        String.format("%s: target raised from %d to %d on loan", need, base.maxOnLoan(), raised),
        new Memory(since, m.lastLoweredMs(), up));
  }

  /** The target stands; the hold starts afresh, since demand did not allow more without a break. */
  private static Decision keep(Target kept, int needed, String reason, Memory m) {
    return new Decision(kept, Change.KEPT, needed, reason, new Memory(-1, m.lastLoweredMs(), kept));
  }

  private int needed(double rate) {
    return Double.isNaN(rate) ? -1 : settings.policy().serversNeeded(rate);
  }
}
