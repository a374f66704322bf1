package io.aryl.sim.cli;

import io.aryl.core.admission.CheckpointPreemption;
import io.aryl.core.speedup.ThroughputProfiles;
import io.aryl.sim.engine.JobSpeedups;
import io.aryl.sim.engine.Scenario;
import io.aryl.sim.engine.SimConfig;
import io.aryl.sim.trace.InferenceCurve;
import io.aryl.sim.trace.TraceJob;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options that define a simulated world and workload; shared by {@code run} and {@code sweep}.
 */
final class ScenarioOptions {
  static final double DAY_S = 86400;

  @Option(
      names = "--trace",
      defaultValue = InputSpecs.BUNDLED,
      paramLabel = "SPEC",
      description =
          "Training jobs: itp:FILE (raw or elasticflow ITP CSV), philly:FILE[:cluster=ID], or bundled "
              + "(a 7-day slice of ITP cluster04 shipped with the simulator). Default: ${DEFAULT-VALUE}.")
  String trace;

  @Option(
      names = "--inference",
      defaultValue = InputSpecs.BUNDLED,
      paramLabel = "SPEC",
      description =
          "Inference demand: servegen:FILE:MODEL (a ServeGen aggregate-rate CSV and its model column), "
              + "bundled (ServeGen m-small, 14 days), or none. Default: ${DEFAULT-VALUE}.")
  String inference;

  @Option(
      names = "--training-servers",
      paramLabel = "N",
      description = "Servers in the training pool. Default: sized by --sizing.")
  Integer trainingServers;

  @Option(
      names = "--sizing",
      defaultValue = "1.2",
      paramLabel = "X",
      description =
          "Without --training-servers: the training pool holds X times the window's mean GPU demand "
              + "(sum of gpus x duration / window). Default: ${DEFAULT-VALUE}.")
  double sizing;

  @Option(
      names = "--inference-servers",
      paramLabel = "N",
      description =
          "Servers in the inference pool, provisioned for the curve's peak. Default: half the training pool.")
  Integer inferenceServers;

  @Option(
      names = "--gpus-per-server",
      defaultValue = "" + SimConfig.GPUS_PER_SERVER,
      paramLabel = "G",
      description = "GPUs per server in both pools. Default: ${DEFAULT-VALUE}.")
  int gpusPerServer;

  @Option(
      names = "--inference-gpu-speed",
      defaultValue = "" + SimConfig.INFERENCE_GPU_SPEED,
      paramLabel = "S",
      description =
          "Training speed of an inference GPU relative to a training GPU. Default: ${DEFAULT-VALUE}.")
  double inferenceGpuSpeed;

  @Option(
      names = "--start-day",
      defaultValue = "0",
      paramLabel = "D",
      description =
          "First day measured, counted from the day of the trace's first submission. "
              + "Default: ${DEFAULT-VALUE}.")
  double startDay;

  @Option(
      names = "--days",
      paramLabel = "D",
      description = "Days measured. Default: to the end of the trace.")
  Double days;

  @Option(
      names = "--warmup-days",
      defaultValue = "0",
      paramLabel = "D",
      description =
          "Jobs submitted in the D days before the window run first, unmeasured, so the window does not "
              + "start on an empty cluster. Default: ${DEFAULT-VALUE}.")
  double warmupDays;

  @Option(
      names = "--elastic-fraction",
      defaultValue = "" + SimConfig.ELASTIC_FRACTION,
      paramLabel = "F",
      description =
          "Share of jobs treated as elastic (g/2..2g GPUs) by elastic policies; chosen by a hash of "
              + "(seed, job id). Default: ${DEFAULT-VALUE}.")
  double elasticFraction;

  @Option(
      names = "--prediction-error",
      defaultValue = "0",
      paramLabel = "E",
      description =
          "Runtime predictions are off by up to +-E (uniform, seeded per job). Default: ${DEFAULT-VALUE}.")
  double predictionError;

  @Option(
      names = "--seed",
      defaultValue = "" + SimConfig.SEED,
      paramLabel = "N",
      description = "Seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--round-interval",
      defaultValue = "" + SimConfig.ROUND_INTERVAL_S,
      paramLabel = "S",
      description = "Seconds between scheduling rounds. Default: ${DEFAULT-VALUE}.")
  double roundIntervalS;

  @Option(
      names = "--reclaim-grace",
      defaultValue = "" + SimConfig.RECLAIM_GRACE_S,
      paramLabel = "S",
      description =
          "Seconds between asking a loaned server back and taking it. Default: ${DEFAULT-VALUE}.")
  double reclaimGraceS;

  @Option(
      names = "--relabel-s",
      defaultValue = "" + SimConfig.RELABEL_S,
      paramLabel = "S",
      description =
          "Seconds from a reclaimed server's return to its inference label taking effect (the relabel "
              + "and the node's next heartbeat). Default: ${DEFAULT-VALUE}.")
  double relabelS;

  @Option(
      names = "--replica-start-s",
      defaultValue = "" + SimConfig.REPLICA_START_S,
      paramLabel = "S",
      description =
          "Seconds from an inference replica's container grant to its first healthy answer: a "
              + "production-size model server loading its weights (aryl-serve's tiny model: 2.4-2.8 s). "
              + "A reclaimed server counts as short until its drain, relabel and replica start are over. "
              + "Default: ${DEFAULT-VALUE}.")
  double replicaStartS;

  @Option(
      names = "--reclaim-lead-s",
      defaultValue = "" + SimConfig.RECLAIM_LEAD_S,
      paramLabel = "S",
      description =
          "The loan controller asks servers back for the forecast peak this many seconds ahead "
              + "(yesterday's demand over the same hours), so that they serve when the demand comes; "
              + "0: for the demand now only. Must be below a day. Default: ${DEFAULT-VALUE}.")
  double reclaimLeadS;

  @Option(
      names = "--loan-margin",
      defaultValue = "" + SimConfig.LOAN_MARGIN_SERVERS,
      paramLabel = "N",
      description =
          "Inference servers kept back beyond the need before any is lent. Default: ${DEFAULT-VALUE}.")
  int loanMarginServers;

  @Option(
      names = "--checkpoint-interval",
      defaultValue = "" + SimConfig.CHECKPOINT_INTERVAL_S,
      paramLabel = "S",
      description =
          "Seconds between a job's checkpoints; a preemption loses the progress since. Default: ${DEFAULT-VALUE}.")
  double checkpointIntervalS;

  @Option(
      names = "--starvation-wait",
      defaultValue = "" + SimConfig.STARVATION_WAIT_S,
      paramLabel = "S",
      description =
          "Seconds after which a queued job is starving: starving jobs within the senior lane (see "
              + "--starvation-share) are served oldest first, and the first that does not fit reserves servers (others "
              + "may backfill onto them if they end before they drain). 1e9 turns the guard off. "
              + "Default: ${DEFAULT-VALUE}.")
  double starvationWaitS;

  @Option(
      names = "--starvation-share",
      defaultValue = "" + SimConfig.STARVATION_SHARE,
      paramLabel = "F",
      description =
          "The senior lane: starving jobs among the oldest jobs (running or queued) holding this share of "
              + "the pool's GPUs (at least half of them while the starving jobs need no more GPUs than the pool has) "
              + "jump shortest-first; the rest of the pool stays shortest-first. 0: only the single oldest starving job "
              + "jumps (the rule before the lane). Default: ${DEFAULT-VALUE}.")
  double starvationShare;

  @Option(
      names = "--starvation-light-share",
      defaultValue = "" + SimConfig.STARVATION_LIGHT_SHARE,
      paramLabel = "F",
      description =
          "The senior lane's least share of the pool's GPUs while the starving jobs need no more GPUs than "
              + "the pool has. At or below --starvation-share the lane is a fixed --starvation-share (an experiment: "
              + "the fixed lanes the default is compared with). aryl+, which preempts for shorter jobs, keeps the lane at "
              + "--starvation-share whatever this says unless --preemption-factor is off. Default: ${DEFAULT-VALUE}.")
  double starvationLightShare;

  @Option(
      names = "--speedup",
      defaultValue = "power",
      paramLabel = "SPEC",
      description =
          "Each job's throughput curve: 'power' (every job n^"
              + SimConfig.SPEEDUP_EXPONENT
              + ") or 'profiles:DIR', one of the measured models under DIR (the Pollux throughput "
              + "profiles, a directory per model with placements.csv and scalability.csv) per job, "
              + "picked by a hash of (--seed, job id). Default: ${DEFAULT-VALUE}.")
  String speedup;

  @Option(
      names = "--preemption-factor",
      defaultValue = "" + CheckpointPreemption.DEFAULT_FACTOR,
      paramLabel = "F",
      description =
          "aryl+ stops a running job after its checkpoint to start a waiting one when the running job's "
              + "remaining work (GPU-seconds) is at least F times the waiting job's plus the work the stop "
              + "throws away. At least 1; \"off\" (or inf) never preempts for a shorter job. Default: ${DEFAULT-VALUE}.")
  String preemptionFactor;

  @Option(
      names = "--preemption-budget",
      defaultValue = "" + CheckpointPreemption.DEFAULT_BUDGET,
      paramLabel = "N",
      description =
          "aryl+ never stops a job for a shorter one once it has been preempted N times. Default: "
              + "${DEFAULT-VALUE}.")
  int preemptionBudget;

  @Option(
      names = "--preemption-aged-after",
      defaultValue = "" + CheckpointPreemption.DEFAULT_AGED_AFTER_S,
      paramLabel = "S",
      description =
          "aryl+ lets a job that never ran and has waited longer than S seconds stop a running job that has "
              + "had --preemption-served seconds of service, whatever their lengths; \"off\" (or inf): never. "
              + "Default: ${DEFAULT-VALUE}.")
  String preemptionAgedAfter;

  @Option(
      names = "--preemption-served",
      defaultValue = "" + CheckpointPreemption.DEFAULT_SERVED_S,
      paramLabel = "S",
      description =
          "The service (seconds) a running job must have had before an aged job may stop it. Default: "
              + "${DEFAULT-VALUE}.")
  double preemptionServed;

  /** Which of a trace's jobs a command simulates, given the measured window (trace seconds). */
  @FunctionalInterface
  interface JobSelector {
    List<TraceJob> select(List<TraceJob> jobs, double windowStartS, double windowEndS);
  }

  Scenario toScenario() {
    return toScenario((jobs, start, end) -> jobs);
  }

  /**
   * The scenario of the options, on the jobs {@code selector} keeps: the window is the trace's
   * (days count from its first submission, whatever is kept), the pool is sized for the kept jobs'
   * demand.
   */
  Scenario toScenario(JobSelector selector) {
    requireFraction("--elastic-fraction", elasticFraction);
    if (!(predictionError >= 0 && predictionError < 1)) {
      throw new IllegalArgumentException(
          "--prediction-error must be within [0, 1), was " + predictionError);
    }
    requirePositive("--inference-gpu-speed", inferenceGpuSpeed);
    requirePositive("--round-interval", roundIntervalS);
    requireNonNegative("--reclaim-grace", reclaimGraceS);
    requireNonNegative("--relabel-s", relabelS);
    requireNonNegative("--replica-start-s", replicaStartS);
    requireNonNegative("--reclaim-lead-s", reclaimLeadS);
    if (reclaimLeadS >= DAY_S) {
      throw new IllegalArgumentException(
          "--reclaim-lead-s must be < "
              + DAY_S
              + " (the forecast reads yesterday), was "
              + reclaimLeadS);
    }
    requireNonNegative("--loan-margin", loanMarginServers);
    requirePositive("--checkpoint-interval", checkpointIntervalS);
    requirePositive("--starvation-wait", starvationWaitS);
    requireFraction("--starvation-share", starvationShare);
    requireFraction("--starvation-light-share", starvationLightShare);
    requirePositive("--gpus-per-server", gpusPerServer);
    List<TraceJob> jobs = InputSpecs.trainingJobs(trace);
    if (jobs.isEmpty()) {
      throw new IllegalArgumentException("--trace '" + trace + "' holds no jobs");
    }
    InferenceCurve curve = InputSpecs.inferenceCurve(inference);
    // Days count from midnight (trace time) of the trace's first submission: a slice cut from a
    // longer trace keeps
    // its original times, and its day 0 is its own first day.
    double traceStart =
        Math.floor(jobs.stream().mapToDouble(TraceJob::submitS).min().orElse(0) / DAY_S) * DAY_S;
    double traceEnd = jobs.stream().mapToDouble(TraceJob::submitS).max().orElse(0) + 1;
    double start = traceStart + requireNonNegative("--start-day", startDay) * DAY_S;
    double end = days == null ? traceEnd : start + requirePositive("--days", days) * DAY_S;
    if (start >= traceEnd) {
      throw new IllegalArgumentException(
          "--start-day must fall inside the trace, which spans "
              + String.format("%.1f", (traceEnd - traceStart) / DAY_S)
              + " days, was "
              + startDay);
    }
    jobs = selector.select(jobs, start, end);
    if (jobs.isEmpty()) {
      throw new IllegalArgumentException("--trace '" + trace + "' holds no job to simulate");
    }
    double meanDemand = Scenario.meanDemandGpus(jobs, start, end);
    int training =
        trainingServers != null
            ? requirePositive("--training-servers", trainingServers)
            : Math.max(
                1,
                (int)
                    Math.ceil(
                        requirePositive("--sizing", sizing)
                            * meanDemand
                            / requirePositive("--gpus-per-server", gpusPerServer)));
    int inferenceCount =
        inferenceServers != null
            ? requireNonNegative("--inference-servers", inferenceServers)
            : Math.max(1, training / 2);
    SimConfig cfg =
        SimConfig.defaults(training, inferenceCount)
            .withGpusPerServer(gpusPerServer)
            .withInferenceGpuSpeed(inferenceGpuSpeed)
            .withRoundIntervalS(roundIntervalS)
            .withCheckpointIntervalS(checkpointIntervalS)
            .withReclaimGraceS(reclaimGraceS)
            .withRelabelS(relabelS)
            .withReplicaStartS(replicaStartS)
            .withReclaimLeadS(reclaimLeadS)
            .withLoanMarginServers(loanMarginServers)
            .withStarvationWaitS(starvationWaitS)
            .withStarvationShare(starvationShare)
            .withStarvationLightShare(starvationLightShare)
            .withJobSpeedups(jobSpeedups(speedup, seed))
            .withPreemption(preemption());
    return new Scenario(
        trace,
        jobs,
        curve,
        cfg,
        start,
        end,
        requireNonNegative("--warmup-days", warmupDays) * DAY_S,
        0,
        elasticFraction,
        predictionError,
        seed);
  }

  /** The curves {@code --speedup} names, for a run seeded with {@code seed}. */
  static JobSpeedups jobSpeedups(String spec, long seed) {
    if ("power".equals(spec)) {
      return JobSpeedups.UNIFORM;
    }
    if (spec != null && spec.startsWith("profiles:") && spec.length() > "profiles:".length()) {
      String dir = spec.substring("profiles:".length());
      try {
        return JobSpeedups.profiles(dir, ThroughputProfiles.loadAll(Path.of(dir)), seed);
      } catch (IllegalArgumentException | UncheckedIOException e) {
        throw new IllegalArgumentException("--speedup '" + spec + "': " + e.getMessage(), e);
      }
    }
    throw new IllegalArgumentException(
        "--speedup must be 'power' or 'profiles:DIR', was '" + spec + "'");
  }

  /** aryl+'s preemption for shorter jobs as --preemption-factor and --preemption-budget say. */
  private CheckpointPreemption preemption() {
    String f = preemptionFactor.strip();
    double factor;
    if (f.equalsIgnoreCase("off") || f.equalsIgnoreCase("inf")) {
      factor = Double.POSITIVE_INFINITY;
    } else {
      try {
        factor = Double.parseDouble(f);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--preemption-factor must be a number >= 1 or off, was '" + preemptionFactor + "'", e);
      }
      if (!(factor >= 1) || Double.isInfinite(factor)) {
        throw new IllegalArgumentException(
            "--preemption-factor must be a number >= 1 or off, was '" + preemptionFactor + "'");
      }
    }
    requireNonNegative("--preemption-budget", preemptionBudget);
    double agedAfter = secondsOrOff("--preemption-aged-after", preemptionAgedAfter);
    if (!(preemptionServed >= 0) || Double.isInfinite(preemptionServed)) {
      throw new IllegalArgumentException(
          "--preemption-served must be a number of seconds >= 0, was " + preemptionServed);
    }
    return new CheckpointPreemption(factor, preemptionBudget, agedAfter, preemptionServed);
  }

  /** A positive number of seconds, or off/inf for never (infinite). */
  private static double secondsOrOff(String option, String value) {
    String v = value.strip();
    if (v.equalsIgnoreCase("off") || v.equalsIgnoreCase("inf")) {
      return Double.POSITIVE_INFINITY;
    }
    double s;
    try {
      s = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          option + " must be a number of seconds > 0 or off, was '" + value + "'", e);
    }
    if (!(s > 0) || Double.isInfinite(s)) {
      throw new IllegalArgumentException(
          option + " must be a number of seconds > 0 or off, was '" + value + "'");
    }
    return s;
  }

  private static void requireFraction(String option, double v) {
    if (!(v >= 0 && v <= 1)) {
      throw new IllegalArgumentException(option + " must be within [0, 1], was " + v);
    }
  }

  private static double requirePositive(String option, double v) {
    if (!(v > 0)) {
      throw new IllegalArgumentException(option + " must be > 0, was " + v);
    }
    return v;
  }

  private static int requirePositive(String option, int v) {
    if (v <= 0) {
      throw new IllegalArgumentException(option + " must be > 0, was " + v);
    }
    return v;
  }

  private static double requireNonNegative(String option, double v) {
    if (!(v >= 0)) {
      throw new IllegalArgumentException(option + " must be >= 0, was " + v);
    }
    return v;
  }

  private static int requireNonNegative(String option, int v) {
    if (v < 0) {
      throw new IllegalArgumentException(option + " must be >= 0, was " + v);
    }
    return v;
  }
}
