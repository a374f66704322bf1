package io.aryl.sls;

import io.aryl.sim.engine.Metrics;
import java.util.List;
import java.util.Locale;

/**
 * What one SLS run measured, as {@code summary.json} holds it. Times in seconds unless named ms.
 * Allocation rates are containers the RM allocated per second of the run; the peak is the best
 * 10-second window, which a burst of submissions turns into the scheduler's throughput. Planning
 * rounds are Aryl's (empty for the stock scheduler); allocate and NODE_UPDATE are SLS's own timers,
 * read per second (each the mean of the timer's last calls).
 */
public record SlsSummary(
    String scheduler,
    boolean allFinished,
    double wallS,
    int nodes,
    long gpus,
    int jobs,
    int finished,
    int elastic,
    int elasticGrew,
    int workersGivenBack,
    double amWaitP50S,
    double amWaitP99S,
    double queueP50S,
    double queueP99S,
    double jctMeanS,
    double makespanS,
    double gpuUtilisation,
    long containersAllocated,
    double allocationRatePerS,
    double peakAllocationRatePerS,
    int rounds,
    double roundP50Ms,
    double roundP99Ms,
    double roundMaxMs,
    double roundCpuP50Ms,
    double roundCpuP99Ms,
    double roundCpuMaxMs,
    double allocateP50Ms,
    double allocateP99Ms,
    double nodeUpdateP50Ms,
    double nodeUpdateP99Ms,
    long heapPeakMb) {

  private static final double WINDOW_S = 10;

  static SlsSummary of(
      String scheduler,
      boolean allDone,
      double wallS,
      List<SlsJobRecord> jobs,
      List<ClusterSampler.Sample> samples,
      List<Double> roundsMs,
      List<Double> roundsCpuMs,
      SlsOutputs sls) {
    double[] amWait =
        sorted(
            jobs.stream().filter(j -> j.amStartedMs() >= 0).mapToDouble(j -> j.amWaitMs() / 1e3));
    double[] queue =
        sorted(
            jobs.stream().filter(j -> j.baseStartedMs() >= 0).mapToDouble(j -> j.queueMs() / 1e3));
    double[] jct =
        sorted(
            jobs.stream()
                .filter(SlsJobRecord::finished)
                .mapToDouble(j -> (j.finishedMs() - j.submittedMs()) / 1e3));
    long firstSubmit =
        jobs.stream().mapToLong(SlsJobRecord::submittedMs).filter(t -> t >= 0).min().orElse(0);
    long lastFinish = jobs.stream().mapToLong(SlsJobRecord::finishedMs).max().orElse(firstSubmit);
    List<SlsJobRecord> elastic =
        jobs.stream().filter(j -> j.maxWorkers() > j.minWorkers()).toList();
    // Utilisation from the first GPU allocated to the last sample: SLS's start-up (nodes
    // registering) is not idle time.
    List<ClusterSampler.Sample> busy =
        samples.stream().dropWhile(s -> s.allocatedGpus() == 0).toList();
    double utilisation =
        busy.stream()
            .filter(s -> s.totalGpus() > 0)
            .mapToDouble(s -> (double) s.allocatedGpus() / s.totalGpus())
            .average()
            .orElse(0);
    ClusterSampler.Sample last = samples.isEmpty() ? null : samples.get(samples.size() - 1);
    long allocated = last == null ? 0 : last.containersAllocated();
    double spanS = busy.isEmpty() ? 0 : busy.get(busy.size() - 1).atS() - busy.get(0).atS();
    double[] rounds = sorted(roundsMs.stream().mapToDouble(Double::doubleValue));
    double[] roundsCpu = sorted(roundsCpuMs.stream().mapToDouble(Double::doubleValue));
    double[] allocate = sorted(sls.allocateMs().stream().mapToDouble(Double::doubleValue));
    double[] nodeUpdate = sorted(sls.nodeUpdateMs().stream().mapToDouble(Double::doubleValue));
    return new SlsSummary(
        scheduler,
        allDone,
        wallS,
        last == null ? 0 : last.nodes(),
        last == null ? 0 : last.totalGpus(),
        jobs.size(),
        jct.length,
        elastic.size(),
        (int) elastic.stream().filter(SlsJobRecord::grew).count(),
        jobs.stream().mapToInt(SlsJobRecord::workersGivenBack).sum(),
        Metrics.percentile(amWait, 50),
        Metrics.percentile(amWait, 99),
        Metrics.percentile(queue, 50),
        Metrics.percentile(queue, 99),
        mean(jct),
        Math.max(0, lastFinish - firstSubmit) / 1e3,
        utilisation,
        allocated,
        spanS > 0 ? allocated / spanS : 0,
        peakRate(samples),
        rounds.length,
        Metrics.percentile(rounds, 50),
        Metrics.percentile(rounds, 99),
        rounds.length == 0 ? 0 : rounds[rounds.length - 1],
        Metrics.percentile(roundsCpu, 50),
        Metrics.percentile(roundsCpu, 99),
        roundsCpu.length == 0 ? 0 : roundsCpu[roundsCpu.length - 1],
        Metrics.percentile(allocate, 50),
        Metrics.percentile(allocate, 99),
        Metrics.percentile(nodeUpdate, 50),
        Metrics.percentile(nodeUpdate, 99),
        samples.stream().mapToLong(ClusterSampler.Sample::heapUsedMb).max().orElse(0));
  }

  /** The most containers allocated in any {@value #WINDOW_S}-second window, per second. */
  static double peakRate(List<ClusterSampler.Sample> samples) {
    double best = 0;
    int from = 0;
    for (int to = 0; to < samples.size(); to++) {
      while (samples.get(to).atS() - samples.get(from).atS() > WINDOW_S) {
        from++;
      }
      double dt = samples.get(to).atS() - samples.get(from).atS();
      if (dt >= WINDOW_S * 0.9) {
        best =
            Math.max(
                best,
                (samples.get(to).containersAllocated() - samples.get(from).containersAllocated())
                    / dt);
      }
    }
    return best;
  }

  private static double[] sorted(java.util.stream.DoubleStream values) {
    return values.sorted().toArray();
  }

  private static double mean(double[] v) {
    return v.length == 0 ? 0 : java.util.Arrays.stream(v).sum() / v.length;
  }

  /** The line a run prints when it ends. */
  String oneLine() {
    return String.format(
        Locale.ROOT,
        "%s: %d/%d jobs finished in %.0f s on %d GPUs; %d elastic, %d grew;"
            + " queue p50 %.1f s p99 %.1f s; GPU utilisation %.0f%%; %d containers, peak %.1f/s; rounds p99 %.1f ms;"
            + " heap peak %d MB",
        scheduler,
        finished,
        jobs,
        wallS,
        gpus,
        elastic,
        elasticGrew,
        queueP50S,
        queueP99S,
        100 * gpuUtilisation,
        containersAllocated,
        peakAllocationRatePerS,
        roundP99Ms,
        heapPeakMb);
  }
}
