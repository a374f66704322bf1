package io.aryl.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("ClusterState")
class ClusterStateTest {
  private static final GpuType A100 = GpuType.of("A100");
  private static final GpuType T4 = GpuType.of("T4", 0.3);

  private static final Server T1 = Server.training("t1", A100, 8);
  private static final Server T2 = Server.training("t2", A100, 8);
  private static final Server I1 = Server.inference("i1", T4, 4);
  private static final Server L1 = Server.loaned("l1", T4, 4);
  private static final List<Server> SERVERS = List.of(T2, I1, T1, L1);

  private static Job job(String id, int gpusPerWorker, int min, int max) {
    return Job.builder(id).gpusPerWorker(gpusPerWorker).workers(min, max).remainingS(100).build();
  }

  private static ClusterState state(
      List<Server> servers, List<Job> jobs, Map<String, Allocation> allocations) {
    return ClusterState.of(0, servers, jobs, allocations);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void refuses_an_inconsistent_snapshot_naming_the_culprit_and_value(
      String scenario,
      List<Server> servers,
      List<Job> jobs,
      Map<String, Allocation> allocations,
      List<String> messageParts) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> state(servers, jobs, allocations))
        .withMessageContainingAll(messageParts.toArray(String[]::new));
  }

  static Stream<Arguments> refuses_an_inconsistent_snapshot_naming_the_culprit_and_value() {
    Job small = job("small", 2, 1, 2);
    return Stream.of(
        Arguments.of(
            "duplicate server id",
            List.of(T1, Server.training("t1", A100, 4)),
            List.of(),
            Map.of(),
            List.of("server.id", "'t1'")),
        Arguments.of(
            "duplicate job id",
            SERVERS,
            List.of(small, job("small", 1, 1, 1)),
            Map.of(),
            List.of("job.id", "'small'")),
        Arguments.of(
            "unknown GPU type",
            SERVERS,
            List.of(Job.builder("j").allowedGpuTypes("H100").build()),
            Map.of(),
            List.of("job(j).allowedGpuTypes", "'H100'", "[A100, T4]")),
        Arguments.of(
            "worker larger than any server",
            SERVERS,
            List.of(job("big", 16, 1, 1)),
            Map.of(),
            List.of("job(big).gpusPerWorker", "16", "8 GPUs")),
        Arguments.of(
            "worker larger than any server of the types it may use",
            SERVERS,
            List.of(Job.builder("picky").gpusPerWorker(8).allowedGpuTypes("T4").build()),
            Map.of(),
            List.of("job(picky).gpusPerWorker", "was 8", "4 GPUs")),
        Arguments.of(
            "allocation for an unknown job",
            SERVERS,
            List.of(small),
            Map.of("ghost", Allocation.of("t1", 1)),
            List.of("unknown job", "'ghost'")),
        Arguments.of(
            "allocation for an unknown job, allocations sorted by job id",
            SERVERS,
            List.of(job("a", 1, 1, 1), small),
            new TreeMap<>(
                Map.of(
                    "a",
                    Allocation.of("t1", 1),
                    "ghost",
                    Allocation.of("t1", 1),
                    "small",
                    Allocation.of("t2", 1))),
            List.of("unknown job", "'ghost'")),
        Arguments.of(
            "workers on an unknown server",
            SERVERS,
            List.of(small),
            Map.of("small", Allocation.of("nowhere", 1)),
            List.of("job(small)", "'nowhere'")),
        Arguments.of(
            "running job below min workers",
            SERVERS,
            List.of(job("gang", 1, 3, 4)),
            Map.of("gang", Allocation.of("t1", 2)),
            List.of("job(gang)", "2 workers", "3..4")),
        Arguments.of(
            "running job above max workers",
            SERVERS,
            List.of(small),
            Map.of("small", Allocation.of("t1", 3)),
            List.of("job(small)", "3 workers", "1..2")),
        Arguments.of(
            "workers on a non-loaned inference server",
            SERVERS,
            List.of(small),
            Map.of("small", Allocation.of("i1", 1)),
            List.of("job(small)", "server(i1)", "does not serve training")),
        Arguments.of(
            "workers on a GPU type the job may not use",
            SERVERS,
            List.of(Job.builder("j").allowedGpuTypes("A100").build()),
            Map.of("j", Allocation.of("l1", 1)),
            List.of("job(j)", "server(l1)", "T4", "[A100]")),
        Arguments.of(
            "over-committed server by one job",
            SERVERS,
            List.of(job("wide", 4, 1, 3)),
            Map.of("wide", Allocation.of("t1", 3)),
            List.of("server(t1)", "over-committed", "12 GPUs used of 8")),
        Arguments.of(
            "over-committed server by two jobs",
            SERVERS,
            List.of(job("a", 4, 1, 1), job("b", 2, 1, 3)),
            Map.of("a", Allocation.of("t2", 1), "b", Allocation.of("t2", 3)),
            List.of("server(t2)", "10 GPUs used of 8")));
  }

  @ParameterizedTest(name = "now = {0}")
  @MethodSource
  void refuses_a_bad_clock_naming_it(double nowS, String shown) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ClusterState.of(nowS, SERVERS, List.of(), Map.of()))
        .withMessageContaining("nowS")
        .withMessageContaining(shown);
  }

  static Stream<Arguments> refuses_a_bad_clock_naming_it() {
    return Stream.of(
        Arguments.of(-1, "-1.0"),
        Arguments.of(Double.NaN, "NaN"),
        Arguments.of(Double.POSITIVE_INFINITY, "Infinity"));
  }

  @Test
  void lets_training_run_on_loaned_inference_servers() {
    Job j = job("j", 2, 1, 3);
    ClusterState s =
        state(SERVERS, List.of(j), Map.of("j", Allocation.of(Map.of("l1", 2, "t1", 1))));

    assertThat(s.isRunning("j")).isTrue();
    assertThat(s.usedGpus("l1")).isEqualTo(4);
    assertThat(s.freeGpus("l1")).isZero();
    assertThat(s.freeGpus("t1")).isEqualTo(6);
  }

  @Test
  void accepts_a_server_filled_exactly_to_capacity() {
    ClusterState s =
        state(
            SERVERS,
            List.of(job("a", 4, 1, 1), job("b", 2, 1, 2)),
            Map.of("a", Allocation.of("t1", 1), "b", Allocation.of("t1", 2)));

    assertThat(s.freeGpus("t1")).isZero();
    assertThat(s.workersOn("t1")).containsExactly(entry("a", 1), entry("b", 2));
  }

  @Test
  void treats_an_empty_allocation_as_queued() {
    ClusterState s = state(SERVERS, List.of(job("q", 1, 1, 1)), Map.of("q", Allocation.EMPTY));

    assertThat(s.isRunning("q")).isFalse();
    assertThat(s.allocation("q")).isEqualTo(Allocation.EMPTY);
    assertThat(s.allocations()).isEmpty();
  }

  @Test
  void lists_servers_and_jobs_sorted_by_id() {
    ClusterState s =
        state(SERVERS, List.of(job("z", 1, 1, 1), job("a", 1, 1, 1), job("m", 1, 1, 1)), Map.of());

    assertThat(s.servers()).extracting(Server::id).containsExactly("i1", "l1", "t1", "t2");
    assertThat(s.jobs()).extracting(Job::id).containsExactly("a", "m", "z");
  }

  @Test
  void an_idle_server_is_wholly_free() {
    ClusterState s = state(SERVERS, List.of(), Map.of());

    assertThat(s.usedGpus("t2")).isZero();
    assertThat(s.freeGpus("t2")).isEqualTo(8);
    assertThat(s.workersOn("t2")).isEmpty();
  }

  @Test
  void refuses_lookups_of_unknown_ids_naming_them() {
    ClusterState s = state(SERVERS, List.of(), Map.of());

    assertThatIllegalArgumentException()
        .isThrownBy(() -> s.server("nope"))
        .withMessageContaining("'nope'");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> s.job("nada"))
        .withMessageContaining("'nada'");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> s.freeGpus("nope"))
        .withMessageContaining("'nope'");
    assertThat(s.hasJob("nada")).isFalse();
  }

  @Test
  void cannot_be_changed_through_its_views() {
    ClusterState s =
        state(SERVERS, List.of(job("j", 1, 1, 1)), Map.of("j", Allocation.of("t1", 1)));

    assertThatThrownBy(() -> s.servers().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> s.jobs().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> s.allocations().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
