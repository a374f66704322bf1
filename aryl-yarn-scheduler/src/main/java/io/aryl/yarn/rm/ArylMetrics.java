package io.aryl.yarn.rm;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.metrics2.annotation.Metric;
import org.apache.hadoop.metrics2.annotation.Metrics;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.Interns;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableGaugeInt;
import org.apache.hadoop.metrics2.lib.MutableGaugeLong;
import org.apache.hadoop.metrics2.lib.MutableQuantiles;
import org.apache.hadoop.metrics2.lib.MutableRate;

/**
 * Operators' metrics, published through Hadoop metrics2: JMX bean {@code
 * Hadoop:service=ResourceManager,name=ArylScheduler}, the ResourceManager's {@code /jmx}, and its
 * {@code /prom} when {@code hadoop.prometheus.endpoint.enabled} is true.
 *
 * <p>The record is named like the source, so Hadoop's PrometheusMetricsSink names every metric
 * {@code aryl_scheduler_<metric in snake case>}. Where a mean hides the tail (a planning round, a
 * reclaim) there are also rolling-window percentiles ({@link MutableQuantiles}, as Hadoop's own RPC
 * and HDFS latencies): each window's 50th, 75th, 90th, 95th and 99th percentile and sample count,
 * shown until the next window ends.
 */
@Metrics(about = ArylMetrics.ABOUT, context = "yarn")
public class ArylMetrics {
  static final String SOURCE = "ArylScheduler";
  static final String ABOUT = "Aryl elastic GPU scheduler";

  /**
   * The registry the annotated fields join; its name is the record's, which the Prometheus names
   * start with.
   */
  final MetricsRegistry registry = new MetricsRegistry(Interns.info(SOURCE, ABOUT));

  @Metric("Inference nodes on loan to training")
  MutableGaugeInt loanedNodes;

  @Metric("GPUs of inference nodes on loan to training")
  MutableGaugeInt loanedGpus;

  @Metric("Reclaims in flight")
  MutableGaugeInt reclaimsInFlight;

  @Metric("Reclaims started")
  MutableCounterLong reclaimsStarted;

  @Metric("Reclaims finished")
  MutableCounterLong reclaimsFinished;

  @Metric("Reclaims finished after their deadline")
  MutableCounterLong reclaimsLate;

  @Metric("Worker containers shrunk (flexible workers taken back, job kept running)")
  MutableCounterLong containersShrunk;

  @Metric(
      "Worker containers moved (a job moved whole to other nodes: new workers first, then the old ones asked back)")
  MutableCounterLong containersMoved;

  @Metric("Containers preempted (job stopped, or a non-elastic container on a returned node)")
  MutableCounterLong containersPreempted;

  @Metric("GPU-seconds of training work lost to shrinks and preemptions")
  MutableCounterLong gpuSecondsLost;

  @Metric(
      "1 while a newly active scheduler waits for the cluster to come back before it acts, else 0")
  MutableGaugeInt recovering;

  @Metric("Milliseconds the last recovery waited for NodeManagers to re-register")
  MutableGaugeLong recoveryWaitMs;

  @Metric("Planning round latency")
  MutableRate planningRound;

  @Metric(
      "Planning rounds that failed with an error (logged); a failed round grants, drains and kills nothing")
  MutableCounterLong planningRoundsFailed;

  /**
   * Milliseconds of each planning round: PlanningRoundLatencyNumRounds and
   * PlanningRoundLatency99thPercentileMs.
   */
  final MutableQuantiles planningRoundLatency;

  /**
   * Milliseconds from a reclaim's request to its last node back with inference, added as each
   * reclaim finishes: ReclaimDurationNumReclaims and ReclaimDuration99thPercentileMs.
   */
  final MutableQuantiles reclaimDuration;

  /**
   * Told the wall and CPU milliseconds of every planning round, unrounded, on the planning thread.
   */
  public interface RoundListener {
    void roundTook(double wallMs, double cpuMs);
  }

  private final List<RoundListener> roundListeners = new CopyOnWriteArrayList<>();

  /** The source registered last, whose percentile windows {@link #unregister()} stops. */
  private static ArylMetrics registered;

  /**
   * A source not yet registered (see {@link #register(int)}), its percentiles over windows of this
   * many seconds.
   */
  public ArylMetrics(int quantileWindowS) {
    planningRoundLatency =
        registry.newQuantiles(
            "planningRoundLatency", "Planning round latency", "Rounds", "Ms", quantileWindowS);
    reclaimDuration =
        registry.newQuantiles(
            "reclaimDuration",
            "Reclaim duration (request to last node returned)",
            "Reclaims",
            "Ms",
            quantileWindowS);
  }

  /**
   * Registers a fresh source, replacing one left by an earlier scheduler in the same JVM.
   *
   * @param quantileWindowS seconds of each percentile window ({@link
   *     ArylConf#METRICS_QUANTILE_WINDOW_S})
   */
  static synchronized ArylMetrics register(int quantileWindowS) {
    unregister();
    registered =
        DefaultMetricsSystem.instance().register(SOURCE, ABOUT, new ArylMetrics(quantileWindowS));
    return registered;
  }

  static synchronized void unregister() {
    DefaultMetricsSystem.instance().unregisterSource(SOURCE);
    if (registered != null) {
      registered.planningRoundLatency.stop();
      registered.reclaimDuration.stop();
      registered = null;
    }
  }

  /** A planning round took {@code nanos} of wall time, {@code cpuNanos} of them on a core. */
  void roundTook(long nanos, long cpuNanos) {
    long ms = nanos / 1_000_000;
    planningRound.add(ms);
    planningRoundLatency.add(ms);
    for (RoundListener listener : roundListeners) {
      listener.roundTook(nanos / 1e6, cpuNanos / 1e6);
    }
  }

  /**
   * Tells {@code listener} the wall and CPU milliseconds of every planning round from now on: for a
   * run that wants every round's time (the SLS runs' percentiles over a whole run), not a window's.
   */
  public void onRound(RoundListener listener) {
    roundListeners.add(listener);
  }

  public int loanedNodes() {
    return loanedNodes.value();
  }

  public long reclaimsStarted() {
    return reclaimsStarted.value();
  }

  public long reclaimsFinished() {
    return reclaimsFinished.value();
  }

  public long containersMoved() {
    return containersMoved.value();
  }

  public long containersShrunk() {
    return containersShrunk.value();
  }

  public long containersPreempted() {
    return containersPreempted.value();
  }

  public long planningRoundsFailed() {
    return planningRoundsFailed.value();
  }
}
