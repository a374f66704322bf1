package io.aryl.yarn;

import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.annotation.Metric;
import org.apache.hadoop.metrics2.annotation.Metrics;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableGaugeInt;
import org.apache.hadoop.metrics2.lib.MutableGaugeLong;
import org.apache.hadoop.metrics2.lib.MutableRate;

/**
 * Operators' metrics, published through Hadoop metrics2: JMX bean {@code Hadoop:service=ResourceManager,name=ArylScheduler}
 * and the ResourceManager's {@code /jmx}.
 */
@Metrics(about = "Aryl elastic GPU scheduler", context = "yarn")
public class ArylMetrics {
  static final String SOURCE = "ArylScheduler";

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

  @Metric("Worker containers moved (a job moved whole to other nodes: new workers first, then the old ones asked back)")
  MutableCounterLong containersMoved;

  @Metric("Containers preempted (job stopped, or a non-elastic container on a returned node)")
  MutableCounterLong containersPreempted;

  @Metric("GPU-seconds of training work lost to shrinks and preemptions")
  MutableCounterLong gpuSecondsLost;

  @Metric("1 while a newly active scheduler waits for the cluster to come back before it acts, else 0")
  MutableGaugeInt recovering;

  @Metric("Milliseconds the last recovery waited for NodeManagers to re-register")
  MutableGaugeLong recoveryWaitMs;

  @Metric("Planning round latency")
  MutableRate planningRound;

  /** Registers a fresh source, replacing one left by an earlier scheduler in the same JVM. */
  static ArylMetrics register() {
    MetricsSystem ms = DefaultMetricsSystem.instance();
    ms.unregisterSource(SOURCE);
    return ms.register(SOURCE, "Aryl elastic GPU scheduler", new ArylMetrics());
  }

  static void unregister() {
    DefaultMetricsSystem.instance().unregisterSource(SOURCE);
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
}
