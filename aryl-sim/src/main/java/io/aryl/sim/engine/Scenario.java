package io.aryl.sim.engine;

import io.aryl.core.admission.CheckpointPreemption;
import io.aryl.core.model.Checks;
import io.aryl.core.model.Tenants;
import io.aryl.sim.trace.InferenceCurve;
import io.aryl.sim.trace.TraceJob;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * One experiment's inputs: the jobs, the inference curve, the world, the window, and the
 * assumptions. Running it under several policies gives results that differ only by policy.
 *
 * @param traceName where the jobs came from, for the report
 * @param jobs jobs in trace time (seconds)
 * @param curve inference demand, or null
 * @param cfg the world
 * @param windowStartS first submission measured
 * @param windowEndS end of the measured window
 * @param warmupS jobs submitted this long before the window run first, unmeasured
 * @param curveOffsetS the curve's time at trace time 0
 * @param elasticFraction share of jobs that are elastic (elastic policies only)
 * @param predictionError largest relative error of runtime predictions
 * @param seed seeds every random choice
 */
public record Scenario(
    String traceName,
    List<TraceJob> jobs,
    InferenceCurve curve,
    SimConfig cfg,
    double windowStartS,
    double windowEndS,
    double warmupS,
    double curveOffsetS,
    double elasticFraction,
    double predictionError,
    long seed) {

  /** After the window, measured jobs get this long to finish before they count as unfinished. */
  public static final double MAX_TAIL_S = 60 * 86400.0;

  public Scenario {
    Checks.fraction("elasticFraction", elasticFraction);
    if (!(predictionError >= 0 && predictionError < 1)) {
      throw new IllegalArgumentException(
          "predictionError must be within [0, 1), was " + predictionError);
    }
    Checks.nonNegative("warmupS", warmupS);
    if (!(windowEndS > windowStartS)) {
      throw new IllegalArgumentException(
          "window must not be empty: start " + windowStartS + " s, end " + windowEndS + " s");
    }
  }

  /**
   * GPUs the measured jobs ask for on average over the window: sum of gpus x duration / window
   * length.
   */
  public static double meanDemandGpus(List<TraceJob> jobs, double windowStartS, double windowEndS) {
    double gpuS = 0;
    for (TraceJob j : jobs) {
      if (j.submitS() >= windowStartS && j.submitS() < windowEndS) {
        gpuS += j.gpus() * j.durationS();
      }
    }
    return gpuS / (windowEndS - windowStartS);
  }

  public double meanDemandGpus() {
    return meanDemandGpus(jobs, windowStartS, windowEndS);
  }

  public PolicyResult run(PolicySpec policy, java.util.function.DoubleConsumer progress) {
    return run(policy, progress, null);
  }

  /**
   * Runs the policy with the training pool shared by tenants ({@code tenants}: their guarantees;
   * null: no tenants, as {@link #run(PolicySpec, java.util.function.DoubleConsumer)}).
   */
  public PolicyResult run(
      PolicySpec policy, java.util.function.DoubleConsumer progress, Tenants tenants) {
    List<TraceJob> inRun = new ArrayList<>();
    for (TraceJob j : jobs) {
      if (j.submitS() >= windowStartS - warmupS && j.submitS() < windowEndS) {
        inRun.add(j);
      }
    }
    Simulator sim =
        new Simulator(
            cfg, policy, curve, curveOffsetS, elasticFraction, predictionError, seed, tenants);
    return sim.run(inRun, windowStartS, windowEndS, MAX_TAIL_S, progress);
  }

  /**
   * Runs every policy, {@code threads} at a time (runs share nothing, so the results do not depend
   * on it), and returns the results in the order of {@code policies}. {@code progress} gets each
   * policy's share done.
   */
  public List<PolicyResult> runAll(
      List<PolicySpec> policies, int threads, Consumer<double[]> progress)
      throws InterruptedException {
    ExecutorService pool =
        Executors.newFixedThreadPool(Math.max(1, Math.min(threads, policies.size())));
    AtomicReferenceArray<Double> done = new AtomicReferenceArray<>(policies.size());
    for (int i = 0; i < policies.size(); i++) {
      done.set(i, 0.0); // before any run starts: a run reports every run's progress
    }
    try {
      List<Future<PolicyResult>> futures = new ArrayList<>();
      for (int i = 0; i < policies.size(); i++) {
        int at = i;
        futures.add(
            pool.submit(
                () ->
                    run(
                        policies.get(at),
                        f -> {
                          done.set(at, f);
                          if (progress != null) {
                            double[] all = new double[policies.size()];
                            for (int k = 0; k < all.length; k++) {
                              all[k] = done.get(k);
                            }
                            progress.accept(all);
                          }
                        })));
      }
      List<PolicyResult> results = new ArrayList<>();
      for (Future<PolicyResult> f : futures) {
        try {
          results.add(f.get());
        } catch (java.util.concurrent.ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof RuntimeException re) {
            throw re;
          }
          throw new IllegalStateException(cause);
        }
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }

  /** The scenario as report.json's {@code config}. */
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("trace", traceName);
    m.put(
        "jobs_in_window",
        jobs.stream().filter(j -> j.submitS() >= windowStartS && j.submitS() < windowEndS).count());
    m.put("window_start_s", windowStartS);
    m.put("window_end_s", windowEndS);
    m.put("warmup_s", warmupS);
    m.put("mean_demand_gpus", meanDemandGpus());
    m.put("inference", curve == null ? null : curve.model());
    m.put("inference_peak_rps", curve == null ? null : curve.peak());
    m.put(
        "inference_provisioning",
        "fleet serves the curve's peak with the headroom; zero-rate gaps in the data "
            + "are bridged linearly");
    m.put("curve_offset_s", curveOffsetS);
    m.put("training_servers", cfg.trainingServers());
    m.put("training_gpus", cfg.trainingGpus());
    m.put("inference_servers", cfg.inferenceServers());
    m.put("gpus_per_server", cfg.gpusPerServer());
    m.put("training_gpus_vs_mean_demand", cfg.trainingGpus() / Math.max(1e-9, meanDemandGpus()));
    m.put("inference_gpu_speed", cfg.inferenceGpuSpeed());
    m.put("round_interval_s", cfg.roundIntervalS());
    m.put("checkpoint_interval_s", cfg.checkpointIntervalS());
    m.put("rescale_overhead_s", cfg.rescaleOverheadS());
    m.put("restart_overhead_s", cfg.restartOverheadS());
    m.put("reclaim_grace_s", cfg.reclaimGraceS());
    m.put("relabel_s", cfg.relabelS());
    m.put("replica_start_s", cfg.replicaStartS());
    m.put("reclaim_lead_s", cfg.reclaimLeadS());
    m.put("inference_headroom", cfg.headroom());
    m.put("loan_margin_servers", cfg.loanMarginServers());
    m.put("speedup", cfg.jobSpeedups().describe(cfg.speedupExponent()));
    if (!cfg.jobSpeedups().uniform()) {
      m.put(
          "speedup_models_in_window",
          cfg.jobSpeedups()
              .countByModel(
                  jobs.stream()
                      .filter(j -> j.submitS() >= windowStartS && j.submitS() < windowEndS)
                      .map(TraceJob::id)
                      .toList()));
    }
    m.put("starvation_wait_s", cfg.starvationWaitS());
    m.put("starvation_share", cfg.starvationShare());
    m.put("starvation_light_share", cfg.starvationLightShare());
    // JSON has no infinity: a rule that never preempts says so in words.
    CheckpointPreemption p = cfg.preemption();
    m.put(
        "preemption_factor",
        p.enabled() && !Double.isInfinite(p.factor()) ? (Object) p.factor() : "off");
    m.put("preemption_budget", p.budget());
    m.put(
        "preemption_aged_after_s",
        p.enabled() && !Double.isInfinite(p.agedAfterS()) ? (Object) p.agedAfterS() : "off");
    m.put("preemption_served_s", p.servedS());
    m.put("tenant_reclaim_delay_s", cfg.tenantReclaimDelayS());
    m.put("elastic_fraction", elasticFraction);
    m.put("elastic_rule", "elastic jobs run on g/2..2g GPUs; the rest exactly g");
    m.put("prediction_error", predictionError);
    m.put("seed", seed);
    return m;
  }
}
