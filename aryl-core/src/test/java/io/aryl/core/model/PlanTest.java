package io.aryl.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.core.model.Plan.Change;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("Plan")
class PlanTest {
  private static final GpuType A100 = GpuType.of("A100");

  /**
   * One job "j" (1..4 workers of 1 GPU) on two 8-GPU servers, queued or running as {@code now}
   * says.
   */
  private static ClusterState with(Allocation now) {
    return ClusterState.of(
        0,
        List.of(Server.training("s1", A100, 8), Server.training("s2", A100, 8)),
        List.of(Job.builder("j").workers(1, 4).remainingS(100).build()),
        now.isEmpty() ? Map.of() : Map.of("j", now));
  }

  private static Allocation on(int onS1, int onS2) {
    return Allocation.of(Map.of("s1", onS1, "s2", onS2));
  }

  @ParameterizedTest(name = "{0}: {1} -> {2} is {3}")
  @MethodSource
  void classifies_how_a_jobs_allocation_changes(
      String scenario, Allocation now, Allocation next, Change expected) {
    Plan plan = Plan.between(with(now), Map.of("j", next));

    assertThat(plan.changes()).containsExactly(Map.entry("j", expected));
    assertThat(plan.jobsWith(expected)).containsExactly("j");
  }

  static Stream<Arguments> classifies_how_a_jobs_allocation_changes() {
    return Stream.of(
        Arguments.of("queued job gets workers", Allocation.EMPTY, on(2, 0), Change.START),
        Arguments.of("more workers on the same server", on(1, 0), on(3, 0), Change.GROW),
        Arguments.of("more workers, some elsewhere", on(2, 0), on(0, 3), Change.GROW),
        Arguments.of("fewer workers", on(2, 2), on(2, 0), Change.SHRINK),
        Arguments.of("fewer workers, some elsewhere", on(3, 0), on(0, 2), Change.SHRINK),
        Arguments.of("same count on another server", on(2, 0), on(0, 2), Change.MOVE),
        Arguments.of("same count, split differently", on(2, 2), on(3, 1), Change.MOVE),
        Arguments.of(
            "running job given an empty allocation", on(2, 0), Allocation.EMPTY, Change.PREEMPT));
  }

  @Test
  void preempts_a_running_job_left_out_of_the_targets() {
    Plan plan = Plan.between(with(on(1, 1)), Map.of());

    assertThat(plan.changes()).containsExactly(Map.entry("j", Change.PREEMPT));
    assertThat(plan.preempted()).containsExactly("j");
    assertThat(plan.targets()).isEmpty();
    assertThat(plan.target("j")).isEqualTo(Allocation.EMPTY);
  }

  @Test
  void leaves_an_unchanged_job_out_of_the_changes_but_in_the_targets() {
    Plan plan = Plan.between(with(on(1, 1)), Map.of("j", on(1, 1)));

    assertThat(plan.changes()).isEmpty();
    assertThat(plan.targets()).containsExactly(Map.entry("j", on(1, 1)));
  }

  @Test
  void leaves_a_queued_job_that_stays_queued_out_of_everything() {
    Plan plan = Plan.between(with(Allocation.EMPTY), Map.of());

    assertThat(plan.changes()).isEmpty();
    assertThat(plan.targets()).isEmpty();
  }

  @Test
  void classifies_several_jobs_at_once_and_lists_each_kind_sorted() {
    Server s1 = Server.training("s1", A100, 8);
    Server s2 = Server.training("s2", A100, 8);
    List<Job> jobs =
        Stream.of("start", "grow", "shrink", "move", "preempt", "same", "waits")
            .map(id -> Job.builder(id).workers(1, 4).remainingS(10).build())
            .toList();
    Map<String, Allocation> now = new HashMap<>();
    now.put("grow", Allocation.of("s1", 1));
    now.put("shrink", Allocation.of("s1", 2));
    now.put("move", Allocation.of("s1", 1));
    now.put("preempt", Allocation.of("s2", 2));
    now.put("same", Allocation.of("s2", 1));
    ClusterState before = ClusterState.of(0, List.of(s1, s2), jobs, now);

    Plan plan =
        Plan.between(
            before,
            Map.of(
                "start", Allocation.of("s2", 1),
                "grow", Allocation.of("s1", 2),
                "shrink", Allocation.of("s1", 1),
                "move", Allocation.of("s2", 1),
                "same", Allocation.of("s2", 1)));

    assertThat(plan.started()).containsExactly("start");
    assertThat(plan.grown()).containsExactly("grow");
    assertThat(plan.shrunk()).containsExactly("shrink");
    assertThat(plan.jobsWith(Change.MOVE)).containsExactly("move");
    assertThat(plan.preempted()).containsExactly("preempt");
    assertThat(plan.changes()).doesNotContainKeys("same", "waits");
    assertThat(plan.changes().keySet())
        .containsExactly("grow", "move", "preempt", "shrink", "start");
    assertThat(plan.targets().keySet()).containsExactly("grow", "move", "same", "shrink", "start");
  }

  @Test
  void refuses_a_target_for_an_unknown_job_naming_it() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Plan.between(with(Allocation.EMPTY), Map.of("ghost", on(1, 0))))
        .withMessageContaining("'ghost'");
  }

  /**
   * Jobs "a", "b" and "c" (1..8 workers of 2 GPUs) on two 8-GPU servers: a and b run 2 each on s1,
   * c is queued.
   */
  private static ClusterState twoRunningOneQueued() {
    return ClusterState.of(
        0,
        List.of(Server.training("s1", A100, 8), Server.inference("s2", A100, 8)),
        List.of(job("a"), job("b"), job("c")),
        Map.of("a", Allocation.of("s1", 2), "b", Allocation.of("s1", 2)));
  }

  private static Job job(String id) {
    return Job.builder(id).gpusPerWorker(2).workers(1, 8).remainingS(100).build();
  }

  @ParameterizedTest(name = "refuses {0}")
  @MethodSource
  void refuses_targets_that_are_no_valid_state_naming_what_is_wrong(
      String scenario, Map<String, Allocation> targets, String message) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Plan.between(twoRunningOneQueued(), targets))
        .withMessageContaining(message);
  }

  static Stream<Arguments> refuses_targets_that_are_no_valid_state_naming_what_is_wrong() {
    Allocation unchanged = Allocation.of("s1", 2);
    return Stream.of(
        Arguments.of(
            "a started job on a full server",
            Map.of("a", unchanged, "b", unchanged, "c", Allocation.of("s1", 1)),
            "server(s1) is over-committed: 10 GPUs used of 8"),
        Arguments.of(
            "a grown job on a full server",
            Map.of("a", Allocation.of("s1", 3), "b", unchanged),
            "server(s1) is over-committed: 10 GPUs used of 8"),
        Arguments.of(
            "workers on a server that does not serve training",
            Map.of("a", unchanged, "b", unchanged, "c", Allocation.of("s2", 1)),
            "server(s2), which does not serve training"),
        Arguments.of(
            "workers on an unknown server",
            Map.of("a", Allocation.of("s9", 1)),
            "unknown server 's9'"),
        Arguments.of(
            "more workers than the job's maximum",
            Map.of("c", Allocation.of("s1", 9)),
            "runs 9 workers, outside its minWorkers..maxWorkers 1..8"));
  }

  @Test
  void a_preempted_or_shrunk_job_leaves_room_for_another_in_the_same_plan() {
    Plan plan =
        Plan.between(
            twoRunningOneQueued(),
            Map.of("b", Allocation.of("s1", 1), "c", Allocation.of("s1", 3)));

    assertThat(plan.changes())
        .containsExactly(
            Map.entry("a", Change.PREEMPT),
            Map.entry("b", Change.SHRINK),
            Map.entry("c", Change.START));
  }

  @Test
  void equal_plans_are_equal() {
    ClusterState before = with(on(1, 0));

    assertThat(Plan.between(before, Map.of("j", on(2, 0))))
        .isEqualTo(Plan.between(before, Map.of("j", on(2, 0))))
        .isNotEqualTo(Plan.between(before, Map.of("j", on(0, 1))));
  }
}
