package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.sim.trace.TraceJob;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("TenantExperiment: teams merged into one pool against fixed quotas")
class TenantExperimentTest {
  static TraceJob job(String id, String tenant, double submitS, double durationS, int gpus) {
    return new TraceJob(id, submitS, durationS, gpus, "", tenant);
  }

  @ParameterizedTest(name = "{0} split {1} ways -> {2}")
  @CsvSource(
      delimiter = ';',
      value = {
        "10;   a=1,b=1,c=1;     a=4,b=3,c=3", // 3.33 each: the one left over to the first by name
        "16;   a=3,b=1;         a=12,b=4",
        "7;    a=5,b=3,c=2;     a=4,b=2,c=1", // 3.5, 2.1, 1.4: floors 3,2,1 and the one left to a
        // (.5)
        "0;    a=1,b=2;         a=0,b=0",
      })
  void proportionalSplitsWholeUnitsByLargestRemainder(int total, String weights, String expected) {
    Map<String, Double> w = new java.util.TreeMap<>();
    for (String kv : weights.split(",", -1)) {
      String[] nameWeight = kv.split("=", -1);
      w.put(nameWeight[0], Double.parseDouble(nameWeight[1]));
    }
    Map<String, Integer> e = new java.util.TreeMap<>();
    for (String kv : expected.split(",", -1)) {
      String[] nameUnits = kv.split("=", -1);
      e.put(nameUnits[0], Integer.parseInt(nameUnits[1]));
    }
    Map<String, Integer> got = TenantExperiment.proportional(w, total);
    assertThat(got).isEqualTo(e);
    assertThat(got.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(total);
  }

  @Test
  void theBusiestTeamsAreThoseSubmittingTheMostGpuSecondsInTheWindow() {
    List<TraceJob> jobs =
        List.of(
            job("1", "a", 10, 100, 1),
            job("2", "b", 10, 100, 8),
            job("3", "c", 10, 50, 8),
            job("4", "d", 5_000, 1e6, 8)); // d submits outside the window
    assertThat(TenantExperiment.busiest(jobs, 0, 1000, 2)).containsExactly("b", "c");
    assertThat(TenantExperiment.demandGpuS(jobs, 0, 1000)).containsOnlyKeys("a", "b", "c");
  }

  /** Two teams, 3:1 demand in the window; 2 training servers of 8 GPUs, 2 inference servers. */
  static Scenario merged(double elasticFraction) {
    List<TraceJob> jobs =
        List.of(
            job("a1", "a", 0, 3600, 8), job("a2", "a", 60, 3600, 4), job("b1", "b", 120, 3600, 4));
    return new Scenario(
        "hand-built", jobs, null, SimConfig.defaults(2, 2), 0, 1000, 0, 0, elasticFraction, 0, 1);
  }

  @Test
  void eachTeamIsGuaranteedItsShareOfTheDemandAndAloneGetsAPoolOfExactlyThat() {
    List<TenantExperiment.Tenant> tenants = TenantExperiment.tenants(merged(0));
    assertThat(tenants)
        .containsExactly(
            new TenantExperiment.Tenant(
                "a", 2, 12 * 3600.0, 12, 2), // 12 of 16 GPU-hours: 12 of 16 GPUs
            new TenantExperiment.Tenant("b", 1, 4 * 3600.0, 4, 0));
    Scenario alone = TenantExperiment.quotaScenario(merged(0), tenants.get(0));
    assertThat(alone.cfg().trainingGpus()).isEqualTo(12);
    assertThat(alone.cfg().trainingServers()).isEqualTo(2);
    assertThat(alone.cfg().trainingServerGpus(0)).isEqualTo(8);
    assertThat(alone.cfg().trainingServerGpus(1)).isEqualTo(4);
    assertThat(alone.cfg().inferenceServers()).isEqualTo(2);
    assertThat(alone.jobs()).extracting(TraceJob::id).containsExactly("a1", "a2");
  }

  @Test
  void aTeamWhoseJobCouldNeverFitItsQuotaIsRefusedNamingTheJob() {
    List<TraceJob> jobs = List.of(job("a1", "a", 0, 36_000, 4), job("b1", "b", 0, 3600, 8));
    Scenario s =
        new Scenario("hand-built", jobs, null, SimConfig.defaults(1, 0), 0, 1000, 0, 0, 0, 0, 1);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> TenantExperiment.run(s, PolicySpec.named("aryl"), 1))
        .withMessageContaining(
            "job b1 of tenant b needs 8 GPUs (1 x 8) but its guarantee of 1 GPUs could never hold"
                + " them under fixed quotas");
  }

  @Test
  void theThreeRegimesRunTheSameJobs() throws InterruptedException {
    TenantExperiment.Result r = TenantExperiment.run(merged(0.5), PolicySpec.named("aryl"), 2);
    assertThat(r.rows()).extracting(row -> row.tenant().name()).containsExactly("a", "b");
    assertThat(r.shared().jobs()).hasSize(3);
    assertThat(r.ignoring().jobs()).hasSize(3);
    assertThat(r.quota().get("a").jobs()).hasSize(2);
    assertThat(r.quota().get("b").jobs()).hasSize(1);
    // Nothing competes here: a's jobs fit its 12 GPUs, b's its 4, and the shared pool holds all of
    // them.
    for (TenantExperiment.Row row : r.rows()) {
      assertThat(row.quotaJctS()).isPositive();
      assertThat(row.sharedJctS()).isLessThanOrEqualTo(row.quotaJctS());
    }
  }
}
