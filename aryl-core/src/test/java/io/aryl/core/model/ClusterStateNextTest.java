package io.aryl.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "ClusterState.next: the snapshot of(...) makes, checked only where it differs from the last")
class ClusterStateNextTest {
  private static final GpuType A100 = GpuType.of("A100");
  private static final GpuType T4 = GpuType.of("T4", 0.3);

  private static final Server T1 = Server.training("t1", A100, 8);
  private static final Server T2 = Server.training("t2", A100, 8);
  private static final Server I1 = Server.inference("i1", T4, 4);
  private static final Server L1 = Server.loaned("l1", T4, 4);
  private static final List<Server> SERVERS = List.of(I1, L1, T1, T2);

  private static Job job(String id, int gpusPerWorker, int min, int max) {
    return Job.builder(id).gpusPerWorker(gpusPerWorker).workers(min, max).remainingS(100).build();
  }

  private static final Job SMALL = job("small", 2, 1, 2);
  private static final Job WIDE = job("wide", 4, 1, 3);
  private static final Allocation SMALL_ON_T1 = Allocation.of("t1", 2);
  private static final Allocation WIDE_ON_T2 = Allocation.of("t2", 1);

  /** Both jobs running: the snapshot each case below is the next one of. */
  private static ClusterState before() {
    return ClusterState.of(
        0, SERVERS, List.of(SMALL, WIDE), Map.of("small", SMALL_ON_T1, "wide", WIDE_ON_T2));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void refuses_what_a_full_snapshot_refuses_with_the_same_message(
      String scenario, List<Job> jobs, Map<String, Allocation> allocations) {
    Throwable full = catchThrowable(() -> ClusterState.of(60, SERVERS, jobs, allocations));
    assertThat(full)
        .as("the full snapshot refuses it")
        .isInstanceOf(IllegalArgumentException.class);

    assertThatIllegalArgumentException()
        .isThrownBy(() -> before().next(60, SERVERS, jobs, allocations, Tenants.NONE))
        .withMessage(full.getMessage());
  }

  static Stream<Arguments> refuses_what_a_full_snapshot_refuses_with_the_same_message() {
    return Stream.of(
        Arguments.of(
            "a new allocation over-commits a server another job keeps",
            List.of(SMALL, WIDE, job("new", 4, 2, 2)),
            Map.of("small", SMALL_ON_T1, "wide", WIDE_ON_T2, "new", Allocation.of("t2", 2))),
        Arguments.of(
            "a grown allocation over-commits its server",
            List.of(SMALL, WIDE),
            Map.of("small", SMALL_ON_T1, "wide", Allocation.of("t2", 3))),
        Arguments.of(
            "the same allocation object, but the job's workers are larger and over-commit its server",
            List.of(job("small", 6, 1, 2), WIDE),
            Map.of("small", SMALL_ON_T1, "wide", WIDE_ON_T2)),
        Arguments.of(
            "the same allocation object, but the job's maximum fell below it",
            List.of(job("small", 2, 1, 1), WIDE),
            Map.of("small", SMALL_ON_T1, "wide", WIDE_ON_T2)),
        Arguments.of(
            "the same allocation object, but the job's minimum rose above it",
            List.of(job("small", 2, 3, 3), WIDE),
            Map.of("small", SMALL_ON_T1, "wide", WIDE_ON_T2)),
        Arguments.of(
            "the same allocation object, but the job's workers grew past its server",
            List.of(SMALL, job("wide", 16, 1, 1)),
            Map.of("small", SMALL_ON_T1, "wide", WIDE_ON_T2)),
        Arguments.of(
            "the same allocation object, but the job may no longer use its GPU type",
            List.of(
                SMALL,
                Job.builder("wide").gpusPerWorker(4).workers(1, 3).allowedGpuTypes("T4").build()),
            Map.of("small", SMALL_ON_T1, "wide", WIDE_ON_T2)),
        Arguments.of(
            "the same allocation object, but its job is gone",
            List.of(SMALL),
            Map.of("small", SMALL_ON_T1, "wide", WIDE_ON_T2)),
        Arguments.of(
            "a new allocation on an inference server not on loan",
            List.of(SMALL, WIDE),
            Map.of("small", Allocation.of("i1", 1), "wide", WIDE_ON_T2)),
        Arguments.of(
            "a new allocation on an unknown server",
            List.of(SMALL, WIDE),
            Map.of("small", Allocation.of("t9", 1), "wide", WIDE_ON_T2)));
  }

  @Test
  void shares_nothing_with_the_last_snapshot_when_the_servers_changed() {
    List<Server> returned = List.of(I1, L1.withLoaned(false), T1, T2);
    Map<String, Allocation> stillOnL1 = Map.of("small", Allocation.of("l1", 1));

    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                ClusterState.of(0, SERVERS, List.of(SMALL), stillOnL1)
                    .next(60, returned, List.of(SMALL), stillOnL1, Tenants.NONE))
        .withMessageContaining("server(l1), which does not serve training");
  }

  @Test
  void the_same_servers_with_other_free_gpus_are_found_by_id_and_sized_as_they_are_now() {
    List<Server> shrunk =
        List.of(I1, L1, Server.training("t1", A100, 2), Server.training("t2", A100, 2));
    Job a100Only =
        Job.builder("wide")
            .gpusPerWorker(4)
            .workers(1, 3)
            .allowedGpuTypes("A100")
            .remainingS(100)
            .build();

    ClusterState next =
        before()
            .next(
                60, shrunk, List.of(SMALL), Map.of("small", Allocation.of("t1", 1)), Tenants.NONE);

    assertThat(next.server("t1").gpus()).isEqualTo(2);
    assertThat(next.server("l1")).isSameAs(L1);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> before().next(60, shrunk, List.of(a100Only), Map.of(), Tenants.NONE))
        .withMessageContaining("the largest server it may use has 2 GPUs");
  }

  @Test
  void a_series_of_random_changes_gives_the_snapshots_of_gives() {
    Random random = new Random(7);
    List<Server> servers = new ArrayList<>();
    for (int s = 0; s < 12; s++) {
      servers.add(
          s < 8
              ? Server.training(String.format("t%02d", s), A100, 8)
              : Server.loaned(String.format("l%02d", s), T4, 4));
    }
    Map<String, Job> jobs = new TreeMap<>();
    Map<String, Allocation> running = new TreeMap<>();
    Map<String, Integer> used = new HashMap<>();
    ClusterState last = ClusterState.of(0, servers, List.of(), Map.of());
    for (int round = 1; round <= 400; round++) {
      // A few jobs end, one may grow (a new allocation object), two are submitted and start where
      // they fit, and every
      // job's remaining work changes (new job objects, as every round has them).
      for (String id : new ArrayList<>(running.keySet())) {
        if (random.nextInt(8) == 0) {
          Allocation a = running.remove(id);
          used.merge(
              a.serverAt(0), -a.totalWorkers() * jobs.remove(id).gpusPerWorker(), Integer::sum);
        }
      }
      for (Map.Entry<String, Allocation> e : running.entrySet()) {
        Job j = jobs.get(e.getKey());
        String server = e.getValue().serverAt(0);
        if (random.nextInt(20) == 0
            && e.getValue().totalWorkers() < j.maxWorkers()
            && fits(last.server(server), used, j.gpusPerWorker())) {
          e.setValue(Allocation.of(server, e.getValue().totalWorkers() + 1));
          used.merge(server, j.gpusPerWorker(), Integer::sum);
        }
      }
      for (int k = 0; k < 2; k++) {
        Job j = job("j" + round + "-" + k, 1 << random.nextInt(3), 1, 2);
        jobs.put(j.id(), j);
        Server s = servers.get(random.nextInt(servers.size()));
        if (fits(s, used, j.gpusPerWorker())) {
          running.put(j.id(), Allocation.of(s.id(), 1));
          used.merge(s.id(), j.gpusPerWorker(), Integer::sum);
        }
      }
      jobs.replaceAll((id, j) -> j.toBuilder().remainingS(random.nextInt(1000)).build());
      List<Job> jobList = new ArrayList<>(jobs.values());

      ClusterState full = ClusterState.of(round * 60.0, servers, jobList, running);
      ClusterState next = last.next(round * 60.0, servers, jobList, running, Tenants.NONE);

      assertThat(next.allocations()).isEqualTo(full.allocations());
      assertThat(next.jobs()).isEqualTo(full.jobs());
      assertThat(next.servers()).isEqualTo(full.servers());
      for (Server s : servers) {
        assertThat(next.usedGpus(s.id()))
            .as("round %d, server %s", round, s.id())
            .isEqualTo(full.usedGpus(s.id()));
      }
      last = next;
    }
  }

  private static boolean fits(Server s, Map<String, Integer> used, int gpus) {
    return used.getOrDefault(s.id(), 0) + gpus <= s.gpus();
  }
}
