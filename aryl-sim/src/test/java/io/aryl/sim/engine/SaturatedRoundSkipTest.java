package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.RoundPlanner;
import io.aryl.core.model.ClusterState;
import io.aryl.sim.trace.InferenceCurve;
import io.aryl.sim.trace.TraceJob;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The simulator skips the rounds of a saturated cluster for a planner that promises to change
 * nothing there: the run is the same as when it plans every round, it skips exactly the saturated
 * rounds, and there are some.
 */
@DisplayName("Simulator: skipping saturated rounds")
class SaturatedRoundSkipTest {
  private static final double END_S = 60_000;
  private static final SimConfig CFG = SimConfig.defaults(4, 4);
  private static final InferenceCurve CURVE =
      new InferenceCurve("m", 3_600, new double[] {10, 100, 10, 55, 25});

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"aryl", "aryl+"})
  @DisplayName("changes no result and skips exactly the saturated rounds")
  void skipsExactlyTheSaturatedRounds(String policy) {
    PolicySpec skipping = PolicySpec.named(policy);
    // The method reference is the point: a Planner of the same rounds that keeps the default
    // changesNothingWhenSaturated(), so that the simulator plans every round.
    @SuppressWarnings("UnnecessaryMethodReference")
    PolicySpec planningEvery =
        new PolicySpec(
            skipping.name(),
            skipping.loan(),
            skipping.elastic(),
            skipping.jobOrder(),
            skipping.reclaim(),
            skipping.description(),
            (spec, cfg) ->
                skipping.planner().create(spec, cfg)::plan, // the same rounds, without the promise
            skipping.loanForecastS());
    List<TraceJob> trace = trace();

    List<ClusterState> planned = new ArrayList<>();
    PolicyResult skipped =
        new Simulator(CFG, skipping, CURVE, 0, 0.5, 0.3, 7)
            .observeRounds((state, plan) -> planned.add(state))
            .run(trace, 0, END_S, 4 * END_S, null);
    List<ClusterState> all = new ArrayList<>();
    PolicyResult every =
        new Simulator(CFG, planningEvery, CURVE, 0, 0.5, 0.3, 7)
            .observeRounds(
                (state, plan) -> {
                  all.add(state);
                  if (RoundPlanner.saturated(state)) {
                    assertThat(plan.changes()).as("plan of saturated t=%s", state.nowS()).isEmpty();
                  }
                })
            .run(trace, 0, END_S, 4 * END_S, null);

    assertThat(withoutWallTime(skipped)).isEqualTo(withoutWallTime(every));
    assertThat(skipped.jobs()).isEqualTo(every.jobs());
    assertThat(skipped.samples()).isEqualTo(every.samples());
    long saturated = all.stream().filter(RoundPlanner::saturated).count();
    assertThat(saturated).as("saturated rounds of %d", all.size()).isPositive();
    assertThat(planned).as("rounds planned while skipping").noneMatch(RoundPlanner::saturated);
    assertThat(planned).hasSize(all.size() - (int) saturated);
  }

  private static Map<String, Object> withoutWallTime(PolicyResult r) {
    Map<String, Object> m = new LinkedHashMap<>(Metrics.of(r));
    m.remove("sim_wall_s");
    return m;
  }

  /** 120 jobs of 1-16 GPUs over the first 80% of the window, exponential durations around 1 h. */
  private static List<TraceJob> trace() {
    Random rnd = new Random(11);
    int[] sizes = {1, 1, 2, 2, 4, 4, 8, 16};
    List<TraceJob> jobs = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      double submit = Math.floor(rnd.nextDouble() * END_S * 0.8);
      double duration = 300 + Math.floor(-Math.log(1 - rnd.nextDouble()) * 3_600);
      jobs.add(
          new TraceJob(
              String.format("job%03d", i),
              submit,
              duration,
              sizes[rnd.nextInt(sizes.length)],
              "m"));
    }
    return jobs;
  }
}
