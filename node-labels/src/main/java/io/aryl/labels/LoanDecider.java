package io.aryl.labels;

import io.aryl.core.loan.LoanPolicy;
import io.aryl.core.model.Checks;

/**
 * The loan controller's decision, a pure function: given the demanded rate, the inference pool's nodes and what was
 * decided before, how many idle inference nodes to loan to training now and how many loaned ones to ask back.
 *
 * <p>The servers needed, the lendable count and the shortfall are aryl-core's {@link LoanPolicy}: nodes are loaned
 * only beyond the need plus the safety margin, and asked back only once the nodes at home fall below the need, so
 * demand moving within the margin changes nothing. On top of that: a loan waits until demand has allowed it for
 * {@code loanHoldMs} without a break, no loan follows a reclaim within {@code loanCooldownMs}, at most
 * {@code loanMaxStep} nodes are loaned at once, and nothing is loaned while demand is unknown or partly unknown. A
 * reclaim never waits: the deadline is what protects inference.
 */
public final class LoanDecider {
  private final Settings settings;

  public LoanDecider(Settings settings) {
    this.settings = Checks.notNull("settings", settings);
  }

  /**
   * @param policy servers needed for a rate, lendable servers, shortfall
   * @param loanHoldMs milliseconds demand must allow a loan without a break before one is made
   * @param loanCooldownMs milliseconds after a reclaim request during which nothing is loaned
   * @param loanMaxStep most nodes loaned in one decision
   */
  public record Settings(LoanPolicy policy, long loanHoldMs, long loanCooldownMs, int loanMaxStep) {
    public Settings {
      Checks.notNull("policy", policy);
      if (loanHoldMs < 0) {
        throw new IllegalArgumentException("loanHoldMs must be >= 0, was " + loanHoldMs);
      }
      if (loanCooldownMs < 0) {
        throw new IllegalArgumentException("loanCooldownMs must be >= 0, was " + loanCooldownMs);
      }
      Checks.positive("loanMaxStep", loanMaxStep);
    }
  }

  /**
   * What the leader sees at one decision.
   *
   * @param nowMs the time of the decision, epoch ms
   * @param rate demanded inference requests per second; NaN when no source answered
   * @param demandComplete false when some demand source did not answer: reclaims still follow {@code rate}, loans wait
   * @param inferenceServers nodes owned by inference, wherever they are now (home, loaned, coming back)
   * @param idleHome nodes at home (labelled inference) with no container: the only ones that may be loaned
   * @param loaned nodes on loan that nobody asked back yet
   * @param reclaiming nodes on loan already asked back
   */
  public record Observation(long nowMs, double rate, boolean demandComplete, int inferenceServers, int idleHome,
      int loaned, int reclaiming) {
    public Observation {
      if (!Double.isNaN(rate)) {
        Checks.nonNegative("rate", rate);
      }
      Checks.nonNegative("inferenceServers", inferenceServers);
      Checks.nonNegative("idleHome", idleHome);
      Checks.nonNegative("loaned", loaned);
      Checks.nonNegative("reclaiming", reclaiming);
      if (idleHome + loaned + reclaiming > inferenceServers) {
        throw new IllegalArgumentException("idleHome + loaned + reclaiming must be <= inferenceServers, was idleHome="
            + idleHome + ", loaned=" + loaned + ", reclaiming=" + reclaiming + ", inferenceServers=" + inferenceServers);
      }
    }

    /** Nodes away from home: on loan, asked back or not. */
    public int away() {
      return loaned + reclaiming;
    }
  }

  /**
   * What earlier decisions leave for the next one.
   *
   * @param lendableSinceMs since when demand has allowed a loan without a break; -1 when it does not now
   * @param lastReclaimMs when a reclaim was last requested; -1 never
   */
  public record Memory(long lendableSinceMs, long lastReclaimMs) {
    public static final Memory NONE = new Memory(-1, -1);
  }

  /** What to do: loan {@code loan} idle nodes, or ask for {@code reclaim} loaned nodes back; never both. */
  public record Decision(int loan, int reclaim, int needed, String reason, Memory memory) {
    public Decision {
      Checks.nonNegative("loan", loan);
      Checks.nonNegative("reclaim", reclaim);
      if (loan > 0 && reclaim > 0) {
        throw new IllegalArgumentException("a decision loans or reclaims, not both, was loan=" + loan + ", reclaim="
            + reclaim);
      }
      Checks.notBlank("reason", reason);
      Checks.notNull("memory", memory);
    }
  }

  public Settings settings() {
    return settings;
  }

  public Decision decide(Observation o, Memory m) {
    LoanPolicy policy = settings.policy();
    long now = o.nowMs();
    if (Double.isNaN(o.rate())) {
      return new Decision(0, 0, -1, "demand unknown: nothing loaned or reclaimed", new Memory(-1, m.lastReclaimMs()));
    }
    int needed = policy.serversNeeded(o.rate());
    int shortfall = policy.toReclaim(o.rate(), o.inferenceServers(), o.away()) - o.reclaiming();
    int reclaim = Math.max(0, Math.min(shortfall, o.loaned()));
    if (reclaim > 0) {
      return new Decision(0, reclaim, needed, String.format("rate %.1f rps needs %d server(s), %d at home, %d coming"
          + " back: reclaim %d", o.rate(), needed, o.inferenceServers() - o.away(), o.reclaiming(), reclaim),
          new Memory(-1, now));
    }
    int extra = policy.lendable(o.rate(), o.inferenceServers()) - o.away();
    if (extra <= 0) {
      return new Decision(0, 0, needed, String.format("rate %.1f rps needs %d server(s) + margin %d: nothing to loan",
          o.rate(), needed, policy.safetyMarginServers()), new Memory(-1, m.lastReclaimMs()));
    }
    if (!o.demandComplete()) {
      return new Decision(0, 0, needed, "a demand source did not answer: nothing loaned",
          new Memory(-1, m.lastReclaimMs()));
    }
    long since = m.lendableSinceMs() < 0 ? now : m.lendableSinceMs();
    Memory next = new Memory(since, m.lastReclaimMs());
    if (now - since < settings.loanHoldMs()) {
      return new Decision(0, 0, needed, String.format("%d lendable, held %d of %d ms", extra, now - since,
          settings.loanHoldMs()), next);
    }
    if (m.lastReclaimMs() >= 0 && now - m.lastReclaimMs() < settings.loanCooldownMs()) {
      return new Decision(0, 0, needed, String.format("%d lendable, cooling down %d of %d ms after a reclaim", extra,
          now - m.lastReclaimMs(), settings.loanCooldownMs()), next);
    }
    int loan = Math.min(Math.min(extra, o.idleHome()), settings.loanMaxStep());
    if (loan == 0) {
      return new Decision(0, 0, needed, extra + " lendable but no idle node at home", next);
    }
    return new Decision(loan, 0, needed, String.format("rate %.1f rps needs %d server(s) + margin %d of %d: loan %d",
        o.rate(), needed, policy.safetyMarginServers(), o.inferenceServers(), loan), next);
  }
}
