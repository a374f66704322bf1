package io.aryl.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import io.aryl.core.model.Tenants;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("TenantQuota: usage, guarantee, borrowed and lendable GPUs")
class TenantQuotaTest {
  static final GpuType A100 = GpuType.of("A100");

  @ParameterizedTest(name = "own usage {0}, guarantee {1}: borrowed {2}, lendable {3}")
  @CsvSource({
    "0,  8, 0, 8",
    "5,  8, 0, 3",
    "8,  8, 0, 0",
    "12, 8, 4, 0",
    "3,  0, 3, 0",
  })
  void borrowedAndLendable(int ownUsage, int guarantee, int borrowed, int lendable) {
    assertThat(TenantQuota.borrowed(ownUsage, guarantee)).isEqualTo(borrowed);
    assertThat(TenantQuota.lendable(ownUsage, guarantee)).isEqualTo(lendable);
    TenantQuota q = new TenantQuota("t", guarantee, ownUsage, 0, 0, 0);
    assertThat(q.borrowed()).isEqualTo(borrowed);
    assertThat(q.lendable()).isEqualTo(lendable);
  }

  @Test
  void fromASnapshotLoanedServersAreOutsideTheGuaranteeAndQueuedJobsAreDemand() {
    List<Server> servers =
        List.of(
            Server.training("t1", A100, 8),
            Server.training("t2", A100, 8),
            Server.loaned("l1", A100, 8));
    ClusterState s =
        ClusterState.of(
            0,
            servers,
            List.of(
                Job.builder("n1")
                    .tenant("nlp")
                    .gpusPerWorker(2)
                    .workers(2, 6)
                    .remainingS(10)
                    .build(),
                Job.builder("n2")
                    .tenant("nlp")
                    .gpusPerWorker(4)
                    .workers(1, 1)
                    .remainingS(10)
                    .build(),
                Job.builder("v1")
                    .tenant("vision")
                    .gpusPerWorker(8)
                    .workers(1, 1)
                    .remainingS(10)
                    .build()),
            Map.of(
                "n1",
                Allocation.of(Map.of("t1", 4, "t2", 1, "l1", 1)),
                "n2",
                Allocation.of("t2", 1)),
            Tenants.of(Map.of("nlp", 4, "vision", 12)));
    Map<String, TenantQuota> q = TenantQuota.of(s);
    assertThat(q).containsOnlyKeys("nlp", "vision");
    assertThat(q.get("nlp")).isEqualTo(new TenantQuota("nlp", 4, 14, 2, 8, 0));
    assertThat(q.get("nlp").usage()).isEqualTo(16);
    assertThat(q.get("nlp").borrowed()).isEqualTo(10);
    assertThat(q.get("nlp").protectedGpus()).isEqualTo(4);
    assertThat(q.get("vision")).isEqualTo(new TenantQuota("vision", 12, 0, 0, 8, 1));
    assertThat(q.get("vision").lendable()).isEqualTo(12);
    assertThat(q.get("vision").protectedGpus()).isEqualTo(8);
    // The same jobs under other allocations, e.g. a plan's targets.
    Map<String, TenantQuota> after =
        TenantQuota.of(s, Map.of("n1", Allocation.of("t1", 2), "v1", Allocation.of("t2", 1)));
    assertThat(after.get("nlp")).isEqualTo(new TenantQuota("nlp", 4, 4, 0, 8, 1));
    assertThat(after.get("vision").ownUsage()).isEqualTo(8);
  }

  @Test
  void tenantsChangeTheRoundOnlyWhenThereAreTwoOrMore() {
    List<Server> servers = List.of(Server.training("t1", A100, 8));
    Job a = Job.builder("a").tenant("vision").remainingS(10).build();
    Job b = Job.builder("b").tenant("nlp").remainingS(10).build();
    Job plain = Job.builder("c").remainingS(10).build();
    assertThat(TenantQuota.active(ClusterState.of(0, servers, List.of(plain), Map.of()))).isFalse();
    assertThat(TenantQuota.active(ClusterState.of(0, servers, List.of(a), Map.of()))).isFalse();
    assertThat(
            TenantQuota.active(
                ClusterState.of(0, servers, List.of(a), Map.of(), Tenants.of(Map.of("vision", 8)))))
        .isFalse();
    assertThat(TenantQuota.active(ClusterState.of(0, servers, List.of(a, b), Map.of()))).isTrue();
    assertThat(
            TenantQuota.active(
                ClusterState.of(
                    0, servers, List.of(a), Map.of(), Tenants.of(Map.of("vision", 4, "nlp", 4)))))
        .isTrue();
    assertThat(
            TenantQuota.active(
                ClusterState.of(
                    0, servers, List.of(plain), Map.of(), Tenants.of(Map.of("vision", 4)))))
        .as("the implicit tenant and vision")
        .isTrue();
  }
}
