package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import io.aryl.core.placement.ServerTable;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "BaseSplits: a running job's split into base and flexible workers, kept while its workers stay")
class BaseSplitsTest {
  private static final GpuType A100 = GpuType.of("A100");
  private static final List<Server> SERVERS =
      List.of(
          Server.loaned("l1", A100, 8),
          Server.training("t1", A100, 8),
          Server.training("t2", A100, 8));
  private static final ServerTable TABLE = new ServerTable(SERVERS);

  private static Job job(String id, int min, int max) {
    return Job.builder(id).workers(min, max).remainingS(100).build();
  }

  private static final Job A = job("a", 2, 4);
  private static final Job B = job("b", 1, 2);
  private static final Allocation A_WORKERS =
      Allocation.of(Map.of("l1", 2, "t2", 1)); // base: t2 first, then l1
  private static final Allocation B_WORKERS = Allocation.of("t1", 2);

  private static BaseSplits oneRound(
      BaseSplits last, ServerTable table, Map<Job, Allocation> running) {
    BaseSplits.Round round = last.round(table, running.size());
    running.entrySet().stream()
        .sorted(Map.Entry.comparingByKey((x, y) -> x.id().compareTo(y.id())))
        .forEach(e -> round.of(e.getKey(), e.getValue()));
    return round.next();
  }

  @Test
  void splits_base_workers_onto_own_servers_first() {
    BaseSplits.Split split = BaseSplits.NONE.round(TABLE, 1).of(A, A_WORKERS);

    assertThat(split.base().toMap()).containsExactly(entry(0, 1), entry(2, 1));
    assertThat(split.flexible().toMap()).containsExactly(entry(0, 1));
    assertThat(split.flexibleCount()).isEqualTo(1);
  }

  @Test
  void keeps_the_split_of_a_job_whose_allocation_is_the_very_object_it_was_split_from() {
    BaseSplits last = oneRound(BaseSplits.NONE, TABLE, Map.of(A, A_WORKERS, B, B_WORKERS));
    BaseSplits.Split a = last.round(TABLE, 1).of(A, A_WORKERS);

    BaseSplits.Round next = last.round(TABLE, 2);
    assertThat(next.of(A.toBuilder().remainingS(50).build(), A_WORKERS)).isSameAs(a);
  }

  @Test
  void finds_a_kept_split_past_jobs_that_no_longer_run() {
    Job c = job("c", 1, 1);
    Allocation cWorkers = Allocation.of("t2", 1);
    BaseSplits last =
        oneRound(BaseSplits.NONE, TABLE, Map.of(A, A_WORKERS, B, B_WORKERS, c, cWorkers));
    BaseSplits.Split kept = last.round(TABLE, 1).of(c, cWorkers);

    assertThat(last.round(TABLE, 1).of(c, cWorkers)).isSameAs(kept);
  }

  @Test
  void
      splits_again_when_the_allocation_is_another_object_the_minimum_changed_or_the_servers_changed() {
    BaseSplits last = oneRound(BaseSplits.NONE, TABLE, Map.of(A, A_WORKERS));
    BaseSplits.Split a = last.round(TABLE, 1).of(A, A_WORKERS);

    BaseSplits.Split equalAllocation =
        last.round(TABLE, 1).of(A, Allocation.of(Map.of("l1", 2, "t2", 1)));
    assertThat(equalAllocation)
        .isNotSameAs(a)
        .isEqualTo(
            new BaseSplits.Split(
                equalAllocation.of(), a.minWorkers(), a.base(), a.flexible(), a.flexibleCount()));

    BaseSplits.Split wider = last.round(TABLE, 1).of(job("a", 3, 4), A_WORKERS);
    assertThat(wider.base().toMap()).containsExactly(entry(0, 2), entry(2, 1));
    assertThat(wider.flexibleCount()).isZero();

    ServerTable fenced =
        new ServerTable(List.of(SERVERS.get(0).withFenced(true), SERVERS.get(1), SERVERS.get(2)));
    assertThat(last.round(fenced, 1).of(A, A_WORKERS)).isNotSameAs(a);
  }

  @Test
  void keeps_the_split_of_a_job_on_servers_unchanged_when_another_server_was_fenced_or_returned() {
    BaseSplits last = oneRound(BaseSplits.NONE, TABLE, Map.of(A, A_WORKERS, B, B_WORKERS));
    BaseSplits.Split b = last.round(TABLE, 1).of(B, B_WORKERS);
    ServerTable l1Fenced =
        new ServerTable(List.of(SERVERS.get(0).withFenced(true), SERVERS.get(1), SERVERS.get(2)));

    BaseSplits.Round next = last.round(l1Fenced, 2);
    assertThat(next.of(A, A_WORKERS))
        .as("a: on the fenced l1")
        .isNotSameAs(last.round(TABLE, 1).of(A, A_WORKERS));
    assertThat(next.of(B, B_WORKERS)).as("b: on t1 only").isSameAs(b);

    ServerTable otherServers = new ServerTable(List.of(SERVERS.get(1), SERVERS.get(2)));
    assertThat(last.round(otherServers, 1).of(B, B_WORKERS))
        .as("t1 has another index now")
        .isNotSameAs(b);
  }
}
