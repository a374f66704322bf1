package io.aryl.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.elastic.ElasticValue;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import io.aryl.core.model.Tenants;
import io.aryl.core.placement.BaseSplit;
import io.aryl.core.placement.ServerTable;
import io.aryl.core.tenant.TenantQuota;
import io.aryl.core.testing.SmallStates;
import io.aryl.core.testing.TenantStates;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * What must hold for every plan of a training pool shared by tenants, on random valid snapshots.
 */
class TenantPropertiesTest {
  private static final List<PolicyConfig> CONFIGS =
      List.of(
          PolicyConfig.defaults(),
          PolicyConfig.defaults()
              .withSpeedAware(true)
              .withElasticValue(ElasticValue.SHORTEST_REMAINING_FIRST));

  // --- one tenant is today
  // -----------------------------------------------------------------------------------------

  @Property(tries = 500)
  void oneTenantGivesExactlyTodaysPlans(@ForAll long seed) {
    ClusterState today = SmallStates.random(seed);
    int own = ownGpus(today);
    int some = new SplittableRandom(seed).nextInt(own + 1);
    for (PolicyConfig config : CONFIGS) {
      RoundPlanner planner = new RoundPlanner(config);
      Plan expected = planner.plan(today);
      assertThat(
              planner.plan(TenantStates.allOf(today, "vision", Tenants.of(Map.of("vision", own)))))
          .as("one tenant guaranteed the whole pool")
          .isEqualTo(expected);
      assertThat(
              planner.plan(TenantStates.allOf(today, "vision", Tenants.of(Map.of("vision", some)))))
          .as("one tenant guaranteed %s of %s GPUs", some, own)
          .isEqualTo(expected);
      assertThat(planner.plan(TenantStates.allOf(today, "vision", Tenants.NONE)))
          .as("one tenant, none declared")
          .isEqualTo(expected);
    }
  }

  @Property(tries = 500)
  void tenantsWithoutGuaranteesChangeNothing(@ForAll long seed) {
    ClusterState tenants = TenantStates.random(seed);
    ClusterState unguaranteed =
        ClusterState.of(tenants.nowS(), tenants.servers(), tenants.jobs(), tenants.allocations());
    ClusterState today = TenantStates.withoutTenants(tenants);
    for (PolicyConfig config : CONFIGS) {
      RoundPlanner planner = new RoundPlanner(config);
      assertThat(planner.plan(unguaranteed)).isEqualTo(planner.plan(today));
    }
  }

  // --- guarantees are served
  // ---------------------------------------------------------------------------------------

  /**
   * After a round, a tenant below min(guarantee, base demand) has no queued job within its
   * guarantee that the GPUs left could have served: GPUs not held by base workers (idle or
   * flexible) on open servers, plus those given to jobs of tenants beyond their guarantee in this
   * round. Only 1-GPU workers of one GPU type, so whether a gang fits depends on the number of such
   * GPUs alone, and no queued job is starving (no server is reserved).
   */
  @Property(tries = 1000)
  void aTenantBelowItsGuaranteeIsServedWhenTheClusterCould(@ForAll long seed) {
    ClusterState state = TenantStates.unitGpus(seed);
    for (PolicyConfig config : CONFIGS) {
      Plan plan = new RoundPlanner(config).plan(state);
      Map<String, TenantQuota> after = TenantQuota.of(state, plan.targets());
      int left = gpusLeft(state, plan.targets());
      Map<String, Integer> ownBaseBefore = ownBaseGpus(state, state.allocations());
      for (TenantQuota q : after.values()) {
        if (q.usage() >= q.protectedGpus() || preemptedAny(state, plan, q.tenant())) {
          continue;
        }
        // An upper bound on the tenant's base GPUs at any point of the round: its running bases,
        // and every gang it
        // started counted as own.
        int bound =
            ownBaseBefore.getOrDefault(q.tenant(), 0) + startedBase(state, plan, q.tenant());
        int takenBeyond = startedBeyondGuarantee(state, plan, q.tenant(), ownBaseBefore);
        for (Job j : state.jobs()) {
          if (!j.tenant().equals(q.tenant())
              || plan.targets().containsKey(j.id())
              || bound + j.baseGpus() > q.guarantee()) {
            continue;
          }
          assertThat(j.minWorkers())
              .as(
                  "%s of %s (usage %s < min(guarantee %s, demand %s)) waits with %s GPUs left and %s given to jobs"
                      + " beyond their guarantee",
                  j.id(), q.tenant(), q.usage(), q.guarantee(), q.baseDemand(), left, takenBeyond)
              .isGreaterThan(left + takenBeyond);
        }
      }
    }
  }

  // --- borrowed GPUs come back, owned ones never
  // -------------------------------------------------------------------

  @Property(tries = 1000)
  void onlyBorrowedGpusAreTakenBack(@ForAll long seed) {
    ClusterState state = TenantStates.random(seed);
    for (PolicyConfig config : CONFIGS) {
      Plan plan = new RoundPlanner(config).plan(state);
      Map<String, Integer> baseAfter = new HashMap<>();
      plan.targets()
          .forEach(
              (id, a) ->
                  baseAfter.merge(state.job(id).tenant(), state.job(id).baseGpus(), Integer::sum));
      for (String id : plan.preempted()) {
        String tenant = state.job(id).tenant();
        assertThat(baseAfter.getOrDefault(tenant, 0))
            .as("%s of %s preempted: its tenant keeps its guarantee", id, tenant)
            .isGreaterThanOrEqualTo(state.tenants().guarantee(tenant));
        assertThat(plan.started())
            .as("preempted %s for somebody of another tenant", id)
            .anyMatch(s -> !state.job(s).tenant().equals(tenant));
      }
    }
  }

  @Property(tries = 500)
  void nothingIsPreemptedForAJobQueuedForLessThanTheDelay(@ForAll long seed) {
    ClusterState state = TenantStates.random(seed);
    RoundPlanner patient = new RoundPlanner(PolicyConfig.defaults().withTenantReclaimDelayS(1e9));
    assertThat(patient.plan(state).preempted()).isEmpty();
  }

  /**
   * With one queued job (so the budget it meets is the snapshot's): running jobs are preempted only
   * if its gang does not fit on the GPUs not held by base workers (every flexible worker shed),
   * only other tenants' jobs, and each of them is needed: without any one the gang would not fit.
   */
  @Property(tries = 1000)
  void noBaseWorkerIsPreemptedWhileAFlexibleOneCouldGo(@ForAll long seed) {
    ClusterState state = TenantStates.oneQueued(TenantStates.random(seed), seed);
    Job queued =
        state.jobs().stream().filter(j -> !state.isRunning(j.id())).findFirst().orElse(null);
    if (queued == null) {
      return;
    }
    ServerTable table = new ServerTable(state.servers());
    int[] spare = spareGpus(state, table);
    for (PolicyConfig config : CONFIGS) {
      Plan plan = new RoundPlanner(config).plan(state);
      if (plan.preempted().isEmpty()) {
        continue;
      }
      assertThat(fits(queued, table, spare))
          .as("%s fits with flexible workers shed", queued)
          .isFalse();
      assertThat(plan.started()).containsExactly(queued.id());
      for (String victim : plan.preempted()) {
        assertThat(state.job(victim).tenant()).isNotEqualTo(queued.tenant());
        int[] withoutIt = spare.clone();
        for (String other : plan.preempted()) {
          if (!other.equals(victim)) {
            freeBase(state, table, other, withoutIt);
          }
        }
        assertThat(fits(queued, table, withoutIt))
            .as("%s fits without preempting %s", queued, victim)
            .isFalse();
      }
    }
  }

  // --- helpers
  // -----------------------------------------------------------------------------------------------------

  private static int ownGpus(ClusterState s) {
    return s.servers().stream().filter(x -> x.pool() == Pool.TRAINING).mapToInt(Server::gpus).sum();
  }

  /** The round's base split: own open servers first, then loaned open ones, then fenced ones. */
  private static Map<Integer, Integer> base(Job job, Allocation a, ServerTable table) {
    Map<Integer, Integer> base = new TreeMap<>();
    BaseSplit.Parts parts = BaseSplit.split(job, a, table, BaseSplit.ownOpenFirst(table));
    for (int i = 0; i < parts.servers().length; i++) {
      if (parts.base()[i] > 0) {
        base.put(parts.servers()[i], parts.base()[i]);
      }
    }
    return base;
  }

  private static int[] spareGpus(ClusterState state, ServerTable table) {
    int[] spare = new int[table.size()];
    for (int s = 0; s < spare.length; s++) {
      spare[s] = table.gpus(s);
    }
    state
        .allocations()
        .forEach(
            (id, a) -> {
              Job j = state.job(id);
              base(j, a, table).forEach((s, w) -> spare[s] -= w * j.gpusPerWorker());
            });
    return spare;
  }

  private static void freeBase(ClusterState state, ServerTable table, String jobId, int[] spare) {
    Job j = state.job(jobId);
    base(j, state.allocation(jobId), table).forEach((s, w) -> spare[s] += w * j.gpusPerWorker());
  }

  private static boolean fits(Job job, ServerTable table, int[] spare) {
    boolean[] types = table.allowedTypes(job);
    int workers = 0;
    for (int s = 0; s < spare.length; s++) {
      if (table.open(s) && types[table.typeIndex(s)]) {
        workers += spare[s] / job.gpusPerWorker();
      }
    }
    return workers >= job.minWorkers();
  }

  /** GPUs on open servers not held by base workers after the plan. */
  private static int gpusLeft(ClusterState state, Map<String, Allocation> targets) {
    ServerTable table = new ServerTable(state.servers());
    int[] spare = new int[table.size()];
    for (int s = 0; s < spare.length; s++) {
      spare[s] = table.gpus(s);
    }
    targets.forEach(
        (id, a) -> {
          Job j = state.job(id);
          base(j, a, table).forEach((s, w) -> spare[s] -= w * j.gpusPerWorker());
        });
    int left = 0;
    for (int s = 0; s < spare.length; s++) {
      if (table.open(s)) {
        left += spare[s];
      }
    }
    return left;
  }

  private static Map<String, Integer> ownBaseGpus(
      ClusterState state, Map<String, Allocation> allocations) {
    ServerTable table = new ServerTable(state.servers());
    Map<String, Integer> out = new HashMap<>();
    allocations.forEach(
        (id, a) -> {
          Job j = state.job(id);
          base(j, a, table)
              .forEach(
                  (s, w) -> {
                    if (table.server(s).pool() == Pool.TRAINING) {
                      out.merge(j.tenant(), w * j.gpusPerWorker(), Integer::sum);
                    }
                  });
        });
    return out;
  }

  private static int startedBase(ClusterState state, Plan plan, String tenant) {
    return plan.started().stream()
        .map(state::job)
        .filter(j -> j.tenant().equals(tenant))
        .mapToInt(Job::baseGpus)
        .sum();
  }

  private static boolean preemptedAny(ClusterState state, Plan plan, String tenant) {
    return plan.preempted().stream().anyMatch(id -> state.job(id).tenant().equals(tenant));
  }

  /**
   * Base GPUs of jobs started in the plan that were surely beyond their tenant's guarantee when
   * offered: tenants other than {@code owner} that lost no job this round, whose running bases
   * alone plus the gang exceed it.
   */
  private static int startedBeyondGuarantee(
      ClusterState state, Plan plan, String owner, Map<String, Integer> ownBaseBefore) {
    int sum = 0;
    List<String> started = new ArrayList<>(plan.started());
    for (String id : started) {
      Job j = state.job(id);
      if (j.tenant().equals(owner) || preemptedAny(state, plan, j.tenant())) {
        continue;
      }
      if (ownBaseBefore.getOrDefault(j.tenant(), 0) + j.baseGpus()
          > state.tenants().guarantee(j.tenant())) {
        sum += j.baseGpus();
      }
    }
    return sum;
  }
}
