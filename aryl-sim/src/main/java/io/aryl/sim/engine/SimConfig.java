package io.aryl.sim.engine;

import io.aryl.core.ArylPolicy;
import io.aryl.core.admission.CheckpointPreemption;
import io.aryl.core.model.Checks;
import java.util.function.Consumer;

/**
 * The simulated world's constants. Every field is stated in the report, so a result can be
 * reproduced.
 *
 * @param trainingServers servers of the training pool
 * @param inferenceServers servers of the inference pool, provisioned for the inference curve's peak
 * @param gpusPerServer GPUs on every server
 * @param inferenceGpuSpeed training speed of an inference GPU relative to a training GPU (e.g. 0.5)
 * @param roundIntervalS seconds between scheduling rounds (a round runs only if something changed)
 * @param sampleIntervalS seconds between time-series samples
 * @param checkpointIntervalS seconds of running between a job's checkpoints; a preemption loses the
 *     progress since the last one
 * @param rescaleOverheadS seconds a job pauses when its width changes (it checkpoints, re-forms,
 *     restores)
 * @param restartOverheadS seconds a preempted job needs to restart from its checkpoint
 * @param reclaimGraceS seconds between asking a loaned server back and taking it
 * @param headroom inference capacity kept above the demand, as a fraction
 * @param loanMarginServers inference servers kept back beyond the need before any is lent
 * @param speedupExponent throughput of n workers is n^exponent
 * @param starvationWaitS queued longer than this, a job is starving (see {@code starvationShare})
 * @param lastTrainingServerGpus GPUs of the last training server when it is not a full one (a pool
 *     of whole GPUs, e.g. one tenant's guarantee), 0 when every training server has {@code
 *     gpusPerServer}
 * @param starvationShare the starvation guard's senior lane, as a share of the pool's GPUs
 *     (aryl-core's {@code PolicyConfig.starvationShare}; 0: only the oldest starving job jumps)
 * @param tenantReclaimDelayS with tenants: how long an owner's job waits before borrowers' base
 *     workers are preempted for it (aryl-core's {@code PolicyConfig.tenantReclaimDelayS})
 * @param starvationLightShare the lane's least share while the starving jobs need no more GPUs than
 *     the pool has (aryl-core's {@code PolicyConfig.starvationLightShare}, 0.5); at or below {@code
 *     starvationShare} the lane is fixed
 * @param relabelS seconds from a reclaimed server's return to its inference label taking effect
 *     (the relabel, and the node's next heartbeat before a replica can be placed there)
 * @param replicaStartS seconds from an inference replica's container grant to its first healthy
 *     answer: the model server's start and load
 * @param reclaimLeadS how far ahead the loan controller looks when it asks servers back: it
 *     reclaims for the forecast peak over this many seconds ({@code DemandForecast.daily}), 0 for
 *     the demand now only
 * @param jobSpeedups each job's throughput curve: {@link JobSpeedups#UNIFORM}, every job {@code
 *     n^speedupExponent}, or one measured model per job
 * @param preemption when aryl+ stops a running job after its checkpoint to start a much shorter one
 *     (aryl-core's {@code PolicyConfig.preemption}; default aryl+'s own, {@link
 *     CheckpointPreemption#DEFAULT}); the other policies never do
 */
public record SimConfig(
    int trainingServers,
    int inferenceServers,
    int gpusPerServer,
    double inferenceGpuSpeed,
    double roundIntervalS,
    double sampleIntervalS,
    double checkpointIntervalS,
    double rescaleOverheadS,
    double restartOverheadS,
    double reclaimGraceS,
    double headroom,
    int loanMarginServers,
    double speedupExponent,
    double starvationWaitS,
    int lastTrainingServerGpus,
    double tenantReclaimDelayS,
    double starvationShare,
    double starvationLightShare,
    double relabelS,
    double replicaStartS,
    double reclaimLeadS,
    JobSpeedups jobSpeedups,
    CheckpointPreemption preemption) {

  public SimConfig {
    Checks.notNull("preemption", preemption);
    if (jobSpeedups == null) {
      throw new IllegalArgumentException(
          "jobSpeedups must be set (JobSpeedups.UNIFORM: every job n^speedupExponent)");
    }
    Checks.positive("trainingServers", trainingServers);
    Checks.nonNegative("inferenceServers", inferenceServers);
    Checks.positive("gpusPerServer", gpusPerServer);
    Checks.positive("inferenceGpuSpeed", inferenceGpuSpeed);
    Checks.positive("roundIntervalS", roundIntervalS);
    Checks.positive("sampleIntervalS", sampleIntervalS);
    Checks.positive("checkpointIntervalS", checkpointIntervalS);
    Checks.nonNegative("rescaleOverheadS", rescaleOverheadS);
    Checks.nonNegative("restartOverheadS", restartOverheadS);
    Checks.nonNegative("reclaimGraceS", reclaimGraceS);
    Checks.nonNegative("headroom", headroom);
    Checks.nonNegative("loanMarginServers", loanMarginServers);
    if (!(speedupExponent > 0 && speedupExponent <= 1)) {
      throw new IllegalArgumentException(
          "speedupExponent must be within (0, 1], was " + speedupExponent);
    }
    Checks.positive("starvationWaitS", starvationWaitS);
    Checks.nonNegative("lastTrainingServerGpus", lastTrainingServerGpus);
    if (lastTrainingServerGpus >= gpusPerServer) {
      throw new IllegalArgumentException(
          "lastTrainingServerGpus must be < gpusPerServer ("
              + gpusPerServer
              + "), was "
              + lastTrainingServerGpus
              + "; 0 means a full server");
    }
    Checks.nonNegative("tenantReclaimDelayS", tenantReclaimDelayS);
    Checks.nonNegative("relabelS", relabelS);
    Checks.nonNegative("replicaStartS", replicaStartS);
    Checks.nonNegative("reclaimLeadS", reclaimLeadS);
    if (!(starvationShare >= 0 && starvationShare <= 1)) {
      throw new IllegalArgumentException(
          "starvationShare must be within [0, 1], was " + starvationShare);
    }
    if (!(starvationLightShare >= 0 && starvationLightShare <= 1)) {
      throw new IllegalArgumentException(
          "starvationLightShare must be within [0, 1], was " + starvationLightShare);
    }
  }

  // The defaults, defined once: the command line shows and uses these.
  public static final int GPUS_PER_SERVER = 8;

  /**
   * Default share of trace jobs made elastic, and the seed that picks them (see
   * JobShape.isElastic).
   */
  public static final double ELASTIC_FRACTION = 0.5;

  public static final long SEED = 1;
  public static final double INFERENCE_GPU_SPEED = 1.0;
  public static final double ROUND_INTERVAL_S = 60;
  public static final double SAMPLE_INTERVAL_S = 600;
  public static final double CHECKPOINT_INTERVAL_S = 1800;
  public static final double RESCALE_OVERHEAD_S = 30;
  public static final double RESTART_OVERHEAD_S = 120;
  public static final double RECLAIM_GRACE_S = 60;

  /**
   * A relabel moves the node's resources between partitions in 0-25 ms on the ResourceManager
   * (measured on MiniYARNCluster); a replica can be placed there at the node's next heartbeat, 1 s
   * by default.
   */
  public static final double RELABEL_S = 1;

  /**
   * A model server of production size loading its weights onto the GPU: tens of seconds. The tiny
   * model of aryl-serve answers 2.4-2.8 s after its container grant on a CPU, a floor, not a
   * typical case.
   */
  public static final double REPLICA_START_S = 30;

  /** The loan controller reclaims for the demand now: no lead. */
  public static final double RECLAIM_LEAD_S = 0;

  public static final double HEADROOM = 0.2;
  public static final int LOAN_MARGIN_SERVERS = 1;
  public static final double SPEEDUP_EXPONENT = 0.8;
  public static final double STARVATION_WAIT_S = 43200;
  public static final double TENANT_RECLAIM_DELAY_S = 60;
  public static final double STARVATION_SHARE =
      io.aryl.core.admission.StarvationGuard.DEFAULT_SHARE;
  public static final double STARVATION_LIGHT_SHARE =
      io.aryl.core.admission.StarvationGuard.LIGHT_SHARE;

  /** Defaults for a cluster of the given pool sizes. */
  public static SimConfig defaults(int trainingServers, int inferenceServers) {
    return new SimConfig(
        trainingServers,
        inferenceServers,
        GPUS_PER_SERVER,
        INFERENCE_GPU_SPEED,
        ROUND_INTERVAL_S,
        SAMPLE_INTERVAL_S,
        CHECKPOINT_INTERVAL_S,
        RESCALE_OVERHEAD_S,
        RESTART_OVERHEAD_S,
        RECLAIM_GRACE_S,
        HEADROOM,
        LOAN_MARGIN_SERVERS,
        SPEEDUP_EXPONENT,
        STARVATION_WAIT_S,
        0,
        TENANT_RECLAIM_DELAY_S,
        STARVATION_SHARE,
        STARVATION_LIGHT_SHARE,
        RELABEL_S,
        REPLICA_START_S,
        RECLAIM_LEAD_S,
        JobSpeedups.UNIFORM,
        ArylPolicy.ARYL_PLUS.preemption());
  }

  public SimConfig withInferenceGpuSpeed(double v) {
    return with(b -> b.inferenceGpuSpeed = v);
  }

  public SimConfig withGpusPerServer(int v) {
    return with(b -> b.gpusPerServer = v);
  }

  public SimConfig withRoundIntervalS(double v) {
    return with(b -> b.roundIntervalS = v);
  }

  public SimConfig withCheckpointIntervalS(double v) {
    return with(b -> b.checkpointIntervalS = v);
  }

  public SimConfig withReclaimGraceS(double v) {
    return with(b -> b.reclaimGraceS = v);
  }

  public SimConfig withStarvationWaitS(double v) {
    return with(b -> b.starvationWaitS = v);
  }

  public SimConfig withStarvationShare(double v) {
    return with(b -> b.starvationShare = v);
  }

  public SimConfig withStarvationLightShare(double v) {
    return with(b -> b.starvationLightShare = v);
  }

  public SimConfig withTenantReclaimDelayS(double v) {
    return with(b -> b.tenantReclaimDelayS = v);
  }

  public SimConfig withLoanMarginServers(int v) {
    return with(b -> b.loanMarginServers = v);
  }

  public SimConfig withRelabelS(double v) {
    return with(b -> b.relabelS = v);
  }

  public SimConfig withReplicaStartS(double v) {
    return with(b -> b.replicaStartS = v);
  }

  public SimConfig withReclaimLeadS(double v) {
    return with(b -> b.reclaimLeadS = v);
  }

  /**
   * The same world with a training pool of exactly {@code gpus} GPUs: whole servers of {@code
   * gpusPerServer}, and one smaller server for the rest.
   */
  public SimConfig withTrainingGpus(int gpus) {
    Checks.positive("trainingGpus", gpus);
    int servers = (gpus + gpusPerServer - 1) / gpusPerServer;
    return with(
        b -> {
          b.trainingServers = servers;
          b.lastTrainingServerGpus = gpus % gpusPerServer;
        });
  }

  public SimConfig withJobSpeedups(JobSpeedups v) {
    return with(b -> b.jobSpeedups = v);
  }

  public SimConfig withPreemption(CheckpointPreemption v) {
    return with(b -> b.preemption = v);
  }

  public SimConfig withInferenceServers(int v) {
    return with(b -> b.inferenceServers = v);
  }

  /**
   * This world with some constants changed: {@code change} sets them on a copy of every field, and
   * the result is checked as any other.
   */
  private SimConfig with(Consumer<Changes> change) {
    Changes b = new Changes(this);
    change.accept(b);
    return b.build();
  }

  /** The fields of a world being changed: the one place that copies them all. */
  private static final class Changes {
    int trainingServers;
    int inferenceServers;
    int gpusPerServer;
    double inferenceGpuSpeed;
    double roundIntervalS;
    double sampleIntervalS;
    double checkpointIntervalS;
    double rescaleOverheadS;
    double restartOverheadS;
    double reclaimGraceS;
    double headroom;
    int loanMarginServers;
    double speedupExponent;
    double starvationWaitS;
    int lastTrainingServerGpus;
    double tenantReclaimDelayS;
    double starvationShare;
    double starvationLightShare;
    double relabelS;
    double replicaStartS;
    double reclaimLeadS;
    JobSpeedups jobSpeedups;
    CheckpointPreemption preemption;

    Changes(SimConfig c) {
      this.trainingServers = c.trainingServers;
      this.inferenceServers = c.inferenceServers;
      this.gpusPerServer = c.gpusPerServer;
      this.inferenceGpuSpeed = c.inferenceGpuSpeed;
      this.roundIntervalS = c.roundIntervalS;
      this.sampleIntervalS = c.sampleIntervalS;
      this.checkpointIntervalS = c.checkpointIntervalS;
      this.rescaleOverheadS = c.rescaleOverheadS;
      this.restartOverheadS = c.restartOverheadS;
      this.reclaimGraceS = c.reclaimGraceS;
      this.headroom = c.headroom;
      this.loanMarginServers = c.loanMarginServers;
      this.speedupExponent = c.speedupExponent;
      this.starvationWaitS = c.starvationWaitS;
      this.lastTrainingServerGpus = c.lastTrainingServerGpus;
      this.tenantReclaimDelayS = c.tenantReclaimDelayS;
      this.starvationShare = c.starvationShare;
      this.starvationLightShare = c.starvationLightShare;
      this.relabelS = c.relabelS;
      this.replicaStartS = c.replicaStartS;
      this.reclaimLeadS = c.reclaimLeadS;
      this.jobSpeedups = c.jobSpeedups;
      this.preemption = c.preemption;
    }

    SimConfig build() {
      return new SimConfig(
          trainingServers,
          inferenceServers,
          gpusPerServer,
          inferenceGpuSpeed,
          roundIntervalS,
          sampleIntervalS,
          checkpointIntervalS,
          rescaleOverheadS,
          restartOverheadS,
          reclaimGraceS,
          headroom,
          loanMarginServers,
          speedupExponent,
          starvationWaitS,
          lastTrainingServerGpus,
          tenantReclaimDelayS,
          starvationShare,
          starvationLightShare,
          relabelS,
          replicaStartS,
          reclaimLeadS,
          jobSpeedups,
          preemption);
    }
  }

  /** GPUs of training server {@code i} (0-based). */
  public int trainingServerGpus(int i) {
    return i == trainingServers - 1 && lastTrainingServerGpus > 0
        ? lastTrainingServerGpus
        : gpusPerServer;
  }

  public int trainingGpus() {
    return lastTrainingServerGpus > 0
        ? (trainingServers - 1) * gpusPerServer + lastTrainingServerGpus
        : trainingServers * gpusPerServer;
  }

  public int inferenceGpus() {
    return inferenceServers * gpusPerServer;
  }
}
