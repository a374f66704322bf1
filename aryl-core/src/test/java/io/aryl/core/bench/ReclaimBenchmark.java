package io.aryl.core.bench;

import io.aryl.core.model.ClusterState;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.reclaim.ReclaimPlan;
import io.aryl.core.reclaim.ReclaimPlanner;
import io.aryl.core.reclaim.ReclaimRequest;
import io.aryl.core.testing.SyntheticClusters;
import io.aryl.core.victim.Fate;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A reclaim plan, {@code new ReclaimPlanner(ReclaimCostModel.defaults()).plan(state,
 * ReclaimRequest.any(n))}, at 16,000 GPUs / 2,000 jobs with 25 % of the 2,000 servers loaned (500
 * candidates). Target: 50 ms for 100 servers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ReclaimBenchmark {
  @Param({"16000"})
  public int gpus;

  @Param({"2000"})
  public int jobs;

  @Param({"100"})
  public int servers;

  private ClusterState state;
  private ReclaimRequest request;

  @Setup(Level.Trial)
  public void setUp() {
    state = SyntheticClusters.generate(SyntheticClusters.spec(gpus, jobs).withLoanedFraction(0.25));
    request = ReclaimRequest.any(servers);
    ReclaimPlan plan = new ReclaimPlanner(ReclaimCostModel.defaults()).plan(state, request);
    if (!plan.isFeasible()) {
      throw new IllegalStateException(
          "benchmark state cannot reclaim " + servers + " servers: " + plan);
    }
    System.out.println(
        System.lineSeparator()
            + "# "
            + state
            + "; reclaiming "
            + servers
            + " servers costs "
            + Math.round(plan.costGpuS())
            + " GPU-s: "
            + plan.jobsWith(Fate.SHRINK).size()
            + " shrunk, "
            + plan.jobsWith(Fate.PREEMPT).size()
            + " preempted");
  }

  @Benchmark
  public ReclaimPlan reclaim() {
    return new ReclaimPlanner(ReclaimCostModel.defaults()).plan(state, request);
  }
}
