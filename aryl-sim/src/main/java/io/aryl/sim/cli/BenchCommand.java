package io.aryl.sim.cli;

import io.aryl.core.ArylPolicy;
import io.aryl.sim.engine.Metrics;
import io.aryl.sim.engine.PolicyResult;
import io.aryl.sim.engine.PolicySpec;
import io.aryl.sim.engine.Scenario;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code aryl-sim bench}: the simulator's own speed benchmark. Runs one policy on one thread,
 * twice, and prints the wall time of each run with the CPU time of the thread that ran it (steadier
 * than wall time on a shared machine, and without the compiler's and collector's threads) and the
 * memory it allocated, the peak heap, and whether every run gave the results of the first.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Times one policy on one thread, twice (--runs), and checks that every run gives the results of the first.",
      "The speed target: the whole ITP trace (--trace itp:DIR, 69k jobs, 60 days) in <= 5 s with a heap <= 2 GB."
    })
final class BenchCommand implements Callable<Integer> {
  @Mixin ScenarioOptions scenario;

  @Option(
      names = "--policy",
      defaultValue = ArylPolicy.Name.ARYL,
      paramLabel = "P",
      description = "The policy timed. Default: ${DEFAULT-VALUE}.")
  String policy;

  @Option(
      names = "--runs",
      defaultValue = "2",
      paramLabel = "N",
      description = "Runs, each compared with the first (at least 2). Default: ${DEFAULT-VALUE}.")
  int runs;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PolicySpec p = InputSpecs.policies("--policy", List.of(policy)).get(0);
    if (runs < 2) {
      throw new IllegalArgumentException("--runs must be at least 2, was " + runs);
    }
    long loadStart = System.nanoTime();
    Scenario s = scenario.toScenario();
    out.printf(
        "loaded %s: %d jobs in %.1f s; %d training + %d inference servers x %d GPUs%n",
        s.traceName(),
        s.jobs().size(),
        (System.nanoTime() - loadStart) / 1e9,
        s.cfg().trainingServers(),
        s.cfg().inferenceServers(),
        s.cfg().gpusPerServer());
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    // HotSpot's extension counts the bytes a thread allocates: steady from run to run, unlike its
    // times.
    com.sun.management.ThreadMXBean allocations =
        threads instanceof com.sun.management.ThreadMXBean hotspot
                && hotspot.isThreadAllocatedMemorySupported()
            ? hotspot
            : null;
    PolicyResult first = null;
    boolean identical = true;
    double fastest = Double.POSITIVE_INFINITY;
    for (int run = 1; run <= runs; run++) {
      long cpu = threads.getCurrentThreadCpuTime();
      long bytes = allocations == null ? 0 : allocations.getCurrentThreadAllocatedBytes();
      PolicyResult r = s.run(p, null);
      double cpuS = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
      out.printf("run %d: %.1f s (%.1f s on its thread's CPU", run, r.simWallS(), cpuS);
      if (allocations != null) {
        out.printf(
            ", %.0f MB allocated", (allocations.getCurrentThreadAllocatedBytes() - bytes) / 1e6);
      }
      out.print(")");
      if (first == null) {
        first = r;
        out.printf(", %d jobs finished, %d unfinished", r.jobs().size(), r.unfinishedJobs());
      } else {
        identical &=
            comparable(first).equals(comparable(r))
                && first.jobs().equals(r.jobs())
                && first.samples().equals(r.samples());
        fastest = Math.min(fastest, r.simWallS());
      }
      out.println();
      out.flush();
    }
    if (runs > 2) {
      out.printf("fastest after the first: %.1f s%n", fastest);
    }
    out.printf(
        "peak heap used: %.0f MB (max heap %.0f MB)%n",
        peakHeapBytes() / 1e6, Runtime.getRuntime().maxMemory() / 1e6);
    out.printf("identical results: %s%n", identical ? "yes" : "NO");
    out.flush();
    return identical ? 0 : 1;
  }

  private static Map<String, Object> comparable(PolicyResult r) {
    Map<String, Object> m = Metrics.of(r);
    m.remove("sim_wall_s");
    return m;
  }

  private static long peakHeapBytes() {
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    return peak;
  }
}
