package io.aryl.sim.report;

import io.aryl.sim.engine.JobRecord;
import io.aryl.sim.engine.PolicyResult;
import io.aryl.sim.engine.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Hand-made results for the report tests. */
final class Fixtures {
  private Fixtures() {}

  static JobRecord job(String id, double submitS, double firstStartS, double endS) {
    return new JobRecord(id, submitS, firstStartS, endS, 4, false, endS - firstStartS);
  }

  /**
   * FIFO on 8 training + 4 inference GPUs over 10,000 s. Queues 100, 300, 600, 1800 s (mean 700,
   * p50 300, p95 1800); JCTs 1000, 2000, 3000, 3600 s (mean 2400, p95 3600); makespan 3630 - 0.
   * GPU-seconds: 40,000 training, 0 loaned, 20,000 inference of 120,000 (util 0.5, training 0.5,
   * inference 0.5).
   */
  static PolicyResult fifo() {
    List<JobRecord> jobs =
        List.of(
            new JobRecord("j1", 0, 100, 1000, 4, false, 900),
            job("j2", 10, 310, 2010),
            job("j3", 20, 620, 3020),
            job("j4", 30, 1830, 3630));
    List<Sample> samples =
        List.of(
            new Sample(0, 4, 0, 1.5, 0, 3, 1),
            new Sample(300, 8, 0, 2, 0, 2, 2),
            new Sample(600, 8, 0, 2.25, 0, 1, 2));
    return new PolicyResult(
        "fifo", jobs, samples, 10_000, 8, 4, 40_000, 0, 20_000, 0, 14_000, 0, 0, 0, 0, 1, 0.25);
  }

  /**
   * Loans inference GPUs: queues 0, 0, 60, 240 s (mean 75, p50 0, p95 240); JCTs 800, 1200, 1600,
   * 2800 s (mean 1600, p95 2800); makespan 2830. GPU-seconds: 48,000 training + 12,000 loaned +
   * 18,000 inference of 120,000 (util 0.65, training 0.6, inference 0.75); 7,200 loaned (2 GPU-h),
   * 1,800 lost (0.5 GPU-h); inference 42 server-s short over 21 s of the 10,000.
   */
  static PolicyResult aryl() {
    List<JobRecord> jobs =
        List.of(
            new JobRecord("j1", 0, 0, 800, 4, true, 700),
            job("j2", 10, 10, 1210),
            job("j3", 20, 80, 1620),
            job("j4", 30, 270, 2830));
    List<Sample> samples =
        List.of(
            new Sample(0, 8, 2, 1.5, 1, 1, 3),
            new Sample(300, 8, 2, 2, 1, 0, 4),
            new Sample(600, 8, 0, 2.25, 0, 0, 3));
    return new PolicyResult(
        "aryl", jobs, samples, 10_000, 8, 4, 48_000, 12_000, 18_000, 7_200, 14_000, 3, 5, 1_800, 42,
        0, 1.5, 0, 0, 21);
  }

  /** Never queues: every job starts on submission (JCT mean 1000). */
  static PolicyResult instant() {
    List<JobRecord> jobs = List.of(job("j1", 0, 0, 500), job("j2", 10, 10, 1510));
    return new PolicyResult(
        "instant", jobs, List.of(), 10_000, 8, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  /** No jobs, no samples, no GPUs. */
  static PolicyResult empty(String name) {
    return new PolicyResult(name, List.of(), List.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  /**
   * A month on 256 training + 128 inference GPUs sampled every minute, 3,000 jobs per policy:
   * diurnal inference demand, loaning policies borrowing the night's idle inference servers, queues
   * shrinking from fifo to aryl.
   */
  static List<PolicyResult> plausibleMonth() {
    String[] names = {"fifo", "elastic", "loan", "aryl"};
    double[] queueScale = {2.5 * 3600, 1.2 * 3600, 0.8 * 3600, 0.3 * 3600};
    double[] noQueueShare = {0.35, 0.5, 0.55, 0.75};
    boolean[] loans = {false, false, true, true};
    double window = 30 * 86_400.0;
    int trainingGpus = 256;
    int inferenceGpus = 128;
    List<PolicyResult> out = new ArrayList<>();
    for (int p = 0; p < names.length; p++) {
      Random rnd = new Random(42 + p);
      List<Sample> samples = new ArrayList<>();
      double queued = 20;
      double trainingBusyS = 0;
      double loanedBusyS = 0;
      double inferenceBusyS = 0;
      double loanedS = 0;
      for (double t = 0; t < window; t += 60) {
        double phase = 2 * Math.PI * (t / 86_400 - 0.3);
        double demand = Math.max(4, 60 + 45 * Math.sin(phase) + 6 * rnd.nextGaussian());
        queued =
            Math.max(0, queued + rnd.nextGaussian() * 1.5 + 0.4 * Math.sin(phase / 7) - (p * 0.02));
        int trainingBusy =
            (int) Math.min(trainingGpus, 170 + 40 * p / 3.0 + queued * 2 + 8 * rnd.nextGaussian());
        int loanedServers =
            loans[p] && queued > 2 ? (int) Math.max(0, (inferenceGpus - demand - 16) / 4) : 0;
        int loanedBusy = (int) (loanedServers * 4 * 0.9);
        samples.add(
            new Sample(
                t,
                trainingBusy,
                loanedBusy,
                demand,
                loanedServers,
                (int) queued,
                40 + trainingBusy / 6));
        trainingBusyS += trainingBusy * 60;
        loanedBusyS += loanedBusy * 60;
        inferenceBusyS += demand * 60;
        loanedS += loanedServers * 4 * 60;
      }
      List<JobRecord> jobs = new ArrayList<>();
      for (int j = 0; j < 3000; j++) {
        double submit = rnd.nextDouble() * window * 0.95;
        double wait =
            rnd.nextDouble() < noQueueShare[p]
                ? 0
                : queueScale[p] * Math.exp(1.3 * rnd.nextGaussian());
        double run = 3600 * Math.exp(1.6 * rnd.nextGaussian());
        jobs.add(
            new JobRecord(
                "job-" + j,
                submit,
                submit + wait,
                submit + wait + run,
                1 << rnd.nextInt(5),
                p > 0,
                run * 0.9));
      }
      out.add(
          new PolicyResult(
              names[p],
              jobs,
              samples,
              window,
              trainingGpus,
              inferenceGpus,
              trainingBusyS,
              loanedBusyS,
              inferenceBusyS,
              loanedS,
              0,
              loans[p] ? 120 : 0,
              p > 0 ? 300 : 0,
              loans[p] ? 3_600 * 40 : 0,
              loans[p] ? 900 : 0,
              12,
              4.2));
    }
    return out;
  }
}
