package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.aryl.api.loan.LoanDemand;
import io.aryl.core.loan.LoanPolicy;
import io.aryl.labels.LoanDecider.Change;
import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanDecider.Memory;
import io.aryl.labels.LoanDecider.Observation;
import io.aryl.labels.LoanDecider.SchedulerState;
import io.aryl.labels.LoanDecider.Target;
import io.aryl.labels.SchedulerLink.SchedulerView;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "LeadPlanner: the time to serve measured on the controller's own reclaims and the replicas'"
        + " start-ups, and the decision planned one time to serve ahead")
class LeadPlannerTest {
  private static final long INTERVAL_MS = 5_000;

  /**
   * A reclaim lowered at 10 000 ms from 3 on loan to {@code target}, then one scheduler view per
   * decision interval, each {@code onLoan/returning/finishedMs} ({@code R} for a recovering one).
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                                         | target | views after the decision (every 5 s)     | measured | figure ms
          back home with its reclaim's end: measured to that end          | 1      | 2/1/-1 1/0/17500                        | 1        | 7500
          the end is not in the status: measured to the first view home   | 1      | 2/1/-1 2/1/-1 1/0/-1                    | 1        | 15000
          a reclaim's end from before the decision is not this one's      | 1      | 1/0/4000                                | 1        | 5000
          nodes on their way home: not yet                               | 1      | 1/1/-1 1/1/-1                           | 0        | 30000
          a recovering scheduler's counts end nothing                     | 1      | R R                                     | 0        | 30000
          a target that asks nothing back measures nothing                | 3      | 3/0/-1                                  | 0        | 30000
          """)
  void measures(String name, int target, String views, int measured, long figure) {
    LeadPlanner planner = new LeadPlanner(30_000, 20, 60_000);
    long decided = 10_000;
    planner.lowered(decided, target, 3);
    long now = decided;
    for (String v : views.trim().split("\\s+")) {
      now += INTERVAL_MS;
      if (v.equals("R")) {
        planner.seen(now, new SchedulerView(true, 8, 0, null));
        continue;
      }
      String[] p = v.split("/", -1);
      planner.seen(
          now,
          new SchedulerView(
              false,
              8,
              Integer.parseInt(p[0]),
              null,
              Integer.parseInt(p[1]),
              Long.parseLong(p[2])));
    }
    assertThat(planner.reclaim().samplesMs()).hasSize(measured);
    assertThat(planner.plan(now, 10).leadMs()).isEqualTo(figure);
  }

  /**
   * Reclaims of the given lengths (each lowered from 1 on loan to 0 and seen home that long after)
   * and replica start-ups of the given lengths ("-": none), then one plan: each part is the p90
   * (nearest rank) of its own measures, the reclaim's seed 30 s before its first, the start-up's 0,
   * and the lead is their sum. The rate rises 1 rps a second, so the forecast is the rate plus one
   * lead's seconds: the forecast looks ahead by the sum.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                                       | reclaims ms          | start-ups ms                        | reclaim | start-up | lead
          nothing measured: the reclaim's seed, no start-up (not seen) | -                    | -                                   | 30000   | 0        | 30000
          start-ups with no reclaim yet: the seed plus their p90       | -                    | 2400 2800 8000                      | 30000   | 8000     | 38000
          one of each                                                  | 5000                 | 2500                                | 5000    | 2500     | 7500
          each the p90 of its own window: 9th of 10 start-ups          | 4000 7500            | 1000 2000 3000 4000 5000 6000 7000 8000 9000 10000 | 7500 | 9000 | 16500
          a source that sees no replicas: the reclaim alone, as before  | 2000 6000 3000       | -                                   | 6000    | 0        | 6000
          """)
  void leadIsTheReclaimPlusTheStartup(
      String name, String reclaims, String startups, long reclaim, long startup, long lead) {
    LeadPlanner planner = new LeadPlanner(30_000, 20, 600_000);
    long t = 0;
    for (long ms : longs(reclaims)) {
      t += 60_000;
      planner.lowered(t, 0, 1);
      planner.seen(t + ms, new SchedulerView(false, 8, 0, null));
    }
    longs(startups).forEach(planner::replicaStarted);
    t += 600_000;
    planner.plan(t, 100);
    LeadPlanner.Plan plan = planner.plan(t + 10_000, 110);

    assertThat(plan.reclaim().usedMs()).as("reclaim").isEqualTo(reclaim);
    assertThat(plan.startup().usedMs()).as("start-up").isEqualTo(startup);
    assertThat(plan.startup().measured()).isEqualTo(longs(startups).size());
    assertThat(plan.leadMs()).isEqualTo(lead);
    assertThat(plan.forecastRate()).isCloseTo(110 + lead / 1000.0, within(1e-6));
  }

  private static List<Long> longs(String list) {
    return list.equals("-")
        ? List.of()
        : Arrays.stream(list.trim().split("\\s+")).map(Long::valueOf).toList();
  }

  @ParameterizedTest(name = "start-ups measured: {0}")
  @CsvSource({"0, 30000,", "2, 32600, 2600"})
  @DisplayName(
      "the target's demand carries the start-up part of its time to serve once one was measured,"
          + " and says nothing of it before (a source that sees no replicas)")
  void theDemandSentSaysTheStartup(int startups, long timeToServe, Long startup) {
    LeadPlanner planner = new LeadPlanner(30_000, 20, 0);
    for (int i = 0; i < startups; i++) {
      planner.replicaStarted(2_600);
    }
    LeadPlanner.Plan plan = planner.plan(1_000, 150);
    Decision d =
        DECIDER.decide(
            new Observation(
                1_000, 150, true, SchedulerState.SETTLED, 8, 0, null, plan.forecastRate()),
            Memory.NONE);

    LoanDemand sent = DecisionRound.demandSent(d, plan);

    assertThat(sent.timeToServeMs()).isEqualTo(timeToServe);
    assertThat(sent.startupMs()).isEqualTo(startup);
    assertThat(sent.reclaimMs()).isEqualTo(30_000);
  }

  /** 100 rps per server, no headroom, margin 1; hold 10 s, cooldown 0, step 8, back in 30 s. */
  private static final LoanDecider DECIDER =
      new LoanDecider(new LoanDecider.Settings(new LoanPolicy(100, 0, 1), 10_000, 0, 8, 30_000));

  /**
   * Eight servers and a rate that starts at {@code from} and moves by {@code slope} rps every
   * second, one decision every 5 s for two minutes, with the target starting at {@code lent} on
   * loan and the scheduler meeting every target at once: when the target is first lowered and first
   * raised (ms after the start, -1 never), planning for the rate now (trend 0) and one lead ahead.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                                  | from | slope | lent | lead ms | lowered now | lowered ahead | raised now | raised ahead
          a rising rate asks back one lead earlier                 | 300  | 10    | 3    | 10000   | 25000       | 15000         | -1         | -1
          a longer lead asks back earlier still                    | 300  | 10    | 3    | 20000   | 25000       | 5000          | -1         | -1
          a flat rate changes nothing                              | 300  | 0     | 4    | 10000   | -1          | -1            | -1         | -1
          a falling rate does not lend faster than the hold allows | 700  | -5    | 0    | 10000   | -1          | -1            | 30000      | 30000
          """)
  void plansOneLeadAhead(
      String name,
      double from,
      double slope,
      int lent,
      long leadMs,
      long loweredNow,
      long loweredAhead,
      long raisedNow,
      long raisedAhead) {
    long[] now = run(from, slope, lent, new LeadPlanner(leadMs, 20, 0));
    long[] ahead = run(from, slope, lent, new LeadPlanner(leadMs, 20, 60_000));
    assertThat(now)
        .as("planning for the rate now: lowered, raised")
        .containsExactly(loweredNow, raisedNow);
    assertThat(ahead)
        .as("planning one lead ahead: lowered, raised")
        .containsExactly(loweredAhead, raisedAhead);
  }

  private static long[] run(double from, double slope, int lent, LeadPlanner planner) {
    Memory memory = Memory.NONE;
    Target inForce = new Target(lent, 0);
    long lowered = -1;
    long raised = -1;
    for (long t = 0; t <= 120_000; t += INTERVAL_MS) {
      double rate = Math.max(0, from + slope * t / 1000.0);
      LeadPlanner.Plan plan = planner.plan(t, rate);
      Decision d =
          DECIDER.decide(
              new Observation(
                  t,
                  rate,
                  true,
                  SchedulerState.SETTLED,
                  8,
                  inForce.maxOnLoan(),
                  inForce,
                  plan.forecastRate()),
              memory);
      memory = d.memory();
      inForce = d.target();
      if (d.change() == Change.LOWERED && lowered < 0) {
        lowered = t;
      }
      if (d.change() == Change.RAISED && raised < 0) {
        raised = t;
      }
    }
    return new long[] {lowered, raised};
  }
}
