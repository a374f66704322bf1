package io.aryl.core.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.admission.Admission.Release;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import io.aryl.core.model.Tenants;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.placement.ServerTable;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.tenant.TenantLedger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("Admission with tenants: a starving job's reservation and other tenants' guarantees")
class AdmissionTenantsTest {
  static final GpuType A100 = GpuType.of("A100");
  static final double NOW = 10_000;
  static final double WAIT = 3_600;

  final Admission spf = new Admission(JobOrder.SHORTEST_PREDICTED_FIRST, WAIT);

  static Job job(String id, String tenant, int gpus, double runtimeS, double submitS) {
    return Job.builder(id)
        .tenant(tenant)
        .gpusPerWorker(gpus)
        .workers(1, 1)
        .remainingS(runtimeS)
        .submitTimeS(submitS)
        .build();
  }

  /**
   * Two 8-GPU servers: s1 full until 10,000 s from now, s2 with 4 GPUs spare and the rest free in
   * 100 s. nlp's starving 8-GPU job reserves s2; a 4-GPU job that runs 7,200 s would not end before
   * s2 drains.
   */
  @ParameterizedTest(name = "a job of {0}, with tenants {1}: admitted {2}")
  @CsvSource({
    "vision, true,  true", // within vision's guarantee: nlp's reservation does not hold it back
    "nlp,    true,  false", // the reserving tenant's own job waits behind it, as without tenants
    "vision, false, false", // without tenants the reservation holds every job back
  })
  void aReservationNeverHoldsBackAnotherTenantsJobWithinItsGuarantee(
      String tenant, boolean tenants, boolean admitted) {
    List<Server> servers = List.of(Server.training("s1", A100, 8), Server.training("s2", A100, 8));
    ServerTable table = new ServerTable(servers);
    GpuBudget budget = new GpuBudget(table, new int[] {0, 4}, new int[2]);
    List<Release> releases = List.of(new Release(10_000, 0, 8), new Release(100, 1, 4));
    Job big = job("big", "nlp", 8, 3600, 0);
    Job small = job("small", tenant, 4, 7200, NOW - 100);
    TenantLedger ledger =
        tenants
            ? new TenantLedger(
                Tenants.of(Map.of("vision", 8, "nlp", 8)), table, 60, ReclaimCostModel.defaults())
            : null;
    Admission.Result r = spf.admit(List.of(big, small), NOW, budget, () -> releases, ledger);
    assertThat(r.reservedFor()).containsExactly("big");
    assertThat(r.admitted().keySet().stream().map(Job::id).toList())
        .isEqualTo(admitted ? List.of("small") : List.of());
    assertThat(r.preemptedFor()).isEmpty();
  }
}
