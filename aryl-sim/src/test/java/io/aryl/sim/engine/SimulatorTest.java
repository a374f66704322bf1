package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.aryl.core.loan.LoanPolicy;
import io.aryl.sim.trace.InferenceCurve;
import io.aryl.sim.trace.TraceJob;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The simulator on scenarios small enough to work out by hand. Unless a test says otherwise the
 * world is {@link SimConfig#defaults}: 8-GPU servers, rounds every 60 s, checkpoints every 1,800 s,
 * re-scale pause 30 s, restart pause 120 s, reclaim grace 60 s, inference headroom 0.2, loan margin
 * 1 server, throughput n^0.8.
 */
class SimulatorTest {
  private static final double EPS = 1e-6;
  private static final double SPEEDUP = 0.8;

  // --- the loan world
  // ---------------------------------------------------------------------------------------------
  //
  // 1 training server (8 GPUs) and 4 inference servers provisioned for a peak of 100 rps:
  //   capacity per server = 100 * 1.2 / 4 = 30 rps
  //   at 10 rps:  need ceil(10 * 1.2 / 30) = ceil(0.4) = 1 server; lendable = 4 - 1 - 1 (margin) =
  // 2 servers
  //   at 100 rps: need ceil(120 / 30) = 4 servers: every lent server must come back
  // Servers are lent from the top of the pool: i00003 and i00002.

  private static final SimConfig LOAN_WORLD = SimConfig.defaults(1, 4);

  /** 10 rps for the first 10^6 s (11.6 days, longer than any test here), peak 100 rps after. */
  private static final InferenceCurve LOW = new InferenceCurve("m", 1e6, new double[] {10, 100});

  /**
   * 10 rps and 100 rps in turns of 4,000 s: low on [0, 4000), peak on [4000, 8000), low on [8000,
   * 12000), ...
   */
  private static final InferenceCurve STEP = new InferenceCurve("m", 4000, new double[] {10, 100});

  private static TraceJob job(String id, double submitS, double durationS, int gpus) {
    return new TraceJob(id, submitS, durationS, gpus, "");
  }

  /** Window [0, endS), no warm-up, curve offset 0, exact predictions, seed 1. */
  private static Scenario scenario(
      SimConfig cfg, InferenceCurve curve, double endS, double elasticFraction, TraceJob... jobs) {
    return new Scenario(
        "hand-built", List.of(jobs), curve, cfg, 0, endS, 0, 0, elasticFraction, 0, 1);
  }

  private static PolicyResult run(String policy, Scenario s) {
    return s.run(PolicySpec.named(policy), null);
  }

  private static JobRecord record(PolicyResult r, String id) {
    return r.jobs().stream()
        .filter(j -> j.id().equals(id))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no record of job " + id + " in " + r.jobs()));
  }

  private static Sample sampleAt(PolicyResult r, double timeS) {
    return r.samples().stream()
        .filter(s -> s.timeS() == timeS)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no sample at " + timeS + " s"));
  }

  private static Map<String, Object> metricsWithoutWallTime(PolicyResult r) {
    Map<String, Object> m = new LinkedHashMap<>(Metrics.of(r));
    m.remove("sim_wall_s");
    return m;
  }

  @Nested
  class RoundsAndQueues {
    // A round runs at the first multiple of the round interval at or after the event that called
    // for it (an arrival,
    // a completion, a loan change). A job alone starts there and runs for exactly its duration.
    @ParameterizedTest(name = "submitted at {1} s, rounds every {0} s: starts at {2} s")
    @CsvSource({
      // interval, submit, expected start
      "60,  0,    0",
      "60,  30,   60",
      "60,  60,   60",
      "60,  61,   120",
      "60,  3600, 3600",
      "300, 30,   300",
      "300, 301,  600",
    })
    void anInelasticJobAloneStartsAtTheNextRoundAndRunsForItsDuration(
        double interval, double submit, double start) {
      Scenario s =
          scenario(
              SimConfig.defaults(1, 0).withRoundIntervalS(interval),
              null,
              7200,
              0,
              job("a", submit, 1000, 8));

      JobRecord a = record(run("baseline", s), "a");

      assertThat(a.firstStartS()).isEqualTo(start);
      assertThat(a.queueS()).isEqualTo(start - submit);
      assertThat(a.endS()).isEqualTo(start + 1000);
      assertThat(a.jctS()).isEqualTo(start - submit + 1000);
      assertThat(a.boundS()).isEqualTo(1000);
    }

    // One 8-GPU server; "a" (8 GPUs, from 0) blocks "b" (8 GPUs, submitted at 10). "a" ends at its
    // duration, which
    // calls a round at the next multiple of 60 s: b queues from 10 s until then.
    @ParameterizedTest(name = "first job runs {0} s: second starts at {1} s")
    @CsvSource({
      "1000, 1020", // 1000 is not a multiple of 60: next round at 17 * 60 = 1020
      "1200, 1200", // 1200 = 20 * 60: the round runs as a ends
      "1201, 1260",
    })
    void aJobThatCannotRunBesideAnotherQueuesUntilItEndsPlusTheRoundAlignment(
        double firstDuration, double start) {
      Scenario s =
          scenario(
              SimConfig.defaults(1, 0),
              null,
              7200,
              0,
              job("a", 0, firstDuration, 8),
              job("b", 10, 500, 8));

      PolicyResult r = run("baseline", s);

      assertThat(record(r, "a").endS()).isEqualTo(firstDuration);
      JobRecord b = record(r, "b");
      assertThat(b.firstStartS()).isEqualTo(start);
      assertThat(b.queueS()).isEqualTo(start - 10);
      assertThat(b.endS()).isEqualTo(start + 500);
      assertThat(r.preemptions()).isZero();
    }

    @Test
    void jobsThatFitSideBySideDoNotQueue() {
      // Two 4-GPU jobs on one 8-GPU server.
      PolicyResult r =
          run(
              "baseline",
              scenario(
                  SimConfig.defaults(1, 0),
                  null,
                  7200,
                  0,
                  job("a", 0, 1000, 4),
                  job("b", 0, 2000, 4)));

      assertThat(r.jobs()).extracting(JobRecord::queueS).containsOnly(0.0);
      assertThat(record(r, "b").endS()).isEqualTo(2000);
    }
  }

  @Nested
  class Elasticity {
    // Four 8-GPU training servers, nothing else running. An elastic job asking g GPUs may use up to
    // 2g GPUs; the
    // first round admits its base gang and, with the rest of the cluster idle, gives it every extra
    // worker at once:
    // it starts at max width and is never re-scaled, so no pause is charged.
    //   work = d at the requested width; at twice the width throughput is 2^0.8 times higher
    //   JCT  = d * (requested / max)^0.8 = d * (1/2)^0.8 = 0.5743 d
    // The bound (no queue, full width) is the same number. The job keeps 2g GPUs busy the whole
    // time.
    @ParameterizedTest(name = "{0}, g={1}")
    @CsvSource({
      "aryl,         1",
      "aryl,         2",
      "aryl,         3",
      "aryl,         4",
      "aryl,         8",
      "aryl,         16",
      "elastic-only, 1",
      "elastic-only, 3",
      "elastic-only, 8",
      "elastic-only, 16",
    })
    void anElasticJobOnAnIdleClusterRunsAtMaxWidthFromTheStart(String policy, int g) {
      double d = 10_000;
      PolicyResult r =
          run(policy, scenario(SimConfig.defaults(4, 0), null, 20_000, 1.0, job("e", 0, d, g)));

      JobRecord e = record(r, "e");
      double expected = d * Math.pow(0.5, SPEEDUP);
      assertThat(e.elastic()).isTrue();
      assertThat(e.queueS()).isZero();
      assertThat(e.jctS()).isCloseTo(expected, offset(EPS));
      assertThat(e.boundS()).isCloseTo(expected, offset(EPS));
      assertThat(r.trainingBusyGpuS()).isCloseTo(2 * g * expected, offset(EPS));
      assertThat(r.scaleIns()).isZero();
    }

    // Non-elastic policies ignore the elastic marking: every job runs at exactly its g GPUs, JCT =
    // d.
    @ParameterizedTest(name = "{0}, g={1}")
    @CsvSource({
      "baseline,  1",
      "baseline,  3",
      "baseline,  8",
      "baseline,  16",
      "loan-only, 8",
    })
    void aNonElasticPolicyRunsEveryJobAtItsRequestedSizeEvenWhenMarkedElastic(
        String policy, int g) {
      double d = 10_000;
      PolicyResult r =
          run(policy, scenario(SimConfig.defaults(4, 0), null, 20_000, 1.0, job("e", 0, d, g)));

      JobRecord e = record(r, "e");
      assertThat(e.elastic()).isFalse();
      assertThat(e.jctS()).isEqualTo(d);
      assertThat(e.boundS()).isEqualTo(d);
      assertThat(r.trainingBusyGpuS()).isEqualTo(g * d);
    }

    // One 8-GPU server, elastic-only, every job elastic; g=4 is 1-GPU workers, 2..8 of them, 4
    // requested.
    //   0     "wide" (20,000 s) alone: all 8 workers
    //   600   "late" (2,000 s) arrives; the round at 600 admits its base gang (2 workers) on GPUs
    // wide's flexible
    //         workers held. The knapsack then gives the 4 GPUs left to wide, not late: wide has
    // ~10x more work left,
    //         so each extra worker saves it more seconds. wide 8 -> 6 workers (scale-in, paused
    // 600..630); late runs
    //         at its minimum of 2 workers, no pause.
    //   late: 2000 s at 4 workers = 2000 * 2^0.8 s at 2 -> ends at 600 + 3482.20 = 4082.20
    //   4140  the round after late ends: wide grows 6 -> 8, paused 4140..4170
    //   wide, in seconds at its requested 4 workers: 20000 = 600 * 2^0.8 + (4140 - 630) * 1.5^0.8 +
    // x * 2^0.8
    //         -> ends at 4170 + x = 12268.58
    @Test
    void anElasticJobGivesWayToAQueuedJobsBaseGangAndGrowsBackWhenItEnds() {
      PolicyResult r =
          run(
              "elastic-only",
              scenario(
                  SimConfig.defaults(1, 0),
                  null,
                  100_000,
                  1.0,
                  job("wide", 0, 20_000, 4),
                  job("late", 600, 2_000, 4)));

      double twice = Math.pow(2, SPEEDUP);
      double oneAndAHalf = Math.pow(1.5, SPEEDUP);
      JobRecord late = record(r, "late");
      assertThat(late.firstStartS()).isEqualTo(600);
      assertThat(late.endS()).isCloseTo(600 + 2000 * twice, offset(EPS));
      JobRecord wide = record(r, "wide");
      assertThat(wide.endS())
          .isCloseTo(
              4170 + (20_000 - 600 * twice - (4140 - 630) * oneAndAHalf) / twice, offset(EPS));
      assertThat(r.scaleIns()).isEqualTo(1);
      assertThat(r.preemptions()).isZero();
      // The server is full from 0 to wide's end (paused workers hold their GPUs), except between
      // late's end and the
      // next round, when only wide's 6 workers run.
      assertThat(r.trainingBusyGpuS())
          .isCloseTo(8 * wide.endS() - 2 * (4140 - late.endS()), offset(EPS));
    }
  }

  @Nested
  class Loaning {
    @Test
    void theLoanNumbersOfTheseTestsAreArylCoresLoanPolicy() {
      LoanPolicy p = LoanPolicy.provisionedForPeak(100, 4, 0.2, 1);
      assertThat(p.capacityPerServer()).isCloseTo(30, offset(1e-12));
      assertThat(p.serversNeeded(10)).isEqualTo(1);
      assertThat(p.lendable(10, 4)).isEqualTo(2);
      assertThat(p.serversNeeded(100)).isEqualTo(4);
      assertThat(p.toReclaim(100, 4, 2)).isEqualTo(2);
    }

    // Low demand all along: policies that loan lend 2 servers from the first instant and keep them;
    // others lend none.
    //   loaned GPU-hours = 2 servers * 8 GPUs * 1 h window = 16
    @ParameterizedTest(name = "{0} lends {1} servers")
    @CsvSource({
      "loan-only,         2",
      "aryl,              2",
      "yarn-nonexclusive, 2",
      "baseline,          0",
      "elastic-only,      0",
    })
    void lowInferenceDemandLendsTheServersBeyondNeedAndMargin(String policy, int servers) {
      PolicyResult r = run(policy, scenario(LOAN_WORLD, LOW, 3600, 0, job("a", 0, 600, 1)));

      assertThat(r.loanedGpuS()).isEqualTo(servers * 8 * 3600.0);
      assertThat((double) Metrics.of(r).get("loaned_gpu_hours")).isEqualTo(servers * 8.0);
      assertThat(r.samples())
          .isNotEmpty()
          .allSatisfy(s -> assertThat(s.loanedServers()).isEqualTo(servers));
      assertThat(r.inferenceShortfallServerS()).isZero();
    }

    @Test
    void withLoansTrainingRunsAJobBiggerThanItsOwnPool() {
      // "big" asks 16 GPUs: two 8-GPU workers. The training pool has one server; a lent server
      // holds the other worker.
      Scenario s = scenario(LOAN_WORLD, LOW, 3600, 0, job("big", 0, 1000, 16));

      PolicyResult loans = run("loan-only", s);
      JobRecord big = record(loans, "big");
      assertThat(big.queueS()).isZero();
      assertThat(big.jctS()).isEqualTo(1000);
      assertThat(loans.trainingBusyGpuS()).isEqualTo(8 * 1000.0);
      assertThat(loans.loanedBusyGpuS()).isEqualTo(8 * 1000.0);
      assertThat(sampleAt(loans, 600))
          .satisfies(
              x -> {
                assertThat(x.trainingPoolBusyGpus()).isEqualTo(8);
                assertThat(x.loanedBusyGpus()).isEqualTo(8);
                assertThat(x.loanedServers()).isEqualTo(2);
                assertThat(x.inferenceBusyGpus())
                    .isCloseTo(10 / 30.0 * 8, offset(EPS)); // 10 rps / 30 rps per server
              });

      // Without loans it never fits: after the 60-day tail it counts as unfinished.
      PolicyResult none = run("baseline", s);
      assertThat(none.jobs()).isEmpty();
      assertThat(none.unfinishedJobs()).isEqualTo(1);
      assertThat(none.loanedGpuS()).isZero();
    }

    // Loaned inference GPUs train at their own speed, and a synchronous job runs at the pace of its
    // slowest GPU.
    //   two 8-GPU jobs at 0: "a" is placed first (same size, lower id) on the training server,
    // where base workers go
    //   first; "b" gets a lent server and takes 1000 / speed.
    @ParameterizedTest(name = "inference GPU speed {0}")
    @CsvSource({"1.0", "0.5", "0.25"})
    void aJobOnALoanedServerRunsAtTheInferenceGpusSpeed(double speed) {
      PolicyResult r =
          run(
              "loan-only",
              scenario(
                  LOAN_WORLD.withInferenceGpuSpeed(speed),
                  LOW,
                  10_000,
                  0,
                  job("a", 0, 1000, 8),
                  job("b", 0, 1000, 8)));

      assertThat(record(r, "a").jctS()).isEqualTo(1000);
      assertThat(record(r, "b").jctS()).isCloseTo(1000 / speed, offset(EPS));
      assertThat(r.loanedBusyGpuS()).isCloseTo(8 * 1000 / speed, offset(EPS));
      assertThat(record(r, "b").boundS()).isEqualTo(1000); // the bound is on reference GPUs
    }

    // aryl+ moves a job off half-speed GPUs once fast ones free up. "a" (1,000 s) takes the
    // training server, "b"
    // (10,000 s) a lent one at half speed. "a" ends at 1000; the round at 1020 moves "b" to the
    // training server: it
    // has done 510 s of work, pauses 30 s and runs the other 9,490 s at full speed: it ends at
    // 10,540. The paper
    // leaves it on the slow server: 20,000 s.
    @Test
    void arylPlusMovesAJobOffSlowGpusWhenFastOnesFreeUp() {
      Scenario s =
          scenario(
              LOAN_WORLD.withInferenceGpuSpeed(0.5),
              LOW,
              30_000,
              0,
              job("a", 0, 1000, 8),
              job("b", 0, 10_000, 8));

      assertThat(record(run("aryl+", s), "b").endS()).isCloseTo(10_540, offset(EPS));
      assertThat(record(run("aryl", s), "b").endS()).isCloseTo(20_000, offset(EPS));
    }

    @Test
    void aJobSpanningTrainingAndHalfSpeedLoanedGpusRunsAtHalfSpeedThroughout() {
      // big: one worker on the training server, one on a lent server at 0.5 -> the whole job at
      // 0.5: 2000 s.
      PolicyResult r =
          run(
              "loan-only",
              scenario(
                  LOAN_WORLD.withInferenceGpuSpeed(0.5), LOW, 10_000, 0, job("big", 0, 1000, 16)));

      assertThat(record(r, "big").jctS()).isCloseTo(2000, offset(EPS));
      assertThat(r.trainingBusyGpuS()).isCloseTo(8 * 2000, offset(EPS));
      assertThat(r.loanedBusyGpuS()).isCloseTo(8 * 2000, offset(EPS));
    }
  }

  @Nested
  class Reclaims {
    // loan-only, STEP curve, "big" asks 16 GPUs = 2 workers: one on the training server, one on a
    // lent server.
    //   [0, 4000)      low: 2 servers lent at 0; big starts at 0, checkpoints at 1800, 3600
    //   4000           peak: need 4 servers -> both lent servers asked back (fenced), grace 60 s
    //   4060           taken back: big has 1 of its 2 (minimum) workers left -> preempted
    //                  lost = 4060 mod 1800 = 460 s x 16 GPUs = 7,360 GPU-s; remaining 10000 - 4060
    // + 460 = 6400 s
    //   8000           low again: 2 servers lent; round at the next multiple of 60 = 8040; restart
    // pause 120 s
    //                  -> runs from 8160 (its new checkpoint origin)
    //   12000 / 12060  peak / taken back: preempted again; ran 3900 s, lost 3900 mod 1800 = 300 s x
    // 16 = 4,800
    //                  GPU-s; remaining 6400 - 3900 + 300 = 2800 s
    //   16000          low: lent; round at 16020; pause to 16140; ends at 16140 + 2800 = 18940
    // Loaned GPU-s over [0, 20000): 16 GPUs x (4060 + 4060 + 4000) = 193,920 (grace included: still
    // lent).
    @Test
    void anInelasticJobOnAReclaimedServerIsPreemptedAndLosesTheWorkSinceItsCheckpoint() {
      PolicyResult r =
          run("loan-only", scenario(LOAN_WORLD, STEP, 20_000, 0, job("big", 0, 10_000, 16)));

      JobRecord big = record(r, "big");
      assertThat(big.firstStartS()).isZero();
      assertThat(big.endS()).isCloseTo(18_940, offset(EPS));
      assertThat(r.preemptions()).isEqualTo(2);
      assertThat(r.scaleIns()).isZero();
      assertThat(r.lostGpuS()).isCloseTo(7_360 + 4_800, offset(EPS));
      assertThat((double) Metrics.of(r).get("lost_gpu_hours"))
          .isCloseTo(12_160 / 3600.0, offset(EPS));
      assertThat(r.loanedGpuS()).isCloseTo(193_920, offset(EPS));
      // Two reclaims (4000, 12000) of 2 servers, each short until it serves: grace 60 + relabel 1
      // + replica start 30 s.
      assertThat(r.inferenceShortfallServerS()).isCloseTo(2 * 2 * 91, offset(EPS));
      // Before the peak: one worker on each side. After the grace: nothing lent, big waits.
      assertThat(sampleAt(r, 3600))
          .satisfies(
              s -> {
                assertThat(s.loanedServers()).isEqualTo(2);
                assertThat(s.trainingPoolBusyGpus()).isEqualTo(8);
                assertThat(s.loanedBusyGpus()).isEqualTo(8);
              });
      assertThat(sampleAt(r, 4200))
          .satisfies(
              s -> {
                assertThat(s.loanedServers()).isZero();
                assertThat(s.loanedBusyGpus()).isZero();
                assertThat(s.runningJobs()).isZero();
                assertThat(s.queuedJobs()).isEqualTo(1);
              });
    }

    // aryl, STEP curve, "e" elastic with g=8: 2-GPU workers, 2..8 of them, 4 requested.
    //   0     all 8 workers at once: the 2 base ones on the training server (4 GPUs), the 6
    // flexible ones on the lent
    //         servers (12 GPUs)
    //   4000  both lent servers fenced: the next round (4020) drops the workers there and keeps e
    // at 4 workers on the
    //         training server (its 8 GPUs): one scale-in, a 30 s pause, no preemption, nothing lost
    //   work done by 4020, in seconds at the requested 4 workers: 4020 * (8/4)^0.8
    //   end = 4020 + 30 + (10000 - 4020 * 2^0.8)  (at 4 workers = the requested width) = 7050.77
    @Test
    void anElasticJobOnReclaimedServersShrinksInsteadOfBeingPreempted() {
      PolicyResult r = run("aryl", scenario(LOAN_WORLD, STEP, 8000, 1.0, job("e", 0, 10_000, 8)));

      JobRecord e = record(r, "e");
      assertThat(e.elastic()).isTrue();
      assertThat(e.endS()).isCloseTo(4050 + 10_000 - 4020 * Math.pow(2, SPEEDUP), offset(EPS));
      assertThat(r.scaleIns()).isEqualTo(1);
      assertThat(r.preemptions()).isZero();
      assertThat(r.lostGpuS()).isZero();
      // One reclaim of 2 servers: short for grace 60 + relabel 1 + replica start 30 s.
      assertThat(r.inferenceShortfallServerS()).isCloseTo(2 * 91, offset(EPS));
      assertThat(sampleAt(r, 600))
          .satisfies(
              s -> {
                assertThat(s.trainingPoolBusyGpus()).isEqualTo(4);
                assertThat(s.loanedBusyGpus()).isEqualTo(12);
              });
      assertThat(sampleAt(r, 4200))
          .satisfies(
              s -> {
                assertThat(s.loanedServers()).isZero();
                assertThat(s.trainingPoolBusyGpus()).isEqualTo(8);
                assertThat(s.loanedBusyGpus()).isZero();
              });
    }

    // Every policy, STEP curve: inference is short only while a reclaimed server gets ready to
    // serve: in a policy that lends, two reclaims (4000, 12000) of the 2 lent servers, each short
    // for grace 60 + relabel 1 + replica start 30 s, whatever training runs there.
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.aryl.sim.engine.SimulatorTest#policyNames")
    void inferenceIsShortOnlyUntilAReclaimedServerServes(String policy) {
      PolicyResult r =
          run(
              policy,
              scenario(
                  LOAN_WORLD,
                  STEP,
                  20_000,
                  0.5,
                  job("big", 0, 10_000, 16),
                  job("e1", 100, 5000, 8),
                  job("e2", 200, 3000, 4),
                  job("s", 300, 900, 1)));

      double expected = PolicySpec.named(policy).loan() ? 2 * 2 * 91.0 : 0;
      assertThat(r.inferenceShortfallServerS()).isCloseTo(expected, offset(EPS));
    }
  }

  @Nested
  class Accounting {
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.aryl.sim.engine.SimulatorTest#policyNames")
    void busyGpuSecondsNeverExceedCapacityAndTheMetricsAgreeWithTheCounters(String policy) {
      Scenario s = randomDay(0.5);
      PolicyResult r = run(policy, s);
      double window = s.windowEndS() - s.windowStartS();
      int training = s.cfg().trainingGpus();
      int inference = s.cfg().inferenceGpus();

      assertThat(r.windowS()).isEqualTo(window);
      assertThat(r.trainingBusyGpuS()).isBetween(0.0, training * window);
      assertThat(r.loanedGpuS()).isBetween(0.0, inference * window);
      assertThat(r.loanedBusyGpuS()).isBetween(0.0, r.loanedGpuS());
      for (Sample x : r.samples()) {
        assertThat(x.trainingPoolBusyGpus()).as("at %s", x.timeS()).isBetween(0, training);
        assertThat(x.loanedServers())
            .as("at %s", x.timeS())
            .isBetween(0, s.cfg().inferenceServers());
        assertThat(x.loanedBusyGpus()).as("at %s", x.timeS()).isBetween(0, x.loanedServers() * 8);
      }
      Map<String, Object> m = Metrics.of(r);
      assertThat(m.get("jobs")).isEqualTo(r.jobs().size());
      assertThat((int) m.get("jobs") + r.unfinishedJobs()).isEqualTo(s.jobs().size());
      assertThat((double) m.get("training_util"))
          .isBetween(0.0, 1.0)
          .isCloseTo(r.trainingBusyGpuS() / (training * window), offset(1e-12));
      assertThat((double) m.get("inference_util")).isBetween(0.0, 1.0);
      assertThat((double) m.get("gpu_util")).isBetween(0.0, 1.0);
      assertThat((double) m.get("loaned_gpu_hours"))
          .isCloseTo(r.loanedGpuS() / 3600, offset(1e-12));
      assertThat((double) m.get("lost_gpu_hours")).isGreaterThanOrEqualTo(0);
      for (JobRecord j : r.jobs()) {
        assertThat(j.queueS()).as(j.id()).isGreaterThanOrEqualTo(0);
        assertThat(j.jctS()).as(j.id()).isGreaterThanOrEqualTo(j.boundS() - EPS);
      }
    }

    @Test
    void withoutLoansOrElasticityTheBusyGpuSecondsAreExactlyTheJobsWork() {
      // baseline: no pause, no preemption, every job at g GPUs for d seconds; a 30-day window holds
      // all of it.
      Scenario day = randomDay(0.5);
      Scenario s =
          new Scenario(
              "random", day.jobs(), day.curve(), day.cfg(), 0, 30 * 86400.0, 0, 0, 0.5, 0.2, 3);
      PolicyResult r = run("baseline", s);

      double work = s.jobs().stream().mapToDouble(TraceJob::gpuSeconds).sum();
      assertThat(r.unfinishedJobs()).isZero();
      assertThat(r.workGpuS()).isCloseTo(work, offset(EPS));
      assertThat(r.trainingBusyGpuS()).isCloseTo(work, offset(EPS));
      assertThat(r.loanedBusyGpuS()).isZero();
      assertThat(r.preemptions()).isZero();
      assertThat(r.scaleIns()).isZero();
      // Every GPU-second held was work at the requested width: nothing paid for scaling or slow
      // GPUs.
      assertThat(r.spentGpuS()).isCloseTo(work, offset(1e-6 * work));
      assertThat((double) Metrics.of(r).get("gpu_s_per_work")).isCloseTo(1.0, offset(1e-9));
    }

    @Test
    void anElasticJobAtFullWidthPaysForItsSublinearScalingInGpuSecondsPerWork() {
      // One elastic 4-GPU job of 1000 s alone on 8 GPUs: it runs at 8 GPUs (max = 2g) from the
      // start, for
      // 1000 * 0.5^0.8 s. GPU-seconds held: 8 * 1000 * 0.5^0.8; work at requested width: 4 * 1000.
      // Per work:
      // 2 * 0.5^0.8 = 2^0.2 = 1.1487. Its bound is its JCT: it never waited.
      Scenario s = scenario(SimConfig.defaults(1, 0), null, 86400, 1.0, job("e", 0, 1000, 4));
      Map<String, Object> m = Metrics.of(run("elastic-only", s));
      assertThat((double) m.get("gpu_s_per_work")).isCloseTo(Math.pow(2, 0.2), offset(1e-9));
      assertThat((double) m.get("jct_bound_s"))
          .isCloseTo(1000 * Math.pow(0.5, SPEEDUP), offset(1e-6));
      assertThat((double) m.get("jct_vs_bound")).isCloseTo(1.0, offset(1e-9));
      assertThat(m.get("starved_jobs")).isEqualTo(0L);
    }

    @Test
    void aJobThatWaitedMoreThanADayForItsGangCountsAsStarved() {
      // One 8-GPU server: "long" holds it for 2 days, so "next" (8 GPUs) waits 2 days for its gang.
      Scenario s =
          scenario(
              SimConfig.defaults(1, 0),
              null,
              10 * 86400,
              0,
              job("long", 0, 2 * 86400, 8),
              job("next", 60, 3600, 8));
      assertThat(Metrics.of(run("baseline", s)).get("starved_jobs")).isEqualTo(1L);
    }

    // Reported bug: while a reclaimed server is in its grace it still runs training, yet the
    // inference demand it is
    // being returned for is counted as served too, so the inference pool is counted busier than it
    // has GPUs.
    // loan-only, 1 + 4 servers, STEP curve; measured window [4000, 4060) = exactly the first grace;
    // "big" (16 GPUs)
    // started at 0 as a warm-up job, one worker on a lent server.
    //   inference demand at 100 rps: 100 / 30 = 3.33 servers = 26.67 GPUs
    //   loaned GPUs still running big: 8
    //   26.67 + 8 = 34.67 GPUs of a 32-GPU pool -> inference_util 1.083, gpu_util (8 + 8 + 26.67) /
    // 40 = 1.067
    // The pool can serve at most what is not lent: 2 un-lent servers = 16 GPUs (the rest is the
    // grace's allowed
    // shortfall), so inference + loaned busy must stay <= 32 GPUs.
    @Test
    void theInferencePoolIsNeverCountedBusierThanItsGpusDuringAReclaimGrace() {
      Scenario s =
          new Scenario(
              "grace",
              List.of(job("big", 0, 10_000, 16)),
              STEP,
              LOAN_WORLD,
              4000,
              4060,
              4000,
              0,
              0,
              0,
              1);
      PolicyResult r = run("loan-only", s);

      Sample atFence = sampleAt(r, 0);
      assertThat(atFence.loanedServers()).isEqualTo(2);
      assertThat(atFence.loanedBusyGpus()).isEqualTo(8);
      assertThat(atFence.inferenceBusyGpus() + atFence.loanedBusyGpus())
          .as("inference pool GPUs counted busy at the fence (pool has 32)")
          .isLessThanOrEqualTo(32);
      assertThat(r.inferenceBusyGpuS() + r.loanedBusyGpuS()).isLessThanOrEqualTo(32 * 60.0);
      assertThat((double) Metrics.of(r).get("inference_util")).isLessThanOrEqualTo(1.0);
      assertThat((double) Metrics.of(r).get("gpu_util")).isLessThanOrEqualTo(1.0);
    }
  }

  @Nested
  class Determinism {
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.aryl.sim.engine.SimulatorTest#policyNames")
    void theSameScenarioGivesTheSameResultEveryTime(String policy) {
      Scenario s = randomDay(0.5);
      PolicyResult first = run(policy, s);
      PolicyResult second = run(policy, s);

      assertThat(first.jobs()).isNotEmpty();
      assertSameOutcome(second, first);
    }

    @Test
    void runningPoliciesInParallelChangesNothing() throws InterruptedException {
      Scenario s = randomDay(0.5);
      List<PolicyResult> oneThread = s.runAll(PolicySpec.all(), 1, null);
      List<PolicyResult> twoThreads = s.runAll(PolicySpec.all(), 2, null);

      assertThat(twoThreads)
          .extracting(PolicyResult::policy)
          .containsExactlyElementsOf(PolicySpec.all().stream().map(PolicySpec::name).toList());
      for (int i = 0; i < oneThread.size(); i++) {
        assertSameOutcome(twoThreads.get(i), oneThread.get(i));
      }
    }

    @Test
    void anotherSeedMakesOtherJobsElastic() {
      Scenario one = randomDay(0.5);
      Scenario other =
          new Scenario(
              one.traceName(),
              one.jobs(),
              one.curve(),
              one.cfg(),
              one.windowStartS(),
              one.windowEndS(),
              one.warmupS(),
              one.curveOffsetS(),
              0.5,
              one.predictionError(),
              one.seed() + 1);

      assertThat(
              run("aryl", other).jobs().stream()
                  .filter(JobRecord::elastic)
                  .map(JobRecord::id)
                  .sorted()
                  .toList())
          .isNotEqualTo(
              run("aryl", one).jobs().stream()
                  .filter(JobRecord::elastic)
                  .map(JobRecord::id)
                  .sorted()
                  .toList());
    }

    private void assertSameOutcome(PolicyResult actual, PolicyResult expected) {
      assertThat(actual.policy()).isEqualTo(expected.policy());
      assertThat(metricsWithoutWallTime(actual))
          .as(expected.policy())
          .isEqualTo(metricsWithoutWallTime(expected));
      assertThat(actual.jobs()).as(expected.policy()).isEqualTo(expected.jobs());
      assertThat(actual.samples()).as(expected.policy()).isEqualTo(expected.samples());
    }
  }

  @Nested
  class Bounds {
    // 1 server of 8 GPUs, no inference; "a" (8 GPUs, 100 s) and "b" (8 GPUs, 300 s) at 0.
    //   per-job bound: 100 and 300, mean 200
    //   capacity: SRPT on 8 GPUs ends a at 100 and b at 400, mean 250: one of them must wait for
    // the other
    @Test
    void capacityBoundCountsTheWaitNoScheduleAvoids() {
      Scenario s =
          scenario(
              SimConfig.defaults(1, 0), null, 10_000, 0, job("a", 0, 100, 8), job("b", 0, 300, 8));

      PolicyResult r = run("baseline", s);

      assertThat(r.capacityBoundS()).isEqualTo(250);
      Map<String, Object> m = Metrics.of(r);
      assertThat(m.get("jct_bound_s")).isEqualTo(200.0);
      assertThat(m.get("jct_capacity_bound_s")).isEqualTo(250.0);
      assertThat((double) m.get("avg_jct_s")).isGreaterThanOrEqualTo(250);
    }
  }

  @Nested
  class WarmUp {
    // Window [1000, 5000) with 500 s of warm-up: jobs submitted from 500 on run, those from 1000 on
    // are measured.
    //   "old" (at 0) is before the warm-up: not simulated at all (else it would hold the server
    // until 5000)
    //   "w" (at 600, 1000 s) warms up: starts at 600 (a multiple of 60), ends at 1600; not measured
    //   "m" (at 1000, 500 s): waits for w, round at 1620, ends at 2120 -> window-relative submit 0,
    // start 620, end 1120
    // Training busy in the window: w on [1000, 1600) + m on [1620, 2120), 8 GPUs each = 8,800
    // GPU-s.
    @Test
    void jobsSubmittedBeforeTheWindowRunButAreNotMeasured() {
      Scenario s =
          new Scenario(
              "warm",
              List.of(job("old", 0, 5000, 8), job("w", 600, 1000, 8), job("m", 1000, 500, 8)),
              null,
              SimConfig.defaults(1, 0),
              1000,
              5000,
              500,
              0,
              0,
              0,
              1);

      PolicyResult r = run("baseline", s);

      assertThat(r.jobs()).containsExactly(new JobRecord("m", 0, 620, 1120, 8, false, 500));
      assertThat(r.unfinishedJobs()).isZero();
      assertThat(r.trainingBusyGpuS()).isEqualTo(8_800);
      assertThat(r.workGpuS()).isEqualTo(8 * 500);
      assertThat(Metrics.of(r).get("jobs")).isEqualTo(1);
    }

    // Reported bug: Simulator.run says counters cover [windowStart, windowEnd), and the busy and
    // loan counters do, but
    // preemptions, scale-ins and lost work are counted whenever they happen, for any job.
    // loan-only, STEP curve, window [5000, 6000) with 5000 s of warm-up:
    //   "big" (16 GPUs at 0, warm-up) is preempted at 4060, before the window (see the reclaim test
    // above), and,
    //   since the run goes on until big is done, again at 12060, after the window
    //   the window lies in the peak [4000, 8000): nothing is lent in it (loaned GPU-s 0), nothing
    // can be preempted
    //   "m" (1 GPU at 5000) is the only measured job: round at 5040, ends at 5140
    // In the window: 0 preemptions, 0 lost GPU-s. Counted today: 2 preemptions, 12,160 lost GPU-s
    // (3.38 GPU-h).
    @Test
    void preemptionsAndLostWorkOutsideTheWindowAreNotCounted() {
      Scenario s =
          new Scenario(
              "warm",
              List.of(job("big", 0, 10_000, 16), job("m", 5000, 100, 1)),
              STEP,
              LOAN_WORLD,
              5000,
              6000,
              5000,
              0,
              0,
              0,
              1);

      PolicyResult r = run("loan-only", s);

      assertThat(r.jobs()).containsExactly(new JobRecord("m", 0, 40, 140, 1, false, 100));
      assertThat(r.loanedGpuS()).isZero();
      assertThat(r.preemptions()).as("preemptions in the window").isZero();
      assertThat(r.lostGpuS()).as("GPU-s lost in the window").isZero();
    }
  }

  // --- shared scenarios
  // ---------------------------------------------------------------------------------------------

  static Stream<String> policyNames() {
    return PolicySpec.all().stream().map(PolicySpec::name);
  }

  /**
   * 60 jobs over one day (seeded), 3 training + 4 inference servers, a daily sine of inference
   * demand between 0 and 100 rps in hourly windows: enough for loans, reclaims, shrinks and queues
   * under every policy, fast to run.
   */
  private static Scenario randomDay(double elasticFraction) {
    Random rnd = new Random(7);
    int[] sizes = {1, 1, 1, 2, 4, 8, 8, 16};
    List<TraceJob> jobs = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      jobs.add(
          job(
              "j" + i,
              rnd.nextInt(86_400),
              600 + rnd.nextInt(20_000),
              sizes[rnd.nextInt(sizes.length)]));
    }
    double[] rates = new double[24];
    for (int h = 0; h < 24; h++) {
      rates[h] = 50 + 50 * Math.sin(h * Math.PI / 12);
    }
    return new Scenario(
        "random",
        jobs,
        new InferenceCurve("m", 3600, rates),
        SimConfig.defaults(3, 4),
        0,
        86_400,
        0,
        0,
        elasticFraction,
        0.2,
        3);
  }
}
