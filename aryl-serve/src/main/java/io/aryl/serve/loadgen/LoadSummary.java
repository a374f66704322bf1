package io.aryl.serve.loadgen;

import java.util.Arrays;
import java.util.List;

/**
 * What a load run came to.
 *
 * @param requests requests due
 * @param ok answered with a 2xx
 * @param errors answered otherwise, or the connection failed
 * @param timeouts not answered in time
 * @param noReplica not sent: no endpoint listed
 * @param p50Ms median latency of the answered (ok) requests; 0 when none
 * @param p99Ms 99th percentile of the same (nearest rank)
 * @param maxMs the largest of the same
 * @param sloMs the objective
 * @param withinSlo share of all requests answered ok within the objective, 0 to 1
 * @param durationS how long sending took, seconds
 * @param sentRps requests due per second of the run
 */
public record LoadSummary(
    long requests,
    long ok,
    long errors,
    long timeouts,
    long noReplica,
    double p50Ms,
    double p99Ms,
    double maxMs,
    double sloMs,
    double withinSlo,
    double durationS,
    double sentRps) {
  public static LoadSummary of(List<RequestRecord> records, double sloMs, double durationS) {
    long ok = 0;
    long errors = 0;
    long timeouts = 0;
    long none = 0;
    long within = 0;
    double[] latencies = new double[records.size()];
    int n = 0;
    for (RequestRecord r : records) {
      switch (r.outcome()) {
        case OK -> {
          ok++;
          latencies[n++] = r.latencyMs();
          if (r.latencyMs() <= sloMs) {
            within++;
          }
        }
        case ERROR -> errors++;
        case TIMEOUT -> timeouts++;
        case NO_REPLICA -> none++;
      }
    }
    double[] sorted = Arrays.copyOf(latencies, n);
    Arrays.sort(sorted);
    long total = records.size();
    return new LoadSummary(
        total,
        ok,
        errors,
        timeouts,
        none,
        percentile(sorted, 0.50),
        percentile(sorted, 0.99),
        n == 0 ? 0 : sorted[n - 1],
        sloMs,
        total == 0 ? 0 : within / (double) total,
        durationS,
        durationS > 0 ? total / durationS : 0);
  }

  /** Nearest-rank percentile of sorted values; 0 for none. */
  static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** Failures of any kind: every request that was not answered ok. */
  public long failures() {
    return errors + timeouts + noReplica;
  }

  /** The summary as one line a person reads. */
  public String line() {
    return String.format(
        "%d requests in %.1f s (%.1f/s): %d ok, %d errors, %d timeouts, %d without a replica;"
            + " latency p50 %.1f ms, p99 %.1f ms, max %.1f ms; %.2f%% within %.0f ms",
        requests,
        durationS,
        sentRps,
        ok,
        errors,
        timeouts,
        noReplica,
        p50Ms,
        p99Ms,
        maxMs,
        withinSlo * 100,
        sloMs);
  }
}
