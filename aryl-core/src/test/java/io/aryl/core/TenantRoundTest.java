package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import io.aryl.core.model.Tenants;
import io.aryl.core.tenant.TenantQuota;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One round with teams sharing the training pool, scenario by scenario. Two tenants, vision and
 * nlp, on 8-GPU A100 servers; "delay passed" means the owner's job was submitted more than {@link
 * PolicyConfig#tenantReclaimDelayS()} (60 s) before the round.
 */
@DisplayName("tenants: one round, scenario by scenario")
class TenantRoundTest {
  static final GpuType A100 = GpuType.of("A100");
  static final double NOW = 10_000;
  static final double LONG_AGO = NOW - 600; // past the 60 s reclaim delay
  static final double JUST_NOW = NOW - 30; // within it

  final RoundPlanner aryl = new RoundPlanner(PolicyConfig.defaults());

  static Job.Builder job(
      String id, String tenant, int gpusPerWorker, int min, int max, double runtimeS) {
    return Job.builder(id)
        .tenant(tenant)
        .gpusPerWorker(gpusPerWorker)
        .workers(min, max)
        .remainingS(runtimeS)
        .submitTimeS(LONG_AGO);
  }

  static List<Server> own(int servers) {
    return java.util.stream.IntStream.rangeClosed(1, servers)
        .mapToObj(i -> Server.training("t" + i, A100, 8))
        .toList();
  }

  static Tenants guarantees(int vision, int nlp) {
    return Tenants.of(Map.of("vision", vision, "nlp", nlp));
  }

  static ClusterState state(
      List<Server> servers, List<Job> jobs, Map<String, Allocation> running, Tenants t) {
    return ClusterState.of(NOW, servers, jobs, running, t);
  }

  // --- reclaim
  // ---------------------------------------------------------------------------------------------------

  /**
   * nlp borrows a whole server of vision's quota with one of its two 8-GPU jobs; vision queues an
   * 8-GPU job.
   */
  static ClusterState borrowedServer(double ownerSubmitS) {
    return state(
        own(2),
        List.of(
            job("n-old", "nlp", 8, 1, 1, 36_000).sinceCheckpointS(1200).build(),
            job("n-new", "nlp", 8, 1, 1, 36_000).sinceCheckpointS(60).build(),
            job("v", "vision", 8, 1, 1, 3600).submitTimeS(ownerSubmitS).build()),
        Map.of("n-old", Allocation.of("t1", 1), "n-new", Allocation.of("t2", 1)),
        guarantees(8, 8));
  }

  @Test
  @DisplayName(
      "reclaim quota from borrower: the owner's job starts, the borrower's cheapest job is preempted")
  void reclaimQuotaFromBorrower() {
    ClusterState s = borrowedServer(LONG_AGO);
    assertThat(TenantQuota.of(s).get("nlp").borrowed()).isEqualTo(8);
    assertThat(TenantQuota.of(s).get("vision").lendable()).isEqualTo(8);
    Plan plan = aryl.plan(s);
    // n-new loses 8 x (60 + 120) GPU-s, n-old 8 x (1200 + 120): the cheaper goes.
    assertThat(plan.preempted()).containsExactly("n-new");
    assertThat(plan.target("v").workersByServer()).containsExactly(Map.entry("t2", 1));
    assertThat(plan.target("n-old")).isEqualTo(s.allocation("n-old"));
    Map<String, TenantQuota> after = TenantQuota.of(s, plan.targets());
    assertThat(after.get("nlp").ownUsage()).as("nlp keeps its guarantee").isEqualTo(8);
    assertThat(after.get("vision").ownUsage()).isEqualTo(8);
  }

  @Test
  @DisplayName("within the reclaim delay the owner waits and nothing is preempted")
  void noReclaimBeforeTheDelay() {
    Plan plan = aryl.plan(borrowedServer(JUST_NOW));
    assertThat(plan.changes()).isEmpty();
    Plan later =
        new RoundPlanner(PolicyConfig.defaults().withTenantReclaimDelayS(10))
            .plan(borrowedServer(JUST_NOW));
    assertThat(later.preempted()).containsExactly("n-new");
  }

  @Test
  @DisplayName(
      "flexible workers are shed first, without waiting for the delay, and nothing is preempted")
  void shrinkBeforePreempt() {
    // nlp's elastic job runs 16 workers (base 4) over both servers: 12 flexible workers on borrowed
    // GPUs.
    ClusterState s =
        state(
            own(2),
            List.of(
                job("n-elastic", "nlp", 1, 4, 16, 36_000).build(),
                job("v", "vision", 8, 1, 1, 3600).submitTimeS(JUST_NOW).build()),
            Map.of("n-elastic", Allocation.of(Map.of("t1", 8, "t2", 8))),
            guarantees(8, 8));
    Plan plan = aryl.plan(s);
    assertThat(plan.preempted()).isEmpty();
    assertThat(plan.changes())
        .containsEntry("n-elastic", Plan.Change.SHRINK)
        .containsEntry("v", Plan.Change.START);
    assertThat(plan.target("n-elastic").totalWorkers()).isEqualTo(8);
  }

  static Stream<Arguments> borrowerGuarantees() {
    // vision runs 4 GPUs on t2 and queues an 8-GPU job (within its guarantee of 12); nlp's 8-GPU
    // job on t1
    // borrows 8 - g(nlp): preempting it would leave nlp at 0.
    return Stream.of(Arguments.of(0, List.of("n")), Arguments.of(4, List.of()));
  }

  @ParameterizedTest(name = "nlp guaranteed {0} GPUs: preempted {1}")
  @MethodSource("borrowerGuarantees")
  @DisplayName("a borrower is never taken below its guarantee")
  void neverBelowTheGuarantee(int nlpGuarantee, List<String> preempted) {
    ClusterState s =
        state(
            own(2),
            List.of(
                job("n", "nlp", 8, 1, 1, 36_000).build(),
                job("w", "vision", 4, 1, 1, 36_000).build(),
                job("v", "vision", 8, 1, 1, 3600).build()),
            Map.of("n", Allocation.of("t1", 1), "w", Allocation.of("t2", 1)),
            guarantees(12, nlpGuarantee));
    Plan plan = aryl.plan(s);
    assertThat(plan.preempted()).containsExactlyElementsOf(preempted);
    assertThat(plan.started()).isEqualTo(preempted.isEmpty() ? List.of() : List.of("v"));
  }

  @Test
  @DisplayName(
      "a borrower's jobs on loaned servers are not borrowed: only its jobs on own servers come back")
  void loanedServersAreShared() {
    ClusterState s =
        state(
            List.of(Server.training("t1", A100, 8), Server.loaned("l1", A100, 8)),
            List.of(
                job("n-own", "nlp", 8, 1, 1, 36_000).sinceCheckpointS(1200).build(),
                job("n-loaned", "nlp", 8, 1, 1, 36_000).sinceCheckpointS(0).build(),
                job("v", "vision", 8, 1, 1, 3600).build()),
            Map.of("n-own", Allocation.of("t1", 1), "n-loaned", Allocation.of("l1", 1)),
            guarantees(8, 0));
    TenantQuota nlp = TenantQuota.of(s).get("nlp");
    assertThat(nlp.ownUsage()).isEqualTo(8);
    assertThat(nlp.loanedUsage()).isEqualTo(8);
    assertThat(nlp.borrowed()).isEqualTo(8);
    Plan plan = aryl.plan(s);
    assertThat(plan.preempted())
        .as("n-loaned is cheaper but holds no borrowed GPU")
        .containsExactly("n-own");
    assertThat(plan.target("v").workersByServer()).containsExactly(Map.entry("t1", 1));
  }

  @Test
  @DisplayName("victims the owner's gang turns out not to need are spared")
  void unneededVictimsAreSpared() {
    // vision's gang is 2 x 4 GPUs. t1: vision's own 4-GPU job and nlp's cheap 4-GPU job; t2: nlp's
    // dearer 8-GPU
    // job. Preempting the cheap one frees room for one worker only; the dear one alone frees room
    // for both.
    ClusterState s =
        state(
            own(2),
            List.of(
                job("w", "vision", 4, 1, 1, 36_000).build(),
                job("n-cheap", "nlp", 4, 1, 1, 36_000).sinceCheckpointS(0).build(),
                job("n-dear", "nlp", 8, 1, 1, 36_000).sinceCheckpointS(300).build(),
                job("v", "vision", 4, 2, 2, 3600).build()),
            Map.of(
                "w",
                Allocation.of("t1", 1),
                "n-cheap",
                Allocation.of("t1", 1),
                "n-dear",
                Allocation.of("t2", 1)),
            guarantees(12, 0));
    Plan plan = aryl.plan(s);
    assertThat(plan.preempted()).containsExactly("n-dear");
    assertThat(plan.target("v").workersByServer()).containsExactly(Map.entry("t2", 2));
  }

  @Test
  @DisplayName(
      "when no single victim suffices, those taken on the way that the gang does not need are spared")
  void accumulatedVictimsArePruned() {
    // vision's 8-GPU worker needs t1 emptied of nlp's two 4-GPU jobs; nlp's cheapest job is a 2-GPU
    // one on t2, next
    // to vision's own 6-GPU job: taken first on the way (t2 could hold the worker), then spared.
    ClusterState s =
        state(
            own(2),
            List.of(
                job("n-a", "nlp", 4, 1, 1, 36_000).sinceCheckpointS(100).build(),
                job("n-b", "nlp", 4, 1, 1, 36_000).sinceCheckpointS(200).build(),
                job("n-c", "nlp", 2, 1, 1, 36_000).sinceCheckpointS(0).build(),
                job("w", "vision", 6, 1, 1, 36_000).build(),
                job("v", "vision", 8, 1, 1, 3600).build()),
            Map.of(
                "n-a",
                Allocation.of("t1", 1),
                "n-b",
                Allocation.of("t1", 1),
                "n-c",
                Allocation.of("t2", 1),
                "w",
                Allocation.of("t2", 1)),
            guarantees(16, 0));
    Plan plan = aryl.plan(s);
    assertThat(plan.preempted()).containsExactlyInAnyOrder("n-a", "n-b");
    assertThat(plan.target("v").workersByServer()).containsExactly(Map.entry("t1", 1));
  }

  @Test
  @DisplayName("a cheap victim that frees too little on its server is spared")
  void victimsThatFreeTooLittleAreSpared() {
    // An 8-GPU worker needs a whole server: the cheap 2-GPU job's server still holds 6 GPUs of
    // another job.
    ClusterState s =
        state(
            own(2),
            List.of(
                job("n-small", "nlp", 2, 1, 1, 36_000).sinceCheckpointS(0).build(),
                job("n-six", "nlp", 6, 1, 1, 36_000).sinceCheckpointS(1500).build(),
                job("n-eight", "nlp", 8, 1, 1, 36_000).sinceCheckpointS(600).build(),
                job("v", "vision", 8, 1, 1, 3600).build()),
            Map.of(
                "n-small",
                Allocation.of("t1", 1),
                "n-six",
                Allocation.of("t1", 1),
                "n-eight",
                Allocation.of("t2", 1)),
            guarantees(16, 0));
    assertThat(aryl.plan(s).preempted()).containsExactly("n-eight");
  }

  @Test
  @DisplayName("several cheap victims win over one dear one when together they cost less")
  void severalCheapVictimsBeatOneDearOne() {
    // Two 4-GPU jobs on t1 lose 4 x (0 + 120) each; the 8-GPU job on t2 loses 8 x (1800 + 120).
    ClusterState s =
        state(
            own(2),
            List.of(
                job("n-a", "nlp", 4, 1, 1, 36_000).build(),
                job("n-b", "nlp", 4, 1, 1, 36_000).build(),
                job("n-dear", "nlp", 8, 1, 1, 36_000).sinceCheckpointS(1800).build(),
                job("v", "vision", 8, 1, 1, 3600).build()),
            Map.of(
                "n-a",
                Allocation.of("t1", 1),
                "n-b",
                Allocation.of("t1", 1),
                "n-dear",
                Allocation.of("t2", 1)),
            guarantees(16, 0));
    assertThat(aryl.plan(s).preempted()).containsExactlyInAnyOrder("n-a", "n-b");
  }

  static Stream<Arguments> ownerGuarantees() {
    // vision's elastic job runs 6 workers on t1 (2 base, 4 flexible); nlp runs 2 GPUs, at its
    // guarantee of 2, and
    // queues 2 more: beyond its guarantee. vision guaranteed 6: all 4 flexible GPUs are within it;
    // guaranteed 4: 2.
    return Stream.of(Arguments.of(6, false, 6), Arguments.of(4, true, 4));
  }

  @ParameterizedTest(
      name = "vision guaranteed {0}: nlp's gang starts {1}, vision keeps {2} workers")
  @MethodSource("ownerGuarantees")
  @DisplayName(
      "a gang beyond its tenant's guarantee never displaces extra workers an owner holds within its own")
  void borrowersDoNotDisplaceOwnersExtras(int visionGuarantee, boolean starts, int visionWorkers) {
    ClusterState s =
        state(
            own(1),
            List.of(
                job("v-elastic", "vision", 1, 2, 8, 36_000).build(),
                job("n-run", "nlp", 2, 1, 1, 36_000).build(),
                job("n-queued", "nlp", 2, 1, 1, 600).build()),
            Map.of("v-elastic", Allocation.of("t1", 6), "n-run", Allocation.of("t1", 1)),
            Tenants.of(Map.of("vision", visionGuarantee, "nlp", 2)));
    Plan plan = aryl.plan(s);
    assertThat(plan.started().contains("n-queued")).isEqualTo(starts);
    assertThat(plan.target("v-elastic").totalWorkers()).isEqualTo(visionWorkers);
    assertThat(plan.preempted()).isEmpty();
    ClusterState noTenants = ClusterState.of(NOW, s.servers(), s.jobs(), s.allocations());
    assertThat(aryl.plan(noTenants).started())
        .as("without tenants base beats any flexible worker")
        .containsExactly("n-queued");
  }

  // --- order
  // -----------------------------------------------------------------------------------------------------

  @Test
  @DisplayName("a job of a tenant below its guarantee goes before a shorter one of a tenant at it")
  void belowGuaranteeFirst() {
    ClusterState s =
        state(
            own(1),
            List.of(
                job("n-running", "nlp", 4, 1, 1, 36_000).build(),
                job("n-short", "nlp", 4, 1, 1, 100).build(),
                job("v-long", "vision", 4, 1, 1, 10_000).build()),
            Map.of("n-running", Allocation.of("t1", 1)),
            guarantees(4, 4));
    assertThat(aryl.plan(s).started()).containsExactly("v-long");
    ClusterState noTenants = ClusterState.of(NOW, s.servers(), s.jobs(), s.allocations());
    assertThat(aryl.plan(noTenants).started())
        .as("shortest first, as without tenants")
        .containsExactly("n-short");
  }

  @Test
  @DisplayName("phase 2 lends idle quota: spare GPUs go to any tenant's elastic jobs")
  void phaseTwoBorrowsIdleQuota() {
    ClusterState s =
        state(
            own(2),
            List.of(job("n-elastic", "nlp", 1, 2, 16, 36_000).build()),
            Map.of(),
            guarantees(12, 4));
    Plan plan = aryl.plan(s);
    assertThat(plan.target("n-elastic").totalWorkers()).isEqualTo(16);
    assertThat(TenantQuota.of(s, plan.targets()).get("nlp").borrowed()).isEqualTo(12);
  }

  @Test
  @DisplayName(
      "an owner's elastic jobs grow into its idle quota before another tenant's, however more they gain")
  void ownersGrowIntoTheirIdleQuotaFirst() {
    // Linear speed-up: by predicted JCT reduction the long job would take every spare GPU.
    List<Job> jobs =
        List.of(
            job("v-short", "vision", 1, 1, 8, 1_000).build(),
            job("n-long", "nlp", 1, 1, 8, 100_000).build());
    Plan shared = aryl.plan(state(own(1), jobs, Map.of(), guarantees(4, 4)));
    assertThat(shared.target("v-short").totalWorkers()).isEqualTo(4);
    assertThat(shared.target("n-long").totalWorkers()).isEqualTo(4);
    Plan oneTeam = aryl.plan(ClusterState.of(NOW, own(1), jobs, Map.of()));
    assertThat(oneTeam.target("n-long").totalWorkers()).isEqualTo(7);
    // What an owner leaves idle others borrow: with vision guaranteed only 2, nlp grows into the
    // rest.
    Plan lent = aryl.plan(state(own(1), jobs, Map.of(), guarantees(2, 6)));
    assertThat(lent.target("v-short").totalWorkers()).isEqualTo(2);
    assertThat(lent.target("n-long").totalWorkers()).isEqualTo(6);
  }

  @Test
  @DisplayName("a tenant nobody declared is guaranteed nothing: it only borrows, and gives back")
  void undeclaredTenantOnlyBorrows() {
    ClusterState s =
        state(
            own(1),
            List.of(
                job("x", "intern", 8, 1, 1, 36_000).build(),
                job("v", "vision", 8, 1, 1, 3600).build()),
            Map.of("x", Allocation.of("t1", 1)),
            Tenants.of(Map.of("vision", 8)));
    assertThat(TenantQuota.of(s).get("intern").guarantee()).isZero();
    assertThat(aryl.plan(s).preempted()).containsExactly("x");
  }
}
