package io.aryl.sim.engine;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The headline numbers of one run, under the names report.json uses. Pure functions of a {@link
 * PolicyResult}.
 *
 * <ul>
 *   <li>{@code gpu_util}: GPUs busy (training anywhere, inference serving) over all GPUs of both
 *       pools.
 *   <li>{@code training_util}: training-pool GPUs running training.
 *   <li>{@code inference_util}: inference-pool GPUs busy, serving inference or lent and training:
 *       how much of the fleet bought for inference does useful work.
 *   <li>{@code makespan_s}: first submission to last completion, over finished jobs.
 *   <li>{@code jct_bound_s}: the average JCT if every job started at submission and elastic jobs
 *       ran at full width on reference-speed GPUs; no policy can beat it. {@code jct_vs_bound} is
 *       the average JCT over it.
 *   <li>{@code jct_capacity_bound_s}: the larger of {@code jct_bound_s} and the finished jobs' mean
 *       JCT under SRPT on one machine as fast as every GPU of both pools ({@link CapacityBound}):
 *       also a lower bound, and one that knows GPUs are finite, so that under overload it is not
 *       out of every policy's reach. {@code jct_vs_capacity_bound} is the average JCT over it.
 *   <li>{@code queue_removed_pct}: the share of the baseline's total queuing time this policy
 *       removed (only when a baseline ran on the same input).
 *   <li>{@code gpu_s_per_work}: GPU-seconds the jobs held per GPU-second of work at their requested
 *       width; above 1 is paid for sub-linear scaling, slow GPUs, pauses and lost work.
 *   <li>{@code p99_queue_s}, {@code max_queue_s}: the queuing time (submission to first run) of the
 *       99th percentile job and of the job that waited longest.
 *   <li>{@code starved_jobs}: jobs that waited longer than {@link #STARVED_AFTER_S} before they
 *       first ran.
 *   <li>{@code inference_shortfall_server_s}: server-seconds the inference pool had fewer servers
 *       serving than the demand needed (with headroom): a reclaimed server serves only once it has
 *       drained (the reclaim grace), been relabelled and started its replica. {@code
 *       inference_short_share}: the share of the window in which any server was missing.
 *   <li>{@code worst_slowdown}: the largest JCT over the job's own bound ({@link
 *       JobRecord#boundS()}).
 * </ul>
 */
public final class Metrics {
  /** A job that waited longer than this (24 h) before it first ran counts as starved. */
  public static final double STARVED_AFTER_S = 24 * 3600.0;

  private Metrics() {}

  /** {@link #of(PolicyResult)}, plus the share of {@code baseline}'s queuing this run removed. */
  public static Map<String, Object> of(PolicyResult r, PolicyResult baseline) {
    Map<String, Object> m = of(r);
    if (baseline != null) {
      double base = baseline.jobs().stream().mapToDouble(JobRecord::queueS).sum();
      double mine = r.jobs().stream().mapToDouble(JobRecord::queueS).sum();
      m.put("queue_removed_pct", base > 0 ? 100 * (1 - mine / base) : 0.0);
    }
    return m;
  }

  /** The report fields of one policy, in a stable order. */
  public static Map<String, Object> of(PolicyResult r) {
    List<JobRecord> jobs = r.jobs();
    double[] queue = jobs.stream().mapToDouble(JobRecord::queueS).sorted().toArray();
    double[] jct = jobs.stream().mapToDouble(JobRecord::jctS).sorted().toArray();
    double makespan =
        jobs.stream().mapToDouble(JobRecord::endS).max().orElse(0)
            - jobs.stream().mapToDouble(JobRecord::submitS).min().orElse(0);
    double trainingCap = (double) r.trainingGpus() * r.windowS();
    double inferenceCap = (double) r.inferenceGpus() * r.windowS();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jobs", jobs.size());
    m.put("unfinished_jobs", r.unfinishedJobs());
    m.put("avg_queue_s", mean(queue));
    m.put("p50_queue_s", percentile(queue, 50));
    m.put("p95_queue_s", percentile(queue, 95));
    m.put("p99_queue_s", percentile(queue, 99));
    m.put("max_queue_s", queue.length == 0 ? 0.0 : queue[queue.length - 1]);
    m.put("avg_jct_s", mean(jct));
    m.put("p95_jct_s", percentile(jct, 95));
    m.put("makespan_s", makespan);
    m.put(
        "gpu_util",
        ratio(
            r.trainingBusyGpuS() + r.loanedBusyGpuS() + r.inferenceBusyGpuS(),
            trainingCap + inferenceCap));
    m.put("training_util", ratio(r.trainingBusyGpuS(), trainingCap));
    m.put("inference_util", ratio(r.inferenceBusyGpuS() + r.loanedBusyGpuS(), inferenceCap));
    m.put("loaned_gpu_hours", r.loanedGpuS() / 3600);
    m.put("preemptions", r.preemptions());
    m.put("scale_ins", r.scaleIns());
    m.put("lost_gpu_hours", r.lostGpuS() / 3600);
    m.put("inference_shortfall_server_s", r.inferenceShortfallServerS());
    m.put("inference_short_share", ratio(r.inferenceShortS(), r.windowS()));
    double bound = mean(jobs.stream().mapToDouble(JobRecord::boundS).toArray());
    m.put("jct_bound_s", bound);
    m.put("jct_vs_bound", bound > 0 ? mean(jct) / bound : 0.0);
    double capacityBound = Math.max(bound, r.capacityBoundS());
    m.put("jct_capacity_bound_s", capacityBound);
    m.put("jct_vs_capacity_bound", capacityBound > 0 ? mean(jct) / capacityBound : 0.0);
    m.put("gpu_s_per_work", ratio(r.spentGpuS(), r.workGpuS()));
    m.put("starved_jobs", jobs.stream().filter(j -> j.queueS() > STARVED_AFTER_S).count());
    m.put(
        "worst_slowdown",
        jobs.stream()
            .filter(j -> j.boundS() > 0)
            .mapToDouble(j -> j.jctS() / j.boundS())
            .max()
            .orElse(0));
    m.put("sim_wall_s", r.simWallS());
    return m;
  }

  static double mean(double[] v) {
    return v.length == 0 ? 0 : Arrays.stream(v).sum() / v.length;
  }

  /** Nearest-rank percentile of sorted values. */
  public static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static double ratio(double a, double b) {
    return b == 0 ? 0 : a / b;
  }
}
