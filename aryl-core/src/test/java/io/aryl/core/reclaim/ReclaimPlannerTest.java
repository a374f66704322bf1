package io.aryl.core.reclaim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import io.aryl.core.reclaim.ReclaimPlan.JobImpact;
import io.aryl.core.victim.Fate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * "Return N loaned servers now" on small hand-built clusters. Every expected cost is derived in a
 * comment from {@link ReclaimCostModel}'s formulas with restart 120 s and re-scale 30 s:
 *
 * <ul>
 *   <li>shrink: {@code workersHeld * gpusPerWorker * 30}
 *   <li>preempt: {@code workersHeld * gpusPerWorker * (sinceCheckpointS + 120)}
 * </ul>
 */
@DisplayName("ReclaimPlanner")
class ReclaimPlannerTest {
  private static final GpuType A100 = GpuType.of("A100");
  private static final GpuType T4 = GpuType.of("T4", 0.3);
  private static final GpuType L4 = GpuType.of("L4", 0.5);

  /**
   * The defaults, spelled out so that the hand-derived costs below do not drift if the defaults
   * change.
   */
  private static final ReclaimCostModel COSTS = new ReclaimCostModel(120, 30);

  private static final ReclaimPlanner PLANNER = new ReclaimPlanner(COSTS);

  private static Job inelastic(String id, int gpusPerWorker, int workers, double sinceCheckpointS) {
    return elastic(id, gpusPerWorker, workers, workers, sinceCheckpointS);
  }

  private static Job elastic(
      String id, int gpusPerWorker, int min, int max, double sinceCheckpointS) {
    return Job.builder(id)
        .gpusPerWorker(gpusPerWorker)
        .workers(min, max)
        .remainingS(3600)
        .sinceCheckpointS(sinceCheckpointS)
        .build();
  }

  /** An allocation from alternating server ids and worker counts: {@code on("t1", 2, "i1", 1)}. */
  private static Allocation on(Object... serverAndWorkers) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (int i = 0; i < serverAndWorkers.length; i += 2) {
      m.put((String) serverAndWorkers[i], (Integer) serverAndWorkers[i + 1]);
    }
    return Allocation.of(m);
  }

  private static ClusterState state(
      List<Server> servers, List<Job> jobs, Map<String, Allocation> allocations) {
    return ClusterState.of(0, servers, jobs, allocations);
  }

  private static Server fenced(Server s) {
    return s.withFenced(true);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Which server goes first

  @Test
  void an_idle_loaned_server_is_returned_first_at_no_cost() {
    ClusterState state =
        state(
            List.of(
                Server.training("t1", A100, 8),
                Server.loaned("i1", T4, 4),
                Server.loaned("i2", T4, 4),
                Server.loaned("i3", T4, 4)),
            List.of(inelastic("gang", 1, 2, 600), elastic("flex", 1, 1, 4, 600)),
            Map.of("gang", on("i1", 2), "flex", on("t1", 1, "i3", 3)));

    ReclaimPlan one = PLANNER.plan(state, ReclaimRequest.any(1));

    // i2 runs nothing: returning it touches no job.
    assertThat(one.isFeasible()).isTrue();
    assertThat(one.servers()).containsExactly("i2");
    assertThat(one.costGpuS()).isZero();
    assertThat(one.impacts()).isEmpty();
    assertThat(one.toPlan(state).changes()).isEmpty();

    ReclaimPlan two = PLANNER.plan(state, ReclaimRequest.any(2));

    // Next cheapest: i3 shrinks flex from 4 to 1 (>= min 1): 4 workers * 1 GPU * 30 s = 120,
    // against preempting
    // gang on i1: 2 * 1 * (600 + 120) = 1440.
    assertThat(two.servers()).containsExactly("i2", "i3");
    assertThat(two.costGpuS()).isEqualTo(120.0);
  }

  @Test
  void reclaim_shrinks_flexible_workers_before_preempting_base_workers() {
    // i1 is fuller (4 busy GPUs) than i2 (2 busy GPUs), but on i1 only flexible workers run.
    ClusterState state =
        state(
            List.of(
                Server.training("t1", A100, 8),
                Server.loaned("i1", T4, 4),
                Server.loaned("i2", T4, 4)),
            List.of(elastic("flex", 2, 2, 6, 900), inelastic("base", 1, 2, 600)),
            Map.of("flex", on("t1", 2, "i1", 2), "base", on("i2", 2)));

    ReclaimPlan one = PLANNER.plan(state, ReclaimRequest.any(1));

    // Returning i1 leaves flex 2 of its 4 workers (= min 2): a shrink, 4 workers * 2 GPUs * 30 s =
    // 240.
    // Returning i2 would preempt base: 2 workers * 1 GPU * (600 + 120) = 1440.
    assertThat(one.servers()).containsExactly("i1");
    assertThat(one.impacts())
        .containsExactly(entry("flex", new JobImpact(Fate.SHRINK, Map.of("i1", 2), 240.0)));
    assertThat(one.costGpuS()).isEqualTo(240.0);
    assertThat(one.jobsWith(Fate.SHRINK)).containsExactly("flex");
    assertThat(one.jobsWith(Fate.PREEMPT)).isEmpty();

    // The busy-GPU heuristic would have preempted base instead.
    ReclaimPlan byBusy =
        new ReclaimPlanner(COSTS, ServerChooser.fewestBusyGpus())
            .plan(state, ReclaimRequest.any(1));
    assertThat(byBusy.servers()).containsExactly("i2");
    assertThat(byBusy.impacts())
        .containsExactly(entry("base", new JobImpact(Fate.PREEMPT, Map.of("i2", 2), 1440.0)));

    ReclaimPlan two = PLANNER.plan(state, ReclaimRequest.any(2));

    // Both: the shrink (240) and the preemption (1440), 1680 in all.
    assertThat(two.servers()).containsExactly("i1", "i2");
    assertThat(two.impacts())
        .containsOnly(
            entry("flex", new JobImpact(Fate.SHRINK, Map.of("i1", 2), 240.0)),
            entry("base", new JobImpact(Fate.PREEMPT, Map.of("i2", 2), 1440.0)));
    assertThat(two.costGpuS()).isEqualTo(1680.0);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void what_returning_a_server_does_to_a_job_follows_the_cost_model(
      String scenario, Job job, Allocation now, JobImpact expected) {
    // Only i1 is loaned, so the planner must take it.
    ClusterState state =
        state(
            List.of(Server.training("t1", A100, 8), Server.loaned("i1", T4, 4)),
            List.of(job),
            Map.of(job.id(), now));

    ReclaimPlan plan = PLANNER.plan(state, ReclaimRequest.any(1));

    assertThat(plan.servers()).containsExactly("i1");
    assertThat(plan.impacts()).containsExactly(entry(job.id(), expected));
    assertThat(plan.costGpuS()).isEqualTo(expected.costGpuS());
  }

  static Stream<Arguments> what_returning_a_server_does_to_a_job_follows_the_cost_model() {
    return Stream.of(
        // 4 - 2 = 2 >= min 2: shrink; 4 workers * 1 GPU * 30 = 120.
        Arguments.of(
            "elastic job keeps its minimum: shrink, only the workers on the server",
            elastic("j", 1, 2, 4, 300),
            on("t1", 2, "i1", 2),
            new JobImpact(Fate.SHRINK, Map.of("i1", 2), 120.0)),
        // 7 - 1 = 6 >= min 1: shrink, charged on all 7 workers it held: 7 * 1 * 30 = 210.
        Arguments.of(
            "a shrink pauses every GPU the job held, not only the removed ones",
            elastic("j", 1, 1, 8, 300),
            on("t1", 6, "i1", 1),
            new JobImpact(Fate.SHRINK, Map.of("i1", 1), 210.0)),
        // 4 - 2 = 2 < min 3: preempt; 4 workers * 1 GPU * (300 + 120) = 1680; its t1 workers stop
        // too.
        Arguments.of(
            "elastic job that would fall below its minimum: preempt, every worker",
            elastic("j", 1, 3, 4, 300),
            on("t1", 2, "i1", 2),
            new JobImpact(Fate.PREEMPT, Map.of("t1", 2, "i1", 2), 1680.0)),
        // 4 - 1 = 3 < min 4: preempt; 4 workers * 2 GPUs * (300 + 120) = 3360.
        Arguments.of(
            "inelastic job losing a single worker: preempt",
            inelastic("j", 2, 4, 300),
            on("t1", 3, "i1", 1),
            new JobImpact(Fate.PREEMPT, Map.of("t1", 3, "i1", 1), 3360.0)),
        // 2 - 2 = 0 < min 1: preempt; 2 workers * 2 GPUs * (0 + 120) = 480: a fresh checkpoint
        // still pays restart.
        Arguments.of(
            "job entirely on the server, just checkpointed: preempt pays the restart only",
            elastic("j", 2, 1, 2, 0),
            on("i1", 2),
            new JobImpact(Fate.PREEMPT, Map.of("i1", 2), 480.0)));
  }

  @Test
  void a_job_preempted_for_one_server_makes_its_other_loaned_servers_free() {
    ClusterState state =
        state(
            List.of(
                Server.training("t1", A100, 8),
                Server.loaned("i1", T4, 8),
                Server.loaned("i2", T4, 8),
                Server.loaned("i3", T4, 8)),
            List.of(
                inelastic("big", 2, 4, 300),
                elastic("flex", 1, 1, 4, 600),
                inelastic("pinned", 1, 2, 1580)),
            Map.of(
                "big", on("i1", 2, "i2", 2), "flex", on("t1", 1, "i2", 2), "pinned", on("i3", 2)));

    // Alone, each server costs:
    //   i1: preempts big, 4 workers * 2 GPUs * (300 + 120) = 3360
    //   i2: preempts big (3360) and shrinks flex from 3 to 1 (3 * 1 * 30 = 90): 3450
    //   i3: preempts pinned, 2 * 1 * (1580 + 120) = 3400
    ReclaimCandidates candidates = new ReclaimCandidates(state, ReclaimRequest.any(2), COSTS);
    ReclaimCandidates.Selection sel = candidates.select();
    assertThat(sel.marginalCost("i1")).isEqualTo(3360.0);
    assertThat(sel.marginalCost("i2")).isEqualTo(3450.0);
    assertThat(sel.marginalCost("i3")).isEqualTo(3400.0);

    // Once i1 is taken, big is preempted anyway: i2 only adds flex's shrink, i3 is unchanged.
    sel.add("i1");
    assertThat(sel.marginalCost("i2")).isEqualTo(90.0);
    assertThat(sel.marginalCost("i3")).isEqualTo(3400.0);

    ReclaimPlan plan = PLANNER.plan(state, ReclaimRequest.any(2));

    // Ranking servers by their cost alone would take i1 and i3: 3360 + 3400 = 6760. Recomputing
    // after i1 takes
    // i2 for 90 more: 3450.
    assertThat(plan.servers()).containsExactly("i1", "i2");
    assertThat(plan.impacts())
        .containsOnly(
            entry("big", new JobImpact(Fate.PREEMPT, Map.of("i1", 2, "i2", 2), 3360.0)),
            entry("flex", new JobImpact(Fate.SHRINK, Map.of("i2", 2), 90.0)));
    assertThat(plan.costGpuS()).isEqualTo(3450.0);
    assertThat(candidates.costOf(List.of("i1", "i3"))).isEqualTo(6760.0);
  }

  @Test
  void ties_in_cost_go_to_the_server_with_fewer_busy_gpus_then_the_lower_id() {
    // With no restart or re-scale overhead and fresh checkpoints every reclaim costs 0: only the
    // tie-breaks decide.
    ReclaimPlanner free = new ReclaimPlanner(new ReclaimCostModel(0, 0));
    ClusterState state =
        state(
            List.of(
                Server.loaned("i1", T4, 4),
                Server.loaned("i2", T4, 4),
                Server.loaned("i3", T4, 4),
                Server.loaned("i4", T4, 4)),
            List.of(inelastic("a", 4, 1, 0), inelastic("b", 1, 1, 0), inelastic("c", 1, 1, 0)),
            Map.of("a", on("i1", 1), "b", on("i2", 1), "c", on("i3", 1)));

    ReclaimPlan plan = free.plan(state, ReclaimRequest.any(4));

    // Busy GPUs: i4 0, i2 1, i3 1, i1 4.
    assertThat(plan.servers()).containsExactly("i4", "i2", "i3", "i1");
    assertThat(plan.costGpuS()).isZero();
  }

  // ---------------------------------------------------------------------------------------------------------
  // Which servers may be chosen

  /**
   * Two loaned T4s and two loaned L4s next to a training server and a plain inference server.
   *
   * <ul>
   *   <li>t4a runs "a" (1 worker, 1 GPU, checkpoint 100 s ago): preempt 1 * 1 * (100 + 120) = 220
   *   <li>t4b runs "b" (2 workers, 1 GPU each, 100 s): preempt 2 * 1 * 220 = 440
   *   <li>l4a is idle: 0
   *   <li>l4b runs "c" (1 worker, 1 GPU, just checkpointed): preempt 1 * 1 * (0 + 120) = 120
   * </ul>
   */
  private static ClusterState mixedTypes() {
    return state(
        List.of(
            Server.training("t1", A100, 8),
            Server.inference("inf", T4, 4),
            Server.loaned("t4a", T4, 4),
            Server.loaned("t4b", T4, 4),
            Server.loaned("l4a", L4, 4),
            Server.loaned("l4b", L4, 4)),
        List.of(inelastic("a", 1, 1, 100), inelastic("b", 1, 2, 100), inelastic("c", 1, 1, 0)),
        Map.of("a", on("t4a", 1), "b", on("t4b", 2), "c", on("l4b", 1)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void a_request_by_gpu_type_picks_only_servers_of_that_type(
      String scenario, ReclaimRequest request, List<String> expected, double expectedCost) {
    ClusterState state = mixedTypes();

    ReclaimPlan plan = PLANNER.plan(state, request);

    assertThat(plan.servers()).containsExactlyElementsOf(expected);
    assertThat(plan.costGpuS()).isEqualTo(expectedCost);
    if (request.gpuType() != null) {
      assertThat(plan.servers())
          .allSatisfy(
              s -> assertThat(state.server(s).gpuType().name()).isEqualTo(request.gpuType()));
    }
  }

  static Stream<Arguments> a_request_by_gpu_type_picks_only_servers_of_that_type() {
    return Stream.of(
        // The idle L4 is cheaper, but not a T4: the cheaper T4 (220) goes.
        Arguments.of(
            "one T4 although an idle L4 is loaned",
            ReclaimRequest.ofType(1, "T4"),
            List.of("t4a"),
            220.0),
        Arguments.of(
            "both T4s: 220 + 440", ReclaimRequest.ofType(2, "T4"), List.of("t4a", "t4b"), 660.0),
        Arguments.of("one L4: the idle one", ReclaimRequest.ofType(1, "L4"), List.of("l4a"), 0.0),
        Arguments.of(
            "both L4s: 0 + 120", ReclaimRequest.ofType(2, "L4"), List.of("l4a", "l4b"), 120.0),
        Arguments.of(
            "any type: idle l4a, then l4b (120) before t4a (220)",
            ReclaimRequest.any(2),
            List.of("l4a", "l4b"),
            120.0));
  }

  @Test
  void fenced_servers_are_never_chosen_even_when_idle() {
    // f1 is idle and f2 is cheap, but both are already being returned; only i1 may be chosen.
    ClusterState state =
        state(
            List.of(
                Server.training("t1", A100, 8),
                fenced(Server.loaned("f1", T4, 4)),
                fenced(Server.loaned("f2", T4, 4)),
                Server.loaned("i1", T4, 4)),
            List.of(inelastic("gang", 1, 2, 600), elastic("flex", 1, 1, 4, 600)),
            Map.of("gang", on("i1", 2), "flex", on("t1", 1, "f2", 1)));

    assertThat(new ReclaimCandidates(state, ReclaimRequest.any(1), COSTS).eligible())
        .containsExactly("i1");

    ReclaimPlan one = PLANNER.plan(state, ReclaimRequest.any(1));
    // Preempting gang: 2 * 1 * (600 + 120) = 1440, paid because f1's free GPUs are not on offer.
    assertThat(one.servers()).containsExactly("i1");
    assertThat(one.costGpuS()).isEqualTo(1440.0);

    ReclaimPlan two = PLANNER.plan(state, ReclaimRequest.any(2));
    assertThat(two.isFeasible()).isFalse();
    assertThat(two.infeasibleReason())
        .hasValueSatisfying(r -> assertThat(r).contains("asked for 2", "only 1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void asking_for_more_servers_than_are_loaned_is_infeasible_with_a_reason_naming_the_counts(
      String scenario, ReclaimRequest request, List<String> reasonParts) {
    // Loaned and unfenced: t4a, t4b (T4), l4a, l4b (L4). Add a fenced T4: it does not count.
    ClusterState base = mixedTypes();
    List<Server> servers = new ArrayList<>(base.servers());
    servers.add(fenced(Server.loaned("t4f", T4, 4)));
    ClusterState state = state(servers, base.jobs(), base.allocations());

    ReclaimPlan plan = PLANNER.plan(state, request);

    assertThat(plan.isFeasible()).isFalse();
    assertThat(plan.infeasibleReason())
        .hasValueSatisfying(r -> assertThat(r).contains(reasonParts));
    assertThat(plan.servers()).isEmpty();
    assertThat(plan.impacts()).isEmpty();
    assertThat(plan.costGpuS()).isZero();
    assertThat(plan.toPlan(state).changes()).isEmpty();
  }

  static Stream<Arguments>
      asking_for_more_servers_than_are_loaned_is_infeasible_with_a_reason_naming_the_counts() {
    return Stream.of(
        Arguments.of(
            "5 of any type, 4 loaned (training, plain inference and fenced servers do not count)",
            ReclaimRequest.any(5),
            List.of("asked for 5", "only 4")),
        Arguments.of(
            "3 T4s, 2 loaned",
            ReclaimRequest.ofType(3, "T4"),
            List.of("asked for 3", "T4", "only 2")),
        Arguments.of(
            "3 L4s, 2 loaned",
            ReclaimRequest.ofType(3, "L4"),
            List.of("asked for 3", "L4", "only 2")),
        Arguments.of(
            "training type: never loaned",
            ReclaimRequest.ofType(1, "A100"),
            List.of("asked for 1", "A100", "only 0")),
        Arguments.of(
            "type the cluster lacks",
            ReclaimRequest.ofType(1, "H100"),
            List.of("asked for 1", "H100", "only 0")));
  }

  @Test
  void the_infeasible_reason_for_an_untyped_request_names_no_type() {
    ReclaimPlan plan = PLANNER.plan(mixedTypes(), ReclaimRequest.any(9));

    assertThat(plan.infeasibleReason())
        .hasValueSatisfying(r -> assertThat(r).doesNotContain("GPU type"));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Guarantees that hold for every choice

  /**
   * Five loaned servers with a mix of jobs, two of them spanning training and loaned servers.
   *
   * <ul>
   *   <li>a: elastic 1..6, t1:2 i1:2 i2:1
   *   <li>b: inelastic 3 x 2 GPUs, t2:2 i2:1
   *   <li>c: inelastic 2 x 1 GPU, i3:2
   *   <li>d: elastic 2..3 x 2 GPUs, t2:1 i4:2
   *   <li>e: queued; i5 idle
   * </ul>
   */
  private static ClusterState mixed() {
    return state(
        List.of(
            Server.training("t1", A100, 8),
            Server.training("t2", A100, 8),
            Server.loaned("i1", T4, 4),
            Server.loaned("i2", T4, 4),
            Server.loaned("i3", T4, 4),
            Server.loaned("i4", T4, 4),
            Server.loaned("i5", T4, 4)),
        List.of(
            elastic("a", 1, 1, 6, 600),
            inelastic("b", 2, 3, 1200),
            inelastic("c", 1, 2, 60),
            elastic("d", 2, 2, 3, 300),
            inelastic("e", 1, 1, 0)),
        Map.of(
            "a",
            on("t1", 2, "i1", 2, "i2", 1),
            "b",
            on("t2", 2, "i2", 1),
            "c",
            on("i3", 2),
            "d",
            on("t2", 1, "i4", 2)));
  }

  static Stream<Arguments> choosers_and_counts() {
    Map<String, ServerChooser> choosers = new LinkedHashMap<>();
    choosers.put("leastCost", ServerChooser.leastCost());
    choosers.put("fewestBusyGpus", ServerChooser.fewestBusyGpus());
    choosers.put("random(1)", ServerChooser.random(1));
    choosers.put("random(7)", ServerChooser.random(7));
    return choosers.entrySet().stream()
        .flatMap(
            e ->
                IntStream.rangeClosed(1, 5)
                    .mapToObj(n -> Arguments.of(e.getKey(), e.getValue(), n)));
  }

  @ParameterizedTest(name = "{0} returns exactly {2} distinct eligible servers")
  @MethodSource("choosers_and_counts")
  void every_chooser_returns_exactly_n_distinct_eligible_servers_and_the_plan_costs_what_they_cost(
      String name, ServerChooser chooser, int n) {
    ClusterState state = mixed();
    ReclaimCandidates candidates = new ReclaimCandidates(state, ReclaimRequest.any(n), COSTS);

    ReclaimPlan plan = new ReclaimPlanner(COSTS, chooser).plan(state, ReclaimRequest.any(n));

    assertThat(plan.isFeasible()).isTrue();
    assertThat(plan.servers()).hasSize(n).doesNotHaveDuplicates();
    assertThat(candidates.eligible()).containsAll(plan.servers());
    // The plan's cost (a sum over job impacts) is the candidates' cost of the set (a sum of
    // marginal costs).
    assertThat(plan.costGpuS()).isCloseTo(candidates.costOf(plan.servers()), within(1e-9));
    assertThat(plan.costGpuS())
        .isCloseTo(
            plan.impacts().values().stream().mapToDouble(JobImpact::costGpuS).sum(), within(1e-9));
  }

  @ParameterizedTest(name = "{0}, {2} server(s)")
  @MethodSource("choosers_and_counts")
  void to_plan_shrinks_and_preempts_exactly_the_impacted_jobs_and_empties_the_returned_servers(
      String name, ServerChooser chooser, int n) {
    ClusterState state = mixed();
    ReclaimPlan reclaim = new ReclaimPlanner(COSTS, chooser).plan(state, ReclaimRequest.any(n));

    Plan plan = reclaim.toPlan(state);

    assertThat(plan.changes().keySet()).isEqualTo(reclaim.impacts().keySet());
    reclaim
        .impacts()
        .forEach(
            (job, impact) -> {
              Allocation before = state.allocation(job);
              if (impact.action() == Fate.PREEMPT) {
                assertThat(plan.changes().get(job)).isEqualTo(Plan.Change.PREEMPT);
                assertThat(plan.targets()).doesNotContainKey(job);
                assertThat(impact.workersRemoved()).isEqualTo(before.workersByServer());
              } else {
                assertThat(plan.changes().get(job)).isEqualTo(Plan.Change.SHRINK);
                int removed = 0;
                for (Map.Entry<String, Integer> w : impact.workersRemoved().entrySet()) {
                  assertThat(reclaim.servers()).contains(w.getKey());
                  assertThat(plan.target(job).workersOn(w.getKey()))
                      .isEqualTo(before.workersOn(w.getKey()) - w.getValue());
                  removed += w.getValue();
                }
                assertThat(plan.target(job).totalWorkers())
                    .isEqualTo(before.totalWorkers() - removed)
                    .isGreaterThanOrEqualTo(state.job(job).minWorkers());
              }
            });
    // Jobs the reclaim does not touch keep their allocations, and nothing is left on a returned
    // server.
    state
        .allocations()
        .forEach(
            (job, alloc) -> {
              if (!reclaim.impacts().containsKey(job)) {
                assertThat(plan.target(job)).isEqualTo(alloc);
              }
            });
    for (String server : reclaim.servers()) {
      assertThat(plan.targets().values()).allSatisfy(a -> assertThat(a.workersOn(server)).isZero());
    }
  }

  @Test
  void to_plan_of_a_shrink_and_a_preemption() {
    ClusterState state =
        state(
            List.of(
                Server.training("t1", A100, 8),
                Server.loaned("i1", T4, 4),
                Server.loaned("i2", T4, 4)),
            List.of(elastic("flex", 2, 2, 6, 900), inelastic("base", 1, 2, 600)),
            Map.of("flex", on("t1", 2, "i1", 2), "base", on("i2", 2)));

    Plan plan = PLANNER.plan(state, ReclaimRequest.any(2)).toPlan(state);

    assertThat(plan.changes())
        .containsOnly(entry("flex", Plan.Change.SHRINK), entry("base", Plan.Change.PREEMPT));
    assertThat(plan.targets()).containsOnly(entry("flex", on("t1", 2)));
  }

  @Test
  void the_planner_refuses_a_chooser_that_breaks_its_contract() {
    ClusterState state = mixed();
    ServerChooser duplicates = (c, n) -> Collections.nCopies(n, c.eligible().get(0));
    ServerChooser tooFew = (c, n) -> c.eligible().subList(0, n - 1);

    assertThatIllegalStateException()
        .isThrownBy(() -> new ReclaimPlanner(COSTS, duplicates).plan(state, ReclaimRequest.any(2)))
        .withMessageContaining("2 servers");
    assertThatIllegalStateException()
        .isThrownBy(() -> new ReclaimPlanner(COSTS, tooFew).plan(state, ReclaimRequest.any(2)))
        .withMessageContaining("2 servers");
  }

  @Test
  void the_same_cluster_gives_the_same_plan_whatever_order_it_was_described_in() {
    ClusterState first = mixed();
    Random shuffle = new Random(42);
    for (int round = 0; round < 5; round++) {
      List<Server> servers = new ArrayList<>(first.servers());
      List<Job> jobs = new ArrayList<>(first.jobs());
      Collections.shuffle(servers, shuffle);
      Collections.shuffle(jobs, shuffle);
      ClusterState again = state(servers, jobs, new LinkedHashMap<>(first.allocations()));

      for (int n = 1; n <= 5; n++) {
        for (ServerChooser chooser :
            List.of(
                ServerChooser.leastCost(),
                ServerChooser.fewestBusyGpus(),
                ServerChooser.random(3))) {
          ReclaimPlanner planner = new ReclaimPlanner(COSTS, chooser);
          ReclaimPlan a = planner.plan(first, ReclaimRequest.any(n));
          ReclaimPlan b = planner.plan(again, ReclaimRequest.any(n));

          // ReclaimPlan has no equals: compare everything it exposes.
          assertThat(b.servers()).isEqualTo(a.servers());
          assertThat(b.impacts()).isEqualTo(a.impacts());
          assertThat(b.costGpuS()).isEqualTo(a.costGpuS());
          assertThat(b.toPlan(again)).isEqualTo(a.toPlan(first));
        }
      }
    }
  }

  @Test
  void leastCost_on_the_mixed_cluster_matches_a_hand_worked_greedy() {
    // Marginal costs from nothing chosen:
    //   i5 idle: 0
    //   i1: a loses 2 of 5, keeps 3 >= 1: shrink 5 * 1 * 30 = 150
    //   i2: a loses 1 (shrink 150) and b (inelastic) loses 1: preempt 3 * 2 * (1200 + 120) = 7920;
    // 8070
    //   i3: c preempted: 2 * 1 * (60 + 120) = 360
    //   i4: d loses 2 of 3 < min 2: preempt 3 * 2 * (300 + 120) = 2520
    // Pick i5 (0), then i1 (150). With i1 gone, i2 takes a third worker from a (2 of 5 left, still
    // >= 1: the
    // shrink is already paid, +0) but still preempts b: 7920. So i3 (360), then i4 (2520); i2 is
    // never worth it.
    ClusterState state = mixed();

    ReclaimPlan plan = PLANNER.plan(state, ReclaimRequest.any(4));

    assertThat(plan.servers()).containsExactly("i5", "i1", "i3", "i4");
    assertThat(plan.costGpuS()).isEqualTo(150.0 + 360.0 + 2520.0);
    assertThat(plan.jobsWith(Fate.SHRINK)).containsExactly("a");
    assertThat(plan.jobsWith(Fate.PREEMPT)).containsExactly("c", "d");
    assertThat(new HashSet<>(plan.servers())).doesNotContain("i2");
  }
}
