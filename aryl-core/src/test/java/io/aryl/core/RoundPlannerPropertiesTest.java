package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.elastic.ElasticValue;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.reclaim.ReclaimPlan;
import io.aryl.core.reclaim.ReclaimPlanner;
import io.aryl.core.reclaim.ReclaimRequest;
import io.aryl.core.testing.SmallStates;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** What must hold for every plan, on random valid clusters. */
class RoundPlannerPropertiesTest {
  private final RoundPlanner planner = new RoundPlanner(PolicyConfig.defaults());

  @Property(tries = 500)
  void neverUsesMoreGpusThanAServerHas(@ForAll long seed) {
    ClusterState state = SmallStates.random(seed);
    Plan plan = planner.plan(state);
    Map<String, Integer> used = new HashMap<>();
    plan.targets()
        .forEach(
            (jobId, a) ->
                a.workersByServer()
                    .forEach(
                        (s, w) ->
                            used.merge(s, w * state.job(jobId).gpusPerWorker(), Integer::sum)));
    used.forEach(
        (s, gpus) ->
            assertThat(gpus).as("GPUs used on %s", s).isLessThanOrEqualTo(state.server(s).gpus()));
  }

  @Property(tries = 500)
  void everyJobRunsWithinMinAndMaxOrNotAtAll(@ForAll long seed) {
    ClusterState state = SmallStates.random(seed);
    planner
        .plan(state)
        .targets()
        .forEach(
            (jobId, a) -> {
              Job job = state.job(jobId);
              assertThat(a.totalWorkers())
                  .as("workers of %s", jobId)
                  .isBetween(job.minWorkers(), job.maxWorkers());
            });
  }

  @Property(tries = 500)
  void workersRunOnlyOnAllowedGpuTypesOfServersThatServeTraining(@ForAll long seed) {
    ClusterState state = SmallStates.random(seed);
    planner
        .plan(state)
        .targets()
        .forEach(
            (jobId, a) ->
                a.workersByServer()
                    .keySet()
                    .forEach(
                        s -> {
                          Server server = state.server(s);
                          assertThat(state.job(jobId).allows(server.gpuType()))
                              .as("%s on %s", jobId, s)
                              .isTrue();
                          assertThat(server.servesTraining()).as("%s serves training", s).isTrue();
                        }));
  }

  @Property(tries = 500)
  void fencedServersTakeNoNewWorkers(@ForAll long seed) {
    ClusterState state = SmallStates.random(seed);
    planner
        .plan(state)
        .targets()
        .forEach(
            (jobId, a) ->
                a.workersByServer()
                    .forEach(
                        (s, w) -> {
                          if (state.server(s).fenced()) {
                            assertThat(w)
                                .as("%s on fenced %s", jobId, s)
                                .isLessThanOrEqualTo(state.allocation(jobId).workersOn(s));
                          }
                        }));
  }

  @Property(tries = 500)
  void aRoundNeverPreemptsNorMovesBaseWorkers(@ForAll long seed) {
    ClusterState state = SmallStates.random(seed);
    Plan plan = planner.plan(state);
    assertThat(plan.preempted()).isEmpty();
    for (Map.Entry<String, Allocation> e : state.allocations().entrySet()) {
      Allocation next = plan.target(e.getKey());
      int kept = 0;
      for (Map.Entry<String, Integer> w : e.getValue().workersByServer().entrySet()) {
        kept += Math.min(w.getValue(), next.workersOn(w.getKey()));
      }
      assertThat(kept)
          .as("workers of %s kept in place", e.getKey())
          .isGreaterThanOrEqualTo(state.job(e.getKey()).minWorkers());
    }
  }

  @Property(tries = 300)
  void theSameInputAlwaysGivesTheSamePlan(@ForAll long seed) {
    ClusterState state = SmallStates.random(seed);
    List<Server> servers = new ArrayList<>(state.servers());
    List<Job> jobs = new ArrayList<>(state.jobs());
    Collections.reverse(servers);
    Collections.reverse(jobs);
    ClusterState reordered =
        ClusterState.of(state.nowS(), servers, jobs, new HashMap<>(state.allocations()));
    Plan first = planner.plan(state);
    assertThat(new RoundPlanner(PolicyConfig.defaults()).plan(reordered)).isEqualTo(first);
    assertThat(planner.plan(state)).isEqualTo(first);
  }

  @Property(tries = 300)
  void aReclaimReturnsExactlyTheServersAskedForOrSaysWhyNot(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 4) int count) {
    ClusterState state = SmallStates.random(seed);
    ReclaimPlan plan =
        new ReclaimPlanner(ReclaimCostModel.defaults()).plan(state, ReclaimRequest.any(count));
    long eligible = state.servers().stream().filter(s -> s.loaned() && !s.fenced()).count();
    if (eligible >= count) {
      assertThat(plan.isFeasible()).isTrue();
      assertThat(new HashSet<>(plan.servers())).hasSize(count);
      plan.servers()
          .forEach(s -> assertThat(state.server(s).loaned() && !state.server(s).fenced()).isTrue());
      // After the reclaim nothing runs on the returned servers.
      plan.toPlan(state)
          .targets()
          .values()
          .forEach(a -> plan.servers().forEach(s -> assertThat(a.workersOn(s)).isZero()));
    } else {
      assertThat(plan.isFeasible()).isFalse();
      assertThat(plan.infeasibleReason()).get().asString().contains("asked for " + count);
    }
  }

  @Property(tries = 500)
  void speedAwarePlansKeepEveryInvariant(@ForAll long seed) {
    ClusterState state = SmallStates.random(seed);
    for (PolicyConfig config : List.of(PolicyConfig.defaults().withSpeedAware(true), ARYL_PLUS)) {
      Plan plan = new RoundPlanner(config).plan(state); // validates capacity,
      assertThat(plan.preempted())
          .isEmpty(); // types, min..max and training-only servers, as Plan.between does
      plan.targets()
          .forEach(
              (jobId, a) ->
                  a.workersByServer()
                      .forEach(
                          (s, w) -> {
                            if (state.server(s).fenced()) {
                              assertThat(w)
                                  .isLessThanOrEqualTo(state.allocation(jobId).workersOn(s));
                            }
                          }));
    }
  }

  private static final PolicyConfig ARYL_PLUS =
      PolicyConfig.defaults()
          .withSpeedAware(true)
          .withElasticValue(ElasticValue.SHORTEST_REMAINING_FIRST);

  @Property(tries = 500)
  void aRunningJobEitherKeepsItsBaseOrMovesWholeOntoOneOtherSpeed(@ForAll long seed) {
    ClusterState state = SmallStates.random(seed);
    Plan plan = new RoundPlanner(ARYL_PLUS).plan(state);
    state
        .allocations()
        .forEach(
            (jobId, before) -> {
              Allocation after = plan.target(jobId);
              Set<Double> speedsBefore = speeds(state, before);
              Set<Double> speedsAfter = speeds(state, after);
              Job job = state.job(jobId);
              if (speedsAfter.equals(speedsBefore) || speedsBefore.containsAll(speedsAfter)) {
                return; // kept (or shed flexible workers on some speeds)
              }
              assertThat(speedsAfter)
                  .as("%s moved from %s: onto one speed", jobId, before)
                  .hasSize(1);
              double to = speedsAfter.iterator().next();
              if (!job.isElastic()) {
                assertThat(to)
                    .as("a rigid job moves only up")
                    .isGreaterThan(Collections.min(speedsBefore));
              }
              after
                  .workersByServer()
                  .keySet()
                  .forEach(
                      s ->
                          assertThat(state.server(s).fenced())
                              .as("%s moved onto fenced %s", jobId, s)
                              .isFalse());
            });
  }

  private static Set<Double> speeds(ClusterState state, Allocation a) {
    Set<Double> speeds = new HashSet<>();
    a.workersByServer()
        .keySet()
        .forEach(s -> speeds.add(state.server(s).gpuType().trainingSpeed()));
    return speeds;
  }
}
