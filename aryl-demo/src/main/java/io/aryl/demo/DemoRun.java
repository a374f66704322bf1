package io.aryl.demo;

import io.aryl.am.JobSpec;
import io.aryl.am.JobSubmitter;
import io.aryl.api.ArylPaths;
import io.aryl.yarn.rm.ArylMetrics;
import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;

/**
 * One run of the demo: a cluster (Aryl+ , Aryl or off), the inference service under the day's
 * traffic, the loan controller when Aryl is on, the job stream submitted on schedule through
 * aryl-am's client, progress printed as it goes; ends when every job has ended and the traffic has
 * been played, or at the run's length, whichever comes first, and kills what is left.
 */
final class DemoRun {
  private static final long SAMPLE_MS = 500;

  /** How often the inference service's status is read. */
  private static final long SERVE_SAMPLE_MS = 1_000;

  /**
   * One run's settings.
   *
   * @param mode Aryl's scheduling (which policy) and the loan controller, or the stock Capacity
   *     Scheduler alone
   * @param workDir where this run keeps its files
   * @param inferenceSpeed training speed of the inference nodes' GPUs (the training nodes' are 1)
   * @param serve the inference service's settings
   */
  // Made once per run from the command line and never compared: the inference day's rates are
  // handed on to the replay as they are.
  @SuppressWarnings("ArrayRecordComponent")
  record Settings(
      RunMode mode,
      File workDir,
      int inference,
      int training,
      int gpusPerNode,
      int webPort,
      long durationMs,
      long progressEveryMs,
      double[] inferenceDay,
      double windowS,
      double timeScale,
      double inferenceSpeed,
      Inference.Settings serve) {
    String label() {
      return mode.label();
    }

    boolean aryl() {
      return mode.aryl();
    }
  }

  private final Settings s;
  private final PrintStream out;
  private final BooleanSupplier stopping;

  /** The node speeds the workers read; written once the cluster's node ports are known. */
  private Path speeds;

  DemoRun(Settings settings, PrintStream out, BooleanSupplier stopping) {
    this.s = settings;
    this.out = out;
    this.stopping = stopping;
  }

  /** Per-job state while the run goes. */
  private static final class Tracked {
    final DemoJob job;
    volatile ApplicationId id;
    volatile boolean failedToSubmit;
    long submitMs = -1;
    long startMs = -1;
    long endMs = -1;
    String state = "UNFINISHED";

    Tracked(DemoJob job) {
      this.job = job;
    }

    JobOutcome outcome() {
      return new JobOutcome(
          job.name(),
          id == null ? "" : id.toString(),
          job.elastic(),
          submitMs,
          startMs,
          endMs,
          state);
    }
  }

  RunSummary run(List<DemoJob> jobs) throws Exception {
    YarnConfiguration conf = DemoCluster.conf(s.workDir(), s.gpusPerNode(), s.webPort(), s.aryl());
    if (s.aryl()) {
      conf.set("aryl.scheduler.policy", s.mode().policy());
    }
    String name =
        switch (s.mode()) {
          case ARYL_PLUS -> "aryl-demo-plus";
          case ARYL -> "aryl-demo-on";
          case OFF -> "aryl-demo-off";
        };
    out.printf(
        Locale.ROOT,
        "%n== %s: starting %sa MiniYARNCluster (%d inference + %d training nodes, "
            + "%d GPUs each)%n",
        s.label(),
        s.aryl() ? "ZooKeeper and " : "",
        s.inference(),
        s.training(),
        s.gpusPerNode());
    try (DemoCluster cluster =
            DemoCluster.start(name, conf, s.inference(), s.training(), s.inferenceSpeed());
        JobSubmitter submitter = new JobSubmitter(cluster.conf())) {
      out.printf(
          "   ResourceManager web UI: %s (scheduler: %s/cluster/scheduler%s)%n",
          cluster.webAddress(),
          cluster.webAddress(),
          s.aryl() ? ", Aryl: " + cluster.webAddress() + ArylPaths.STATUS : "");
      out.println(
          s.aryl()
              ? "   ArylScheduler on, policy "
                  + s.mode().policy()
                  + "; the loan controller takes its demand from the inference service"
              : "   Aryl off: the stock Capacity Scheduler, no loans (inference nodes stay inference)");
      speeds =
          Files.writeString(
              s.workDir().toPath().resolve("gpu-speeds"), cluster.speedsFile(s.inferenceSpeed()));
      if (s.inferenceSpeed() < 1) {
        out.printf(
            Locale.ROOT,
            "   GPU types: inference nodes %s at speed %s, the others %s at 1 "
                + "(aryl.scheduler.gpu-type.nodes=%s)%n",
            DemoCluster.SLOW_TYPE,
            s.inferenceSpeed(),
            DemoCluster.FAST_TYPE,
            cluster.gpuTypeRules());
      }
      Inference inference =
          s.inference() > 0
              ? Inference.start(
                  cluster,
                  Inference.curve(s.inferenceDay(), s.windowS(), s.timeScale(), s.inference()),
                  s.gpusPerNode(),
                  s.serve(),
                  s.workDir().toPath().resolve("serve-staging"),
                  out)
              : null;
      // The controller starts once the service serves: before, the serve source sees no service
      // and would lend every inference node, the one its first replica needs included.
      try (Loans loans =
          s.aryl() && inference != null
              ? Loans.start(
                  s.workDir().toPath().resolve("zk"),
                  cluster,
                  Inference.RPS_PER_REPLICA,
                  s.durationMs())
              : null) {
        return drive(cluster, loans, inference, submitter, jobs);
      }
    }
  }

  private RunSummary drive(
      DemoCluster cluster,
      Loans loans,
      Inference inference,
      JobSubmitter submitter,
      List<DemoJob> jobs)
      throws Exception {
    List<Tracked> tracked = new ArrayList<>();
    jobs.forEach(j -> tracked.add(new Tracked(j)));
    ExecutorService submissions =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "demo-submit");
              t.setDaemon(true);
              return t;
            });
    try {
      return drive(cluster, loans, inference, submitter, tracked, submissions);
    } finally {
      submissions.shutdownNow();
      submissions.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private RunSummary drive(
      DemoCluster cluster,
      Loans loans,
      Inference inference,
      JobSubmitter submitter,
      List<Tracked> tracked,
      ExecutorService submissions)
      throws Exception {
    PoolMeter meter = new PoolMeter();
    long t0 = System.currentTimeMillis();
    if (inference != null) {
      inference.startTraffic();
    }
    long nextServeSample = 0;
    long nextSample = 0;
    long nextProgress = 0;
    int next = 0;
    long now = 0;
    boolean typeShown = false;
    while (!stopping.getAsBoolean()) {
      now = System.currentTimeMillis() - t0;
      while (next < tracked.size()
          && tracked.get(next).job.submitAtMs() <= now
          && now < s.durationMs()) {
        Tracked t = tracked.get(next++);
        t.submitMs = System.currentTimeMillis() - t0;
        // Submitted on their own thread, in order: staging a job takes a moment, progress keeps
        // going meanwhile.
        submissions.execute(
            () -> {
              try {
                t.id = submitter.submit(spec(t.job), List.of());
              } catch (Exception e) {
                if (!stopping.getAsBoolean()) {
                  out.println("   could not submit " + t.job.name() + ": " + e);
                }
                t.failedToSubmit = true;
              }
            });
      }
      if (now >= nextSample) {
        poll(cluster, tracked, t0);
        DemoCluster.Pools p = cluster.pools();
        meter.sample(now, p.trainingUsedGpus(), p.trainingGpus(), p.loanedGpus());
        nextSample = now + SAMPLE_MS;
        if (inference != null && now >= nextServeSample) {
          inference.sample(cluster.lentNodes());
          nextServeSample = now + SERVE_SAMPLE_MS;
        }
        if (now >= nextProgress) {
          progress(now, p, tracked, loans, inference);
          if (!typeShown && s.aryl() && s.inferenceSpeed() < 1 && p.loanedNodes() > 0) {
            // Shown once: what the scheduler plans a lent node as.
            Map<String, String> types = cluster.loanedGpuTypes();
            if (!types.isEmpty()) {
              Map.Entry<String, String> first = types.entrySet().iterator().next();
              out.println(
                  "   the scheduler plans the loaned node "
                      + first.getKey()
                      + " as "
                      + first.getValue());
              typeShown = true;
            }
          }
          nextProgress = now + s.progressEveryMs();
        }
      }
      boolean allEnded =
          next == tracked.size()
              && tracked.stream().allMatch(t -> t.failedToSubmit || (t.id != null && t.endMs >= 0));
      // Every request of the day is played in both runs: a run whose jobs ended early goes on
      // until the traffic ends.
      if ((allEnded && (inference == null || inference.trafficDone())) || now >= s.durationMs()) {
        break;
      }
      Thread.sleep(100);
    }
    now = System.currentTimeMillis() - t0;
    poll(cluster, tracked, t0);
    meter.close(now);
    DemoCluster.Pools p = cluster.pools();
    progress(now, p, tracked, loans, inference);
    long preempted = 0;
    for (Tracked t : tracked) {
      RMApp app = t.id == null ? null : cluster.rm().getRMContext().getRMApps().get(t.id);
      if (app != null) {
        preempted += app.getRMAppMetrics().getNumNonAMContainersPreempted();
      }
      if (t.id != null && t.endMs < 0) {
        try {
          submitter.kill(t.id);
        } catch (Exception e) {
          // ending anyway
        }
      }
    }
    ArylMetrics m = cluster.arylMetrics();
    long reclaims = m == null ? 0 : m.reclaimsStarted();
    long shrunk = m == null ? 0 : m.containersShrunk();
    List<JobOutcome> outcomes = tracked.stream().map(Tracked::outcome).toList();
    RunSummary summary =
        RunSummary.of(s.label(), tracked.size(), outcomes, now, meter, reclaims, preempted, shrunk)
            // Stopped by Ctrl-C, the traffic is not waited for: its curve would play on.
            .withInference(
                inference == null || stopping.getAsBoolean() ? null : inference.finish(15_000));
    out.printf(
        Locale.ROOT,
        "   %s done after %.0f s: %d of %d jobs finished%n",
        s.label(),
        now / 1000.0,
        summary.finished(),
        tracked.size());
    return summary;
  }

  private JobSpec spec(DemoJob j) throws Exception {
    Path ckpt =
        Files.createDirectories(s.workDir().toPath().resolve("checkpoints").resolve(j.name()));
    return new JobSpec(
        j.name(),
        "training",
        j.minWorkers(),
        j.maxWorkers(),
        j.gpusPerWorker(),
        256,
        1,
        j.predictedRuntimeS(),
        "",
        ckpt.toString(),
        3,
        2_000,
        256,
        2,
        Map.of(WorkerScript.SPEEDS_ENV, speeds.toString()),
        WorkerScript.command(j.workUnits()),
        List.of(),
        "");
  }

  /** Reads each submitted job's state from the RM: base gang held (started), ended. */
  private void poll(DemoCluster cluster, List<Tracked> tracked, long t0) {
    long now = System.currentTimeMillis() - t0;
    for (Tracked t : tracked) {
      if (t.id == null || t.endMs >= 0) {
        continue;
      }
      RMApp app = cluster.rm().getRMContext().getRMApps().get(t.id);
      if (app == null) {
        continue;
      }
      YarnApplicationState state = app.createApplicationState();
      if (t.startMs < 0) {
        RMAppAttempt attempt = app.getCurrentAppAttempt();
        ApplicationAttemptId aid = attempt == null ? null : attempt.getAppAttemptId();
        ApplicationResourceUsageReport usage =
            aid == null ? null : cluster.scheduler().getAppResourceUsageReport(aid);
        long gpus =
            usage == null || usage.getUsedResources() == null
                ? 0
                : usage.getUsedResources().getResourceValue(DemoCluster.GPU);
        if (gpus >= (long) t.job.minWorkers() * t.job.gpusPerWorker()) {
          t.startMs = now;
        }
      }
      if (state == YarnApplicationState.FINISHED
          || state == YarnApplicationState.FAILED
          || state == YarnApplicationState.KILLED) {
        long finish = app.getFinishTime();
        t.endMs = finish > 0 ? Math.max(t.submitMs, finish - t0) : now;
        t.state =
            state == YarnApplicationState.FINISHED
                ? app.getFinalApplicationStatus().name()
                : state.name();
        if (t.startMs < 0) {
          t.startMs = t.endMs;
        }
      }
    }
  }

  private void progress(
      long now, DemoCluster.Pools p, List<Tracked> tracked, Loans loans, Inference inference) {
    int running = 0;
    int queued = 0;
    int done = 0;
    int toCome = 0;
    for (Tracked t : tracked) {
      if (t.id == null) {
        toCome++;
      } else if (t.endMs >= 0) {
        done++;
      } else if (t.startMs >= 0) {
        running++;
      } else {
        queued++;
      }
    }
    String demand =
        (inference == null ? "" : " | " + inference.progress())
            + (loans == null ? "" : ", loan target " + (loans.target() < 0 ? "-" : loans.target()));
    out.printf(
        Locale.ROOT,
        "   [%-8s %s] pools: inference %d, training %d + %d loaned | jobs: %d running, %d "
            + "queued, %d done, %d to come | training GPUs %d/%d%s%n",
        s.label(),
        clock(now),
        p.inferenceNodes(),
        p.trainingNodes(),
        p.loanedNodes(),
        running,
        queued,
        done,
        toCome,
        p.trainingUsedGpus(),
        p.trainingGpus(),
        demand);
    out.flush();
  }

  static String clock(long ms) {
    long sec = ms / 1000;
    return String.format(Locale.ROOT, "%d:%02d", sec / 60, sec % 60);
  }
}
