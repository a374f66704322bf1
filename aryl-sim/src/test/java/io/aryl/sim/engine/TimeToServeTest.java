package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.aryl.sim.trace.InferenceCurve;
import io.aryl.sim.trace.TraceJob;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A reclaimed server serves inference only after its time to serve: the drain (the reclaim grace,
 * as the simulator reclaims), the relabel and the replica's start. Until then it counts as short.
 *
 * <p>The world: 1 training server and 4 inference servers provisioned for a peak of 100 rps (30 rps
 * a server, headroom 0.2). At 10 rps 1 server is needed; with the loan margin of 1, 2 are lent (the
 * highest-numbered) and 2 stay home. At 100 rps all 4 are needed: the 2 lent come back.
 */
@DisplayName("Simulator: a reclaimed server's time to serve")
class TimeToServeTest {
  private static final double EPS = 1e-6;
  private static final SimConfig LOAN_WORLD = SimConfig.defaults(1, 4);
  private static final double DAY_S = 86400;

  /** 10 rps on [0, 4000), 100 rps on [4000, 8000): one reclaim of 2 servers at 4000 s. */
  private static final InferenceCurve STEP = new InferenceCurve("m", 4000, new double[] {10, 100});

  /**
   * 10 rps, then 30 rps (2 servers needed, as many as stay home), then the peak of 100 rps after
   * the measured window.
   */
  private static final InferenceCurve SMALL_RISE =
      new InferenceCurve("m", 4000, new double[] {10, 30, 100});

  /**
   * Every day alike, in 10-minute windows: 10 rps but 100 rps on [10:00, 11:00). Measured on day 2
   * the controller can have read day 1.
   */
  private static final InferenceCurve DAILY_PEAK = dailyPeak();

  private static InferenceCurve dailyPeak() {
    double[] rates = new double[144];
    Arrays.fill(rates, 10);
    Arrays.fill(rates, 60, 66, 100);
    return new InferenceCurve("m", 600, rates);
  }

  /** Time to serve at the defaults: grace 60 + relabel 1 + replica start 30. */
  private static final double DEFAULT_TO_SERVE =
      SimConfig.RECLAIM_GRACE_S + SimConfig.RELABEL_S + SimConfig.REPLICA_START_S;

  static Stream<Arguments> reclaims() {
    return Stream.of(
        Arguments.of(
            "a reclaim whose drain takes the grace leaves inference short for grace + relabel +"
                + " start (defaults: 60 + 1 + 30 s, 2 servers)",
            "loan-only",
            LOAN_WORLD,
            STEP,
            0.0,
            8000.0,
            2 * DEFAULT_TO_SERVE,
            DEFAULT_TO_SERVE),
        Arguments.of(
            "... with a 300 s grace and a 120 s replica start: 2 servers short for 421 s",
            "aryl",
            LOAN_WORLD.withReclaimGraceS(300).withReplicaStartS(120),
            STEP,
            0.0,
            8000.0,
            2 * 421.0,
            421.0),
        Arguments.of(
            "... with a 10 s relabel and no replica start: 2 servers short for 70 s",
            "aryl",
            LOAN_WORLD.withRelabelS(10).withReplicaStartS(0),
            STEP,
            0.0,
            8000.0,
            2 * 70.0,
            70.0),
        Arguments.of(
            "a reclaim with no grace, relabel or start leaves no shortfall",
            "aryl",
            LOAN_WORLD.withReclaimGraceS(0).withRelabelS(0).withReplicaStartS(0),
            STEP,
            0.0,
            8000.0,
            0.0,
            0.0),
        Arguments.of(
            "an idle server serves at once: a pool that never lends is never short",
            "baseline",
            LOAN_WORLD.withReplicaStartS(120),
            STEP,
            0.0,
            8000.0,
            0.0,
            0.0),
        Arguments.of(
            "an idle server serves at once: a rise the servers at home cover needs no reclaim",
            "loan-only",
            LOAN_WORLD.withReplicaStartS(120),
            SMALL_RISE,
            0.0,
            8000.0,
            0.0,
            0.0),
        Arguments.of(
            "a loan margin of 2 lends 1 server: 1 server short for the time to serve",
            "loan-only",
            LOAN_WORLD.withLoanMarginServers(2),
            STEP,
            0.0,
            8000.0,
            DEFAULT_TO_SERVE,
            DEFAULT_TO_SERVE),
        Arguments.of(
            "a loan margin of 3 lends nothing at 10 rps: never short",
            "loan-only",
            LOAN_WORLD.withLoanMarginServers(3),
            STEP,
            0.0,
            8000.0,
            0.0,
            0.0),
        Arguments.of(
            "with no lead the daily peak's reclaim starts when the peak does: short on day 2",
            "loan-only",
            LOAN_WORLD,
            DAILY_PEAK,
            DAY_S,
            2 * DAY_S,
            2 * DEFAULT_TO_SERVE,
            DEFAULT_TO_SERVE),
        Arguments.of(
            "a reclaim that started early enough (a 600 s lead, from day 1's peak) leaves no"
                + " shortfall",
            "loan-only",
            LOAN_WORLD.withReclaimLeadS(600),
            DAILY_PEAK,
            DAY_S,
            2 * DAY_S,
            0.0,
            0.0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reclaims")
  void inferenceIsShortUntilAReclaimedServerServes(
      String rule,
      String policy,
      SimConfig cfg,
      InferenceCurve curve,
      double windowStartS,
      double windowEndS,
      double shortServerS,
      double shortS) {
    List<TraceJob> jobs = List.of(new TraceJob("j", windowStartS, 100, 1, ""));
    Scenario s =
        new Scenario("hand-built", jobs, curve, cfg, windowStartS, windowEndS, 0, 0, 1.0, 0, 1);

    PolicyResult r = s.run(PolicySpec.named(policy), null);

    assertThat(r.inferenceShortfallServerS()).isCloseTo(shortServerS, offset(EPS));
    assertThat(r.inferenceShortS()).isCloseTo(shortS, offset(EPS));
    assertThat((double) Metrics.of(r).get("inference_short_share"))
        .isCloseTo(shortS / (windowEndS - windowStartS), offset(EPS));
  }
}
