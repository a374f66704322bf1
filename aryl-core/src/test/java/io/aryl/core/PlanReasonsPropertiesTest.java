package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.BelowMax;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.QueuePlace;
import io.aryl.core.model.Server;
import io.aryl.core.testing.SmallStates;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * What the reasons a round records must say on random valid clusters, with both policies: a place
 * for every job left waiting and a reason for every elastic job run below its maximum, none for any
 * other, and numbers that agree with the plan itself.
 */
class PlanReasonsPropertiesTest {
  private static final double EPS = 1e-9;
  private final List<RoundPlanner> planners =
      List.of(
          new RoundPlanner(PolicyConfig.defaults()),
          new RoundPlanner(PolicyConfig.defaults().withArylPlus()));

  @Property(tries = 400)
  void everyJobLeftWaitingHasItsPlaceInOneQueue(@ForAll long seed) {
    ClusterState state = SmallStates.random(seed);
    for (RoundPlanner planner : planners) {
      Plan plan = planner.plan(state);
      Set<String> leftWaiting = new HashSet<>();
      for (Job j : state.jobs()) {
        if (!state.isRunning(j.id()) && !plan.targets().containsKey(j.id())) {
          leftWaiting.add(j.id());
        }
      }
      assertThat(plan.waiting().keySet()).isEqualTo(leftWaiting);
      List<QueuePlace> queue = new ArrayList<>(plan.waiting().values());
      queue.sort(Comparator.comparingInt(QueuePlace::waitingAhead));
      for (int i = 0; i < queue.size(); i++) {
        QueuePlace p = queue.get(i);
        assertThat(p.waitingAhead()).as("places 0..n-1").isEqualTo(i);
        if (i > 0) {
          assertThat(p.offeredBefore())
              .as("offered in the order of the places")
              .isGreaterThan(queue.get(i - 1).offeredBefore());
        }
        assertThat(p.offeredBefore())
            .as("queued jobs offered before it")
            .isLessThan(state.jobs().size() - state.allocations().size());
      }
      assertThat(plan.waiting().values().stream().filter(QueuePlace::reserved).count())
          .as("at most one job holds servers")
          .isLessThanOrEqualTo(1);
      plan.waiting()
          .forEach(
              (id, p) -> {
                if (p.reserved()) {
                  assertThat(p.waitingAhead())
                      .as("the reserving job is the first offered")
                      .isZero();
                  assertThat(p.offeredBefore()).isZero();
                  assertThat(p.standing()).isNotEqualTo(QueuePlace.Standing.NOT_STARVING);
                }
              });
    }
  }

  @Property(tries = 400)
  void everyElasticJobBelowItsMaximumHasOneReasonThatAgreesWithThePlan(@ForAll long seed) {
    ClusterState state = SmallStates.random(seed);
    for (RoundPlanner planner : planners) {
      Plan plan = planner.plan(state);
      Set<String> below = new HashSet<>();
      plan.targets()
          .forEach(
              (id, a) -> {
                if (a.totalWorkers() < state.job(id).maxWorkers()) {
                  below.add(id);
                }
              });
      assertThat(plan.belowMax().keySet()).isEqualTo(below);

      Map<String, Integer> spare = spareAfter(state, plan);
      double pause = planner.config().rescaleOverheadS();
      plan.belowMax()
          .forEach(
              (id, why) -> {
                Job job = state.job(id);
                if (why instanceof BelowMax.NoRoom r) {
                  assertThat(r.gpuTypes())
                      .isNotEmpty()
                      .allMatch(
                          t ->
                              job.allowedGpuTypes().isEmpty() || job.allowedGpuTypes().contains(t));
                  int total = 0;
                  int largest = 0;
                  for (Server s : state.servers()) {
                    if (spare.containsKey(s.id()) && r.gpuTypes().contains(s.gpuType().name())) {
                      total += spare.get(s.id());
                      largest = Math.max(largest, spare.get(s.id()));
                    }
                  }
                  assertThat(r.spareGpus()).as("spare GPUs of %s's types", id).isEqualTo(total);
                  assertThat(r.largestSpare())
                      .as("the most on one server")
                      .isEqualTo(largest)
                      .isLessThan(job.gpusPerWorker());
                } else if (why instanceof BelowMax.NotWorthThePause r) {
                  assertThat(r.gainS())
                      .as("%s: one more worker gains no more than its pause", id)
                      .isLessThanOrEqualTo(r.pauseS() + EPS);
                  assertThat(r.pauseS()).isIn(0.0, pause);
                } else if (why instanceof BelowMax.OthersWorthMore r) {
                  assertThat(r.gainS()).as("%s: worth its pause", id).isGreaterThan(r.pauseS());
                  assertThat(r.pauseS()).isIn(0.0, pause);
                } else if (why instanceof BelowMax.MovedWhole) {
                  assertThat(planner.config().speedAware()).isTrue();
                } else {
                  assertThat(why).isInstanceOf(BelowMax.ElasticOff.class);
                  assertThat(planner.config().elastic()).isFalse();
                }
              });
    }
  }

  /** GPUs each open server has left after the plan: its GPUs less its targets' workers'. */
  private static Map<String, Integer> spareAfter(ClusterState state, Plan plan) {
    Map<String, Integer> spare = new HashMap<>();
    for (Server s : state.servers()) {
      if (s.servesTraining() && !s.fenced()) {
        spare.put(s.id(), s.gpus());
      }
    }
    plan.targets()
        .forEach(
            (id, a) ->
                a.workersByServer()
                    .forEach(
                        (s, w) ->
                            spare.computeIfPresent(
                                s, (k, g) -> g - w * state.job(id).gpusPerWorker())));
    return spare;
  }
}
