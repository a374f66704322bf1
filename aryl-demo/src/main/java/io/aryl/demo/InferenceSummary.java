package io.aryl.demo;

import io.aryl.serve.loadgen.LoadSummary;
import io.aryl.serve.loadgen.RequestRecord;
import java.util.List;

/**
 * One run's inference side: what the load generator recorded of every request sent to the inference
 * service, and how long the service's replicas took from its ask to their first answer, apart for
 * those whose node was on loan when asked for (they waited for a reclaim).
 *
 * @param requests requests due on the curve, every one accounted for below
 * @param ok answered with a 2xx
 * @param errors answered otherwise, or the connection failed
 * @param timeouts not answered within the load generator's timeout
 * @param noReplica not sent: the service listed no endpoint when they were due
 * @param sloMs the latency objective
 * @param withinSlo share of all requests answered ok within the objective, 0 to 1
 * @param p50Ms median latency of the answered requests
 * @param p99Ms 99th percentile latency of the answered requests (nearest rank)
 * @param maxMs the largest latency of the answered requests
 * @param replicasStarted replicas that answered their health check while the curve played
 * @param replicasBehindReclaim of those, replicas asked for while the node they ran on was on loan
 * @param reclaimWaitP50S median of their waits, from the service's ask to the replica's first
 *     healthy answer, seconds; 0 when none
 * @param reclaimWaitMaxS the longest of those waits, seconds; 0 when none
 * @param otherWaitP50S the same median for the replicas no reclaim held up, seconds; 0 when none
 */
public record InferenceSummary(
    long requests,
    long ok,
    long errors,
    long timeouts,
    long noReplica,
    double sloMs,
    double withinSlo,
    double p50Ms,
    double p99Ms,
    double maxMs,
    int replicasStarted,
    int replicasBehindReclaim,
    double reclaimWaitP50S,
    double reclaimWaitMaxS,
    double otherWaitP50S) {

  /** Requests not answered ok: errors, timeouts and those without a replica. */
  public long failed() {
    return errors + timeouts + noReplica;
  }

  /**
   * A replica of the service that served during the run.
   *
   * @param container its container id
   * @param askMs when the service asked for it (the AM's clock, epoch ms)
   * @param readyMs when it first answered its health check (epoch ms)
   * @param behindReclaim whether the node it ran on was on loan when it was asked for
   */
  public record ReplicaStart(String container, long askMs, long readyMs, boolean behindReclaim) {
    double waitS() {
      return (readyMs - askMs) / 1000.0;
    }
  }

  static InferenceSummary of(
      List<RequestRecord> records, double sloMs, double durationS, List<ReplicaStart> starts) {
    LoadSummary load = LoadSummary.of(records, sloMs, durationS);
    double[] behind =
        starts.stream()
            .filter(ReplicaStart::behindReclaim)
            .mapToDouble(ReplicaStart::waitS)
            .sorted()
            .toArray();
    double[] others =
        starts.stream()
            .filter(r -> !r.behindReclaim())
            .mapToDouble(ReplicaStart::waitS)
            .sorted()
            .toArray();
    return new InferenceSummary(
        load.requests(),
        load.ok(),
        load.errors(),
        load.timeouts(),
        load.noReplica(),
        sloMs,
        load.withinSlo(),
        load.p50Ms(),
        load.p99Ms(),
        load.maxMs(),
        starts.size(),
        behind.length,
        median(behind),
        behind.length == 0 ? 0 : behind[behind.length - 1],
        median(others));
  }

  /** Nearest-rank median of sorted values; 0 for none. */
  private static double median(double[] sorted) {
    if (sorted.length == 0) {
      return 0;
    }
    return sorted[Math.max(0, (int) Math.ceil(0.5 * sorted.length) - 1)];
  }
}
