package io.aryl.core.model;

import io.aryl.core.speedup.SpeedupModel;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * A training job as the scheduler sees it at one moment: its shape (GPUs per worker, min..max
 * workers, allowed GPU types), how it scales, and how much work remains.
 *
 * <p>Work is measured in <em>base-seconds</em>: seconds of running at {@code minWorkers} workers on
 * reference-speed GPUs. At {@code n} workers a job needs {@code remaining * throughput(min) /
 * throughput(n)} seconds.
 *
 * <p>{@link #remainingS()} is the truth (a simulator knows it; a real cluster does not), {@link
 * #predictedRemainingS()} is what the scheduler believes and the only one its decisions read.
 */
public final class Job {
  private final String id;
  private final String kind;
  private final String tenant;
  private final double submitTimeS;
  private final int gpusPerWorker;
  private final int minWorkers;
  private final int maxWorkers;
  private final Set<String> allowedGpuTypes;
  private final double remainingS;
  private final double predictedRemainingS;
  private final boolean predictionGiven;
  private final double attainedS;
  private final double sinceCheckpointS;
  private final int preemptions;
  private final SpeedupModel speedup;
  // Made on first use, as String's is (racy but safe: any thread computes the same value): a round
  // builds a value
  // for every job, and only few are ever put in a map.
  private int hash;

  private Job(Builder b) {
    this.id = Checks.notBlank("job.id", b.id);
    this.kind = b.kind == null ? "" : b.kind;
    this.tenant = Checks.notNull("job", id, "tenant", b.tenant).strip();
    this.submitTimeS = Checks.nonNegative("job", id, "submitTimeS", b.submitTimeS);
    this.gpusPerWorker = Checks.positive("job", id, "gpusPerWorker", b.gpusPerWorker);
    this.minWorkers = Checks.positive("job", id, "minWorkers", b.minWorkers);
    this.maxWorkers = Checks.positive("job", id, "maxWorkers", b.maxWorkers);
    if (maxWorkers < minWorkers) {
      throw new IllegalArgumentException(
          "job("
              + id
              + ").minWorkers must be <= maxWorkers, was minWorkers="
              + minWorkers
              + ", maxWorkers="
              + maxWorkers);
    }
    this.allowedGpuTypes = sortedTypes(id, b.allowedGpuTypes);
    this.remainingS = Checks.nonNegative("job", id, "remainingS", b.remainingS);
    this.predictionGiven = b.predictionGiven;
    this.predictedRemainingS =
        Checks.nonNegative(
            "job", id, "predictedRemainingS", predictionGiven ? b.predictedRemainingS : remainingS);
    this.attainedS = Checks.nonNegative("job", id, "attainedS", b.attainedS);
    this.sinceCheckpointS = Checks.nonNegative("job", id, "sinceCheckpointS", b.sinceCheckpointS);
    if (b.preemptions < 0) {
      throw new IllegalArgumentException(
          "job(" + id + ").preemptions must be >= 0, was " + b.preemptions);
    }
    this.preemptions = b.preemptions;
    this.speedup = Checks.notNull("job", id, "speedup", b.speedup);
  }

  /**
   * {@code base} with other progress: its shape was checked when it was built, only the new values
   * are.
   */
  private Job(
      Job base,
      double remainingS,
      double predictedRemainingS,
      double attainedS,
      double sinceCheckpointS) {
    this.id = base.id;
    this.kind = base.kind;
    this.tenant = base.tenant;
    this.submitTimeS = base.submitTimeS;
    this.gpusPerWorker = base.gpusPerWorker;
    this.minWorkers = base.minWorkers;
    this.maxWorkers = base.maxWorkers;
    this.allowedGpuTypes = base.allowedGpuTypes;
    this.speedup = base.speedup;
    this.preemptions = base.preemptions;
    this.remainingS = Checks.nonNegative("job", id, "remainingS", remainingS);
    this.predictionGiven = true;
    this.predictedRemainingS =
        Checks.nonNegative("job", id, "predictedRemainingS", predictedRemainingS);
    this.attainedS = Checks.nonNegative("job", id, "attainedS", attainedS);
    this.sinceCheckpointS = Checks.nonNegative("job", id, "sinceCheckpointS", sinceCheckpointS);
  }

  /**
   * This job with new progress, as {@code toBuilder()} with these four values set would build it:
   * for a caller that makes a value of every job for every round (a simulator), at the cost of
   * checking only what changed.
   */
  public Job withProgress(
      double remainingS, double predictedRemainingS, double attainedS, double sinceCheckpointS) {
    return new Job(this, remainingS, predictedRemainingS, attainedS, sinceCheckpointS);
  }

  /** The allowed types, checked and sorted; the common "any type" shares one empty set. */
  private static Set<String> sortedTypes(String id, Set<String> given) {
    if (given.isEmpty()) {
      return Set.of();
    }
    TreeSet<String> types = new TreeSet<>();
    for (String t : given) {
      types.add(Checks.notBlank("job", id, "allowedGpuTypes[]", t));
    }
    return Collections.unmodifiableSet(types);
  }

  /** {@code Objects.hash} of these fields, without boxing them. */
  private static int hash(
      String id,
      double submitTimeS,
      int gpusPerWorker,
      int minWorkers,
      int maxWorkers,
      double remainingS,
      double predictedRemainingS) {
    int h = 31 + id.hashCode();
    h = 31 * h + Double.hashCode(submitTimeS);
    h = 31 * h + gpusPerWorker;
    h = 31 * h + minWorkers;
    h = 31 * h + maxWorkers;
    h = 31 * h + Double.hashCode(remainingS);
    return 31 * h + Double.hashCode(predictedRemainingS);
  }

  public static Builder builder(String id) {
    return new Builder(id);
  }

  public Builder toBuilder() {
    Builder b = new Builder(id);
    b.kind = kind;
    b.tenant = tenant;
    b.submitTimeS = submitTimeS;
    b.gpusPerWorker = gpusPerWorker;
    b.minWorkers = minWorkers;
    b.maxWorkers = maxWorkers;
    b.allowedGpuTypes = allowedGpuTypes;
    b.remainingS = remainingS;
    b.predictedRemainingS = predictedRemainingS;
    b.predictionGiven = predictionGiven;
    b.attainedS = attainedS;
    b.sinceCheckpointS = sinceCheckpointS;
    b.preemptions = preemptions;
    b.speedup = speedup;
    return b;
  }

  public String id() {
    return id;
  }

  /**
   * What makes jobs alike for history-based prediction (a model name, a user, a GPU count); may be
   * empty.
   */
  public String kind() {
    return kind;
  }

  /**
   * The team the job belongs to (a sub-queue of the training queue, see {@link Tenants}); empty for
   * the implicit tenant of a pool without teams.
   */
  public String tenant() {
    return tenant;
  }

  public double submitTimeS() {
    return submitTimeS;
  }

  public int gpusPerWorker() {
    return gpusPerWorker;
  }

  public int minWorkers() {
    return minWorkers;
  }

  public int maxWorkers() {
    return maxWorkers;
  }

  public boolean isElastic() {
    return maxWorkers > minWorkers;
  }

  /** GPUs of the base (minimum) gang. */
  public int baseGpus() {
    return minWorkers * gpusPerWorker;
  }

  /** GPU type names this job may run on; empty means any. */
  public Set<String> allowedGpuTypes() {
    return allowedGpuTypes;
  }

  public boolean allows(GpuType type) {
    return allowedGpuTypes.isEmpty() || allowedGpuTypes.contains(type.name());
  }

  /** True remaining work in base-seconds. */
  public double remainingS() {
    return remainingS;
  }

  /** Predicted remaining work in base-seconds: what the scheduler orders and prices by. */
  public double predictedRemainingS() {
    return predictedRemainingS;
  }

  /** Work done so far in base-seconds. */
  public double attainedS() {
    return attainedS;
  }

  /** Wall-clock seconds of progress since the last checkpoint: what a preemption throws away. */
  public double sinceCheckpointS() {
    return sinceCheckpointS;
  }

  /**
   * How many times the job has been stopped and sent back to the queue so far: a job that has been
   * preempted its budget's worth of times is not preempted again for a shorter one ({@link
   * io.aryl.core.admission.CheckpointPreemption}), so that a long job cannot be stopped over and
   * over.
   */
  public int preemptions() {
    return preemptions;
  }

  public SpeedupModel speedup() {
    return speedup;
  }

  /** Predicted seconds to finish at {@code workers} workers on reference-speed GPUs. */
  public double predictedRuntimeAt(int workers) {
    return predictedRemainingS * speedup.throughput(minWorkers) / speedup.throughput(workers);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Job j)) {
      return false;
    }
    return id.equals(j.id)
        && kind.equals(j.kind)
        && tenant.equals(j.tenant)
        && submitTimeS == j.submitTimeS
        && gpusPerWorker == j.gpusPerWorker
        && minWorkers == j.minWorkers
        && maxWorkers == j.maxWorkers
        && allowedGpuTypes.equals(j.allowedGpuTypes)
        && remainingS == j.remainingS
        && predictedRemainingS == j.predictedRemainingS
        && attainedS == j.attainedS
        && sinceCheckpointS == j.sinceCheckpointS
        && preemptions == j.preemptions
        && speedup.equals(j.speedup);
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      h =
          hash(
              id,
              submitTimeS,
              gpusPerWorker,
              minWorkers,
              maxWorkers,
              remainingS,
              predictedRemainingS);
      hash = h;
    }
    return h;
  }

  @Override
  public String toString() {
    return "Job["
        + id
        + (tenant.isEmpty() ? "" : " of " + tenant)
        + " "
        + gpusPerWorker
        + "gpu x "
        + minWorkers
        + ".."
        + maxWorkers
        + (allowedGpuTypes.isEmpty() ? "" : " on " + allowedGpuTypes)
        + ", predicted "
        + Math.round(predictedRemainingS)
        + "s]";
  }

  /** Builds a {@link Job}; every field is checked by {@link #build()}. */
  public static final class Builder {
    private final String id;
    private String kind = "";
    private String tenant = "";
    private double submitTimeS;
    private int gpusPerWorker = 1;
    private int minWorkers = 1;
    private int maxWorkers = 1;
    private Set<String> allowedGpuTypes = Set.of();
    private double remainingS;
    private double predictedRemainingS;
    private boolean predictionGiven;
    private double attainedS;
    private double sinceCheckpointS;
    private int preemptions;
    private SpeedupModel speedup = SpeedupModel.linear();

    private Builder(String id) {
      this.id = id;
    }

    public Builder kind(String kind) {
      this.kind = kind;
      return this;
    }

    /**
     * The job's team; empty (the default) for the implicit tenant. Surrounding blanks are dropped.
     */
    public Builder tenant(String tenant) {
      this.tenant = tenant;
      return this;
    }

    public Builder submitTimeS(double submitTimeS) {
      this.submitTimeS = submitTimeS;
      return this;
    }

    public Builder gpusPerWorker(int gpusPerWorker) {
      this.gpusPerWorker = gpusPerWorker;
      return this;
    }

    /** min..max workers; equal for an inelastic job. */
    public Builder workers(int minWorkers, int maxWorkers) {
      this.minWorkers = minWorkers;
      this.maxWorkers = maxWorkers;
      return this;
    }

    public Builder allowedGpuTypes(Set<String> allowedGpuTypes) {
      this.allowedGpuTypes = Checks.notNull("job(" + id + ").allowedGpuTypes", allowedGpuTypes);
      return this;
    }

    public Builder allowedGpuTypes(String... names) {
      Checks.notNull("job(" + id + ").allowedGpuTypes", names);
      return allowedGpuTypes(new TreeSet<>(java.util.Arrays.asList(names)));
    }

    public Builder remainingS(double remainingS) {
      this.remainingS = remainingS;
      return this;
    }

    /**
     * What the scheduler believes remains. When never set, it follows the true remaining work (an
     * oracle), also across {@link Job#toBuilder()} copies that change the truth.
     */
    public Builder predictedRemainingS(double predictedRemainingS) {
      this.predictedRemainingS = predictedRemainingS;
      this.predictionGiven = true;
      return this;
    }

    public Builder attainedS(double attainedS) {
      this.attainedS = attainedS;
      return this;
    }

    public Builder sinceCheckpointS(double sinceCheckpointS) {
      this.sinceCheckpointS = sinceCheckpointS;
      return this;
    }

    /** Times the job was preempted so far ({@link Job#preemptions()}); 0 by default. */
    public Builder preemptions(int preemptions) {
      this.preemptions = preemptions;
      return this;
    }

    public Builder speedup(SpeedupModel speedup) {
      this.speedup = speedup;
      return this;
    }

    public Job build() {
      return new Job(this);
    }
  }
}
