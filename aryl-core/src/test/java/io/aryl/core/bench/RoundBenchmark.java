package io.aryl.core.bench;

import io.aryl.core.PolicyConfig;
import io.aryl.core.RoundPlanner;
import io.aryl.core.elastic.ElasticValue;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Plan;
import io.aryl.core.testing.SyntheticClusters;
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
 * One full scheduling round, {@code new RoundPlanner(config).plan(state)}: admission, elastic
 * allocation and placement, on a full, over-subscribed synthetic cluster (40 % elastic jobs, lent
 * servers at half speed), for the paper's policy ({@code aryl}) and with speed moves and
 * shortest-remaining-first ({@code aryl+}). Targets: 5 ms at 1,000 GPUs / 200 jobs, 100 ms at
 * 16,000 GPUs / 2,000 jobs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RoundBenchmark {
  /** {@code GPUSxJOBS}. */
  @Param({"1000x200", "16000x2000"})
  public String cluster;

  /** {@code aryl} (the paper) or {@code aryl+}. */
  @Param({"aryl", "aryl+"})
  public String policy;

  private ClusterState state;
  private PolicyConfig config;

  @Setup(Level.Trial)
  public void setUp() {
    String[] parts = cluster.split("x", -1);
    state =
        SyntheticClusters.generate(
            SyntheticClusters.spec(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]))
                .withElasticFraction(0.4));
    config =
        switch (policy) {
          case "aryl" -> PolicyConfig.defaults();
          case "aryl+" ->
              PolicyConfig.defaults()
                  .withSpeedAware(true)
                  .withElasticValue(ElasticValue.SHORTEST_REMAINING_FIRST);
          default ->
              throw new IllegalArgumentException(
                  "policy must be aryl or aryl+, was '" + policy + "'");
        };
    Plan plan = new RoundPlanner(config).plan(state);
    System.out.println(
        System.lineSeparator()
            + "# "
            + state
            + "; a round plans "
            + plan.targets().size()
            + " running, "
            + plan.started().size()
            + " started, "
            + plan.grown().size()
            + " grown, "
            + plan.shrunk().size()
            + " shrunk, "
            + plan.preempted().size()
            + " preempted");
  }

  @Benchmark
  public Plan round() {
    return new RoundPlanner(config).plan(state);
  }
}
