package io.aryl.serve.core;

/**
 * How a service scales: its bounds, the rate one replica is meant to carry, and the timings of the
 * decisions. Checked at construction; a bad value is refused naming its option.
 *
 * @param replicasMin the fewest replicas ({@code --replicas-min}, at least 1)
 * @param replicasMax the most ({@code --replicas-max}, at least min)
 * @param targetRpsPerReplica requests per second one replica carries ({@code
 *     --target-rps-per-replica}, more than 0)
 * @param windowMs the window the request rate is measured over ({@code --window-ms})
 * @param scaleDownAfterMs how long the rate must call for fewer replicas before the target falls
 *     ({@code --scale-down-after-ms}): the hysteresis; a rise is followed at once
 * @param drainMs how long a replica taken out of the endpoints (preempted, or scaled down) keeps
 *     its container, so that requests already sent to it finish ({@code --drain-ms})
 * @param maxReplicaFailures replicas that may exit or fail to start before they ever answered their
 *     health check; one more fails the service ({@code --max-replica-failures})
 * @param portFrom the lowest port the AM gives a replica
 * @param portTo the highest
 */
public record ScalingSettings(
    int replicasMin,
    int replicasMax,
    double targetRpsPerReplica,
    long windowMs,
    long scaleDownAfterMs,
    long drainMs,
    int maxReplicaFailures,
    int portFrom,
    int portTo) {
  public static final long WINDOW_MS_DEFAULT = 5_000;
  public static final long SCALE_DOWN_AFTER_MS_DEFAULT = 30_000;
  public static final long DRAIN_MS_DEFAULT = 2_000;
  public static final int MAX_REPLICA_FAILURES_DEFAULT = 5;
  public static final int PORT_FROM_DEFAULT = 20_000;
  public static final int PORT_TO_DEFAULT = 29_999;

  public ScalingSettings {
    OptionCheck.atLeast("--replicas-min", replicasMin, 1);
    if (replicasMax < replicasMin) {
      throw new IllegalArgumentException(
          "--replicas-max must be >= --replicas-min (" + replicasMin + "), was " + replicasMax);
    }
    if (!(targetRpsPerReplica > 0) || Double.isInfinite(targetRpsPerReplica)) {
      throw new IllegalArgumentException(
          "--target-rps-per-replica must be a number > 0, was " + targetRpsPerReplica);
    }
    OptionCheck.atLeast("--window-ms", windowMs, 1000);
    OptionCheck.atLeast("--scale-down-after-ms", scaleDownAfterMs, 0);
    OptionCheck.atLeast("--drain-ms", drainMs, 0);
    OptionCheck.atLeast("--max-replica-failures", maxReplicaFailures, 0);
    if (portFrom < 1024 || portTo > 65535 || portTo - portFrom + 1 < replicasMax) {
      throw new IllegalArgumentException(
          "--port-range must lie within 1024-65535 and hold --replicas-max ("
              + replicasMax
              + ") ports, was "
              + portFrom
              + "-"
              + portTo);
    }
  }

  /** The defaults for everything but the bounds and the per-replica rate. */
  public static ScalingSettings of(int min, int max, double targetRpsPerReplica) {
    return new ScalingSettings(
        min,
        max,
        targetRpsPerReplica,
        WINDOW_MS_DEFAULT,
        SCALE_DOWN_AFTER_MS_DEFAULT,
        DRAIN_MS_DEFAULT,
        MAX_REPLICA_FAILURES_DEFAULT,
        PORT_FROM_DEFAULT,
        PORT_TO_DEFAULT);
  }

  /**
   * The replicas a request rate calls for: {@code ceil(rate / targetRpsPerReplica)} within min and
   * max.
   */
  public int replicasFor(double rateRps) {
    double exact = rateRps / targetRpsPerReplica;
    // A rate a hair over a multiple (12.000000001 / 4) is that multiple: counters are whole.
    int n = (int) Math.ceil(exact - 1e-9);
    return Math.max(replicasMin, Math.min(replicasMax, n));
  }
}
