package io.aryl.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("SyntheticClusters")
class SyntheticClustersTest {

  @Test
  void the_same_seed_gives_an_identical_state() {
    ClusterState a = SyntheticClusters.generate(1000, 200, 7);
    ClusterState b = SyntheticClusters.generate(1000, 200, 7);
    assertThat(b.servers()).isEqualTo(a.servers());
    assertThat(b.jobs()).isEqualTo(a.jobs());
    assertThat(b.allocations()).isEqualTo(a.allocations());
    assertThat(b.nowS()).isEqualTo(a.nowS());
  }

  @Test
  void another_seed_gives_another_state() {
    ClusterState a = SyntheticClusters.generate(1000, 200, 7);
    ClusterState b = SyntheticClusters.generate(1000, 200, 8);
    assertThat(b.jobs()).isNotEqualTo(a.jobs());
    assertThat(b.allocations()).isNotEqualTo(a.allocations());
  }

  @ParameterizedTest(name = "{0} GPUs, {1} jobs")
  @CsvSource({"1000, 200", "16000, 2000"})
  void makes_a_full_realistic_cluster(int gpus, int jobCount) {
    SyntheticClusters.Spec spec = SyntheticClusters.spec(gpus, jobCount);
    ClusterState state = SyntheticClusters.generate(spec); // ClusterState checks consistency itself

    assertThat(state.servers()).hasSize(gpus / 8);
    assertThat(state.servers().stream().mapToInt(Server::gpus).sum()).isEqualTo(gpus);
    assertThat(state.jobs()).hasSize(jobCount);

    long elastic = state.jobs().stream().filter(Job::isElastic).count();
    assertThat((double) elastic / jobCount)
        .isCloseTo(0.4, org.assertj.core.data.Offset.offset(0.05));

    int running = state.allocations().size();
    assertThat(running)
        .as("running jobs")
        .isPositive()
        .isLessThanOrEqualTo((int) Math.round(jobCount * 0.6));
    assertThat(jobCount - running).as("queued jobs").isPositive();

    long loaned = state.servers().stream().filter(Server::loaned).count();
    int servers = gpus / 8;
    assertThat(loaned).isEqualTo(Math.round(servers * 0.25));
    long loanedInUse =
        state.servers().stream().filter(s -> s.loaned() && state.usedGpus(s.id()) > 0).count();
    assertThat(loanedInUse).as("loaned servers in use").isPositive();
    assertThat(state.servers()).anyMatch(s -> !s.servesTraining());
    assertThat(
            state.servers().stream()
                .filter(s -> !s.servesTraining())
                .mapToInt(s -> state.usedGpus(s.id()))
                .sum())
        .as("GPUs used on servers that do not serve training")
        .isZero();

    // Over-subscribed: the queue's base gangs alone need more than the GPUs nobody uses.
    int idle =
        state.servers().stream()
            .filter(Server::servesTraining)
            .mapToInt(s -> state.freeGpus(s.id()))
            .sum();
    int queuedBase =
        state.jobs().stream().filter(j -> !state.isRunning(j.id())).mapToInt(Job::baseGpus).sum();
    assertThat(queuedBase).as("queued base GPUs vs %d idle GPUs", idle).isGreaterThan(idle);

    // Some jobs are restricted to A100, and none of them runs on anything else (ClusterState checks
    // it too).
    assertThat(state.jobs()).anyMatch(j -> j.allowedGpuTypes().equals(java.util.Set.of("A100")));
    state
        .allocations()
        .forEach(
            (id, a) -> {
              Job j = state.job(id);
              assertThat(a.totalWorkers()).isBetween(j.minWorkers(), j.maxWorkers());
              a.workersByServer()
                  .keySet()
                  .forEach(s -> assertThat(j.allows(state.server(s).gpuType())).isTrue());
            });
  }

  @Test
  void spec_withers_change_one_field_and_bad_specs_are_refused() {
    SyntheticClusters.Spec spec =
        SyntheticClusters.Spec.defaults().withElasticFraction(0.0).withSeed(3);
    assertThat(spec.elasticFraction()).isZero();
    assertThat(spec.seed()).isEqualTo(3);
    assertThat(spec.totalGpus()).isEqualTo(1000);
    assertThat(SyntheticClusters.generate(spec).jobs()).noneMatch(Job::isElastic);

    assertThatIllegalArgumentException()
        .isThrownBy(() -> spec.withTotalGpus(1001))
        .withMessageContaining("1001");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> spec.withLoanedFraction(1.5))
        .withMessageContaining("1.5");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> spec.withLoanedFraction(0.99))
        .withMessageContaining("no training server");
  }
}
