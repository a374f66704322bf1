package io.aryl.sim.engine;

import io.aryl.core.model.Tenants;
import io.aryl.sim.trace.TraceJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Teams sharing one training pool: several tenants (Philly's virtual clusters) merged into one
 * pool, each guaranteed its share of the merged demand, under three regimes run on the same jobs
 * with the same policy and assumptions:
 *
 * <ul>
 *   <li><b>(a) fixed quotas</b>: each tenant alone on a pool of exactly its guarantee, no borrowing
 *       (separate pools; with an inference curve, each also gets the share of the inference fleet
 *       its guarantee gives it, lending against the same curve);
 *   <li><b>(b) shared, with tenants</b>: one pool, the round knowing each job's tenant and each
 *       tenant's guarantee (borrowing idle quota, reclaiming it for owners);
 *   <li><b>(c) shared, ignoring tenants</b>: the same pool and jobs, the round seeing one team.
 * </ul>
 *
 * <p>Guarantees are each tenant's share of the GPU-seconds submitted in the measured window, in
 * whole GPUs summing to the pool (largest remainder; ties to the tenant with more demand, then by
 * name).
 */
public final class TenantExperiment {
  private TenantExperiment() {}

  /**
   * One tenant of the experiment.
   *
   * @param name the tenant (a Philly virtual cluster id)
   * @param jobs jobs it submitted in the measured window
   * @param demandGpuS GPU-seconds it submitted in the window
   * @param guaranteeGpus its guarantee: GPUs of the shared pool, and the size of its own pool under
   *     (a)
   * @param inferenceServers its share of the inference fleet under (a)
   */
  public record Tenant(
      String name, int jobs, double demandGpuS, int guaranteeGpus, int inferenceServers) {}

  /**
   * One tenant's results: average JCT of its finished jobs under each regime, and its unfinished
   * jobs.
   *
   * @param tenant the tenant
   * @param quotaJctS average JCT under (a), fixed quotas
   * @param sharedJctS under (b), shared with tenants
   * @param ignoringJctS under (c), shared ignoring tenants
   */
  public record Row(
      Tenant tenant,
      double quotaJctS,
      double sharedJctS,
      double ignoringJctS,
      int quotaUnfinished,
      int sharedUnfinished,
      int ignoringUnfinished) {
    /** (b) / (a): below 1, sharing with tenants pays for this tenant. */
    public double sharedVsQuota() {
      return sharedJctS / quotaJctS;
    }

    /** (c) / (a). */
    public double ignoringVsQuota() {
      return ignoringJctS / quotaJctS;
    }
  }

  /**
   * What the experiment gives.
   *
   * @param scenario the merged scenario (pool sized for the tenants' demand)
   * @param policy the policy every regime runs
   * @param rows one per tenant, largest guarantee first
   * @param quota (a)'s run of each tenant, by tenant
   * @param shared (b)'s run
   * @param ignoring (c)'s run
   */
  public record Result(
      Scenario scenario,
      PolicySpec policy,
      List<Row> rows,
      Map<String, PolicyResult> quota,
      PolicyResult shared,
      PolicyResult ignoring) {

    /** Max over min across tenants of {@code metric}. */
    public double spread(java.util.function.ToDoubleFunction<Row> metric) {
      double max = Double.NEGATIVE_INFINITY;
      double min = Double.POSITIVE_INFINITY;
      for (Row r : rows) {
        double v = metric.applyAsDouble(r);
        max = Math.max(max, v);
        min = Math.min(min, v);
      }
      return max / min;
    }

    /** True if no tenant's average JCT under (b) is above its average under (a). */
    public boolean sharingPaysForEveryTenant() {
      return rows.stream().allMatch(r -> r.sharedJctS() <= r.quotaJctS());
    }
  }

  /** GPU-seconds each tenant submitted in {@code [startS, endS)}, by tenant. */
  public static Map<String, Double> demandGpuS(List<TraceJob> jobs, double startS, double endS) {
    Map<String, Double> demand = new TreeMap<>();
    for (TraceJob j : jobs) {
      if (j.submitS() >= startS && j.submitS() < endS) {
        demand.merge(j.tenant(), j.gpuSeconds(), Double::sum);
      }
    }
    return demand;
  }

  /**
   * The {@code n} tenants that submitted the most GPU-seconds in the window, most first (ties by
   * name).
   */
  public static List<String> busiest(List<TraceJob> jobs, double startS, double endS, int n) {
    if (n < 1) {
      throw new IllegalArgumentException("tenant count must be >= 1, was " + n);
    }
    return demandGpuS(jobs, startS, endS).entrySet().stream()
        .sorted(
            Map.Entry.<String, Double>comparingByValue()
                .reversed()
                .thenComparing(Map.Entry.comparingByKey()))
        .limit(n)
        .map(Map.Entry::getKey)
        .toList();
  }

  /**
   * Splits {@code total} whole units in proportion to {@code weights} (largest remainder: floors
   * first, the units left to the largest fractional parts, ties to the larger weight, then by
   * name); sums to {@code total}.
   */
  public static Map<String, Integer> proportional(Map<String, Double> weights, int total) {
    double sum = weights.values().stream().mapToDouble(Double::doubleValue).sum();
    if (weights.isEmpty() || !(sum > 0)) {
      throw new IllegalArgumentException(
          "weights must be positive to split " + total + ", were " + weights);
    }
    Map<String, Integer> out = new TreeMap<>();
    Map<String, Double> rest = new HashMap<>();
    int given = 0;
    for (Map.Entry<String, Double> e : weights.entrySet()) {
      double exact = total * e.getValue() / sum;
      int floor = (int) Math.floor(exact);
      out.put(e.getKey(), floor);
      rest.put(e.getKey(), exact - floor);
      given += floor;
    }
    List<String> byRest = new ArrayList<>(weights.keySet());
    byRest.sort(
        Comparator.comparingDouble((String t) -> -rest.get(t))
            .thenComparingDouble(t -> -weights.get(t))
            .thenComparing(Comparator.naturalOrder()));
    for (int i = 0; i < total - given; i++) {
      out.merge(byRest.get(i % byRest.size()), 1, Integer::sum);
    }
    return out;
  }

  /**
   * The tenants of a merged scenario, largest guarantee first: jobs, demand and guarantee in its
   * window.
   */
  public static List<Tenant> tenants(Scenario merged) {
    Map<String, Double> demand =
        demandGpuS(merged.jobs(), merged.windowStartS(), merged.windowEndS());
    Map<String, Integer> guarantee = proportional(demand, merged.cfg().trainingGpus());
    Map<String, Integer> inference = proportional(demand, merged.cfg().inferenceServers());
    Map<String, Integer> jobs = new HashMap<>();
    for (TraceJob j : merged.jobs()) {
      if (j.submitS() >= merged.windowStartS() && j.submitS() < merged.windowEndS()) {
        jobs.merge(j.tenant(), 1, Integer::sum);
      }
    }
    List<Tenant> out = new ArrayList<>();
    for (String t : demand.keySet()) {
      out.add(
          new Tenant(
              t, jobs.getOrDefault(t, 0), demand.get(t), guarantee.get(t), inference.get(t)));
    }
    out.sort(Comparator.comparingInt(Tenant::guaranteeGpus).reversed().thenComparing(Tenant::name));
    return out;
  }

  /**
   * Runs (a), (b) and (c), {@code threads} simulations at a time (results do not depend on it).
   *
   * @throws IllegalArgumentException if a job of the run could never fit its tenant's own pool
   *     under (a), naming the job, its tenant and the guarantee
   */
  public static Result run(Scenario merged, PolicySpec policy, int threads)
      throws InterruptedException {
    List<Tenant> tenants = tenants(merged);
    Map<String, Integer> guarantees = new TreeMap<>();
    tenants.forEach(t -> guarantees.put(t.name(), t.guaranteeGpus()));
    Map<String, Scenario> alone = new LinkedHashMap<>();
    for (Tenant t : tenants) {
      Scenario own = quotaScenario(merged, t);
      checkFits(own, policy, t);
      alone.put(t.name(), own);
    }

    Map<String, Callable<PolicyResult>> runs = new LinkedHashMap<>();
    runs.put("shared", () -> merged.run(policy, null, Tenants.of(guarantees)));
    runs.put("ignoring", () -> merged.run(policy, null));
    alone.forEach((t, s) -> runs.put("quota:" + t, () -> s.run(policy, null)));
    Map<String, PolicyResult> done = runAll(runs, threads);

    Map<String, String> tenantOf = new HashMap<>();
    merged.jobs().forEach(j -> tenantOf.put(j.id(), j.tenant()));
    PolicyResult shared = done.get("shared");
    PolicyResult ignoring = done.get("ignoring");
    Map<String, PolicyResult> quota = new LinkedHashMap<>();
    List<Row> rows = new ArrayList<>();
    for (Tenant t : tenants) {
      PolicyResult a = done.get("quota:" + t.name());
      quota.put(t.name(), a);
      rows.add(
          new Row(
              t,
              avgJct(a, tenantOf, t.name()),
              avgJct(shared, tenantOf, t.name()),
              avgJct(ignoring, tenantOf, t.name()),
              t.jobs() - finished(a, tenantOf, t.name()),
              t.jobs() - finished(shared, tenantOf, t.name()),
              t.jobs() - finished(ignoring, tenantOf, t.name())));
    }
    return new Result(merged, policy, List.copyOf(rows), quota, shared, ignoring);
  }

  /** Tenant {@code t} alone on a pool of its guarantee, with its share of the inference fleet. */
  static Scenario quotaScenario(Scenario merged, Tenant t) {
    if (t.guaranteeGpus() <= 0) {
      throw new IllegalArgumentException(
          "tenant "
              + t.name()
              + " is guaranteed 0 of the "
              + merged.cfg().trainingGpus()
              + " GPUs: under fixed quotas it could run nothing; choose other tenants");
    }
    List<TraceJob> own = merged.jobs().stream().filter(j -> j.tenant().equals(t.name())).toList();
    SimConfig cfg =
        merged.cfg().withTrainingGpus(t.guaranteeGpus()).withInferenceServers(t.inferenceServers());
    return new Scenario(
        merged.traceName() + " tenant " + t.name(),
        own,
        merged.curve(),
        cfg,
        merged.windowStartS(),
        merged.windowEndS(),
        merged.warmupS(),
        merged.curveOffsetS(),
        merged.elasticFraction(),
        merged.predictionError(),
        merged.seed());
  }

  /** Refuses a run where some job's base gang could never fit its tenant's own pool. */
  private static void checkFits(Scenario own, PolicySpec policy, Tenant t) {
    SimConfig cfg = own.cfg();
    for (TraceJob j : own.jobs()) {
      if (j.submitS() < own.windowStartS() - own.warmupS() || j.submitS() >= own.windowEndS()) {
        continue;
      }
      boolean elastic =
          policy.elastic() && JobShape.isElastic(j.id(), own.elasticFraction(), own.seed());
      JobShape shape =
          elastic
              ? JobShape.elastic(j.gpus(), cfg.gpusPerServer())
              : JobShape.inelastic(j.gpus(), cfg.gpusPerServer());
      int workers = 0;
      for (int s = 0; s < cfg.trainingServers(); s++) {
        workers += cfg.trainingServerGpus(s) / shape.gpusPerWorker();
      }
      if (workers < shape.minWorkers()) {
        throw new IllegalArgumentException(
            "job "
                + j.id()
                + " of tenant "
                + t.name()
                + " needs "
                + shape.minWorkers() * shape.gpusPerWorker()
                + " GPUs ("
                + shape.minWorkers()
                + " x "
                + shape.gpusPerWorker()
                + ") but its guarantee of "
                + t.guaranteeGpus()
                + " GPUs could never hold them under fixed quotas; choose other tenants or a larger --sizing");
      }
    }
  }

  private static double avgJct(PolicyResult r, Map<String, String> tenantOf, String tenant) {
    return r.jobs().stream()
        .filter(j -> tenant.equals(tenantOf.get(j.id())))
        .mapToDouble(JobRecord::jctS)
        .average()
        .orElse(Double.NaN);
  }

  private static int finished(PolicyResult r, Map<String, String> tenantOf, String tenant) {
    return (int) r.jobs().stream().filter(j -> tenant.equals(tenantOf.get(j.id()))).count();
  }

  private static Map<String, PolicyResult> runAll(
      Map<String, Callable<PolicyResult>> runs, int threads) throws InterruptedException {
    ExecutorService pool =
        Executors.newFixedThreadPool(Math.max(1, Math.min(threads, runs.size())));
    try {
      Map<String, Future<PolicyResult>> futures = new LinkedHashMap<>();
      runs.forEach((name, task) -> futures.put(name, pool.submit(task)));
      Map<String, PolicyResult> out = new LinkedHashMap<>();
      for (Map.Entry<String, Future<PolicyResult>> e : futures.entrySet()) {
        try {
          out.put(e.getKey(), e.getValue().get());
        } catch (ExecutionException ex) {
          if (ex.getCause() instanceof RuntimeException re) {
            throw re;
          }
          throw new IllegalStateException(ex.getCause());
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
