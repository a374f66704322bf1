package io.aryl.sim.cli;

import io.aryl.core.ArylPolicy;
import io.aryl.sim.engine.PolicySpec;
import io.aryl.sim.engine.Scenario;
import io.aryl.sim.engine.SimConfig;
import io.aryl.sim.engine.TenantExperiment;
import io.aryl.sim.report.TenantTable;
import io.aryl.sim.trace.TraceJob;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code aryl-sim tenants}: teams (Philly virtual clusters) sharing one training pool, against
 * fixed quotas.
 */
@Command(
    name = "tenants",
    mixinStandardHelpOptions = true,
    description = {
      "Merges several teams of a trace (Philly's virtual clusters; --trace philly:FILE without :cluster=) into one "
          + "training pool, sized by --sizing for their demand, each guaranteed its share of the GPU-seconds they "
          + "submit in the window (whole GPUs, summing to the pool). Runs the policy three ways on the same jobs: "
          + "(a) fixed quotas, each team alone on a pool of its guarantee (and its share of the inference fleet); "
          + "(b) one shared pool, the round knowing teams and guarantees; (c) the shared pool, teams ignored. "
          + "Prints each team's average JCT under a, b, c, the ratios b/a and c/a and their spread across teams "
          + "(max/min); writes tenants.json and tenants.csv to --out.",
      ""
    })
final class TenantsCommand implements Callable<Integer> {
  @Mixin ScenarioOptions scenario;

  @Option(
      names = "--clusters",
      split = ",",
      paramLabel = "ID,...",
      description =
          "The teams to merge (Philly virtual cluster ids). Default: the --busiest in the window.")
  List<String> clusters;

  @Option(
      names = "--busiest",
      defaultValue = "4",
      paramLabel = "N",
      description =
          "Without --clusters: merge the N teams that submit the most GPU-seconds in the window. "
              + "Default: ${DEFAULT-VALUE}.")
  int busiest;

  @Option(
      names = "--policy",
      defaultValue = ArylPolicy.Name.ARYL,
      paramLabel = "P",
      description =
          "The policy of every regime; (b) differs from (c) only for policies that run aryl-core's round "
              + "(not the peers: optimus, tiresias, afs, goodput). Default: ${DEFAULT-VALUE}.")
  String policy;

  @Option(
      names = "--tenant-reclaim-delay",
      defaultValue = "" + SimConfig.TENANT_RECLAIM_DELAY_S,
      paramLabel = "S",
      description =
          "Seconds an owner's job waits before borrowers' base workers are preempted for it (flexible "
              + "workers give way at once). Default: ${DEFAULT-VALUE}.")
  double reclaimDelayS;

  @Option(
      names = "--out",
      defaultValue = "target/aryl-sim-tenants",
      paramLabel = "DIR",
      description = "Where tenants.json and tenants.csv go. Default: ${DEFAULT-VALUE}.")
  Path out;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "Simulations at once. Default: cores.")
  Integer threads;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    PolicySpec p = InputSpecs.policies("--policy", List.of(policy)).get(0);
    if (!(reclaimDelayS >= 0) || Double.isInfinite(reclaimDelayS)) {
      throw new IllegalArgumentException(
          "--tenant-reclaim-delay must be a finite number >= 0, was " + reclaimDelayS);
    }
    List<String> chosen = new ArrayList<>();
    Scenario s = scenario.toScenario((jobs, start, end) -> select(jobs, start, end, chosen));
    s =
        new Scenario(
            s.traceName() + " teams " + String.join("+", chosen),
            s.jobs(),
            s.curve(),
            s.cfg().withTenantReclaimDelayS(reclaimDelayS),
            s.windowStartS(),
            s.windowEndS(),
            s.warmupS(),
            s.curveOffsetS(),
            s.elasticFraction(),
            s.predictionError(),
            s.seed());
    int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    TenantExperiment.Result r = TenantExperiment.run(s, p, n);
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("tenants", chosen);
    extra.put(
        "guarantee_rule",
        "each tenant's share of the GPU-seconds submitted in the window, whole GPUs summing "
            + "to the pool (largest remainder)");
    extra.put(
        "quota_regime",
        "each tenant alone on a pool of its guarantee and its share of the inference fleet");
    TenantTable.write(out, r, extra);
    stdout.printf(
        "%s: %d teams, %d training + %d inference servers x %d GPUs (training pool = %.2fx the mean demand "
            + "of %.0f GPUs), %s, %.0f%% elastic, prediction error %.0f%%, reclaim delay %.0f s%n%n",
        s.traceName(),
        chosen.size(),
        s.cfg().trainingServers(),
        s.cfg().inferenceServers(),
        s.cfg().gpusPerServer(),
        s.cfg().trainingGpus() / Math.max(1e-9, s.meanDemandGpus()),
        s.meanDemandGpus(),
        p.name(),
        100 * s.elasticFraction(),
        100 * s.predictionError(),
        reclaimDelayS);
    stdout.print(TenantTable.format(r));
    stdout.printf(
        "%nsharing pays for every team (b <= a): %s%n",
        r.sharingPaysForEveryTenant() ? "yes" : "NO");
    stdout.printf("wrote %s%n", out.resolve("tenants.json"));
    stdout.flush();
    return 0;
  }

  /**
   * Keeps the chosen teams' jobs (named, or the busiest in the window); records the teams in {@code
   * chosen}.
   */
  private List<TraceJob> select(
      List<TraceJob> jobs, double start, double end, List<String> chosen) {
    Set<String> present = new TreeSet<>();
    jobs.forEach(j -> present.add(j.tenant()));
    if (present.equals(Set.of(""))) {
      throw new IllegalArgumentException(
          "--trace '"
              + scenario.trace
              + "' names no teams: use a trace whose jobs "
              + "have one (philly:FILE, without :cluster=)");
    }
    if (clusters != null && !clusters.isEmpty()) {
      Set<String> named = new LinkedHashSet<>();
      for (String c : clusters) {
        String id = c.trim();
        if (!present.contains(id)) {
          throw new IllegalArgumentException(
              "--clusters names '"
                  + id
                  + "', not a team of the trace; teams: "
                  + String.join(", ", present));
        }
        named.add(id);
      }
      if (named.size() < 2) {
        throw new IllegalArgumentException(
            "--clusters must name at least 2 distinct teams, was " + clusters);
      }
      chosen.addAll(named);
    } else {
      if (busiest < 2) {
        throw new IllegalArgumentException("--busiest must be >= 2, was " + busiest);
      }
      chosen.addAll(TenantExperiment.busiest(jobs, start, end, busiest));
      if (chosen.size() < 2) {
        throw new IllegalArgumentException(
            "--busiest "
                + busiest
                + ": only "
                + chosen.size()
                + " team(s) submit jobs in the window");
      }
    }
    Set<String> keep = new LinkedHashSet<>(chosen);
    List<TraceJob> kept = jobs.stream().filter(j -> keep.contains(j.tenant())).toList();
    for (String t : keep) {
      if (kept.stream()
          .noneMatch(j -> j.tenant().equals(t) && j.submitS() >= start && j.submitS() < end)) {
        throw new IllegalArgumentException("team '" + t + "' submits no job in the window");
      }
    }
    return kept;
  }
}
