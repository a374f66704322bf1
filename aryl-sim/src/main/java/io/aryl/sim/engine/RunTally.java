package io.aryl.sim.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * What one run measures inside its window: GPU-seconds busy per pool, the loans, inference's
 * shortfall, preemptions and their lost work, scale-ins, each measured job's record and the samples
 * over time. The simulator says what happened; this adds it up and makes the {@link PolicyResult}.
 */
final class RunTally {
  private double trainingBusyGpuS;
  private double loanedBusyGpuS;
  private double inferenceBusyGpuS;
  private double loanedGpuS;
  private double workGpuS;
  private double spentGpuS;
  private long preemptions;
  private long scaleIns;
  private double lostGpuS;
  private double shortfallServerS;
  private double inferenceShortS;

  /**
   * Of each measured job that finished: its submission and the least GPU-seconds it could have
   * needed.
   */
  private final List<CapacityBound.Work> leastWork = new ArrayList<>();

  private final List<JobRecord> records = new ArrayList<>();
  private final List<Sample> samples = new ArrayList<>();

  /**
   * {@code w} seconds of the window passed with the GPUs so used: busy on training and on loaned
   * servers, on loan, serving inference; and inference servers missing for the demand, as
   * server-seconds and as the seconds (of {@code w}) they were missing at all.
   */
  void elapsed(
      double w,
      int trainingGpusBusy,
      int loanedGpusBusy,
      double gpusOnLoan,
      double inferenceGpus,
      double shortServerS,
      double shortS) {
    trainingBusyGpuS += trainingGpusBusy * w;
    loanedBusyGpuS += loanedGpusBusy * w;
    loanedGpuS += gpusOnLoan * w;
    inferenceBusyGpuS += inferenceGpus * w;
    shortfallServerS += shortServerS;
    inferenceShortS += shortS;
  }

  void preempted(double lostGpuS) {
    this.lostGpuS += lostGpuS;
    preemptions++;
  }

  void scaledIn() {
    scaleIns++;
  }

  /**
   * A measured job finished.
   *
   * @param workGpuS the GPU-seconds its trace says it ran
   * @param spentGpuS the GPU-seconds it held here
   */
  void finished(JobRecord record, double workGpuS, double spentGpuS, CapacityBound.Work least) {
    records.add(record);
    this.workGpuS += workGpuS;
    this.spentGpuS += spentGpuS;
    leastWork.add(least);
  }

  void sample(Sample s) {
    samples.add(s);
  }

  PolicyResult result(String policy, SimConfig cfg, double windowS, int unfinished, double wallS) {
    return new PolicyResult(
        policy,
        List.copyOf(records),
        List.copyOf(samples),
        windowS,
        cfg.trainingGpus(),
        cfg.inferenceGpus(),
        trainingBusyGpuS,
        loanedBusyGpuS,
        inferenceBusyGpuS,
        loanedGpuS,
        workGpuS,
        preemptions,
        scaleIns,
        lostGpuS,
        shortfallServerS,
        unfinished,
        wallS,
        spentGpuS,
        capacityBoundS(cfg),
        inferenceShortS);
  }

  /**
   * {@link CapacityBound} of the finished jobs on every GPU of both pools, each at most at
   * reference speed.
   */
  private double capacityBoundS(SimConfig cfg) {
    double capacity =
        cfg.trainingGpus() + cfg.inferenceGpus() * Math.min(1.0, cfg.inferenceGpuSpeed());
    return capacity > 0 ? CapacityBound.meanSrptFlowS(leastWork, capacity) : 0;
  }
}
