package io.aryl.yarn.round;

/**
 * How far a job has come, as the scheduler measures it between rounds, and how often it was stopped
 * on the way.
 *
 * @param attainedBaseS seconds of work done, counted at the pace of its minimum width
 * @param sinceChangeS seconds since its workers last changed: what a restart from its last
 *     checkpoint would lose when workers checkpoint on every membership change
 * @param preemptions times the scheduler stopped the job as a whole (for a shorter job, a reclaim
 *     or a team's guarantee): aryl-core's {@code Job.preemptions}, which bounds how often aryl+
 *     stops it for a shorter job
 */
public record JobProgress(double attainedBaseS, double sinceChangeS, int preemptions) {
  public static final JobProgress NONE = new JobProgress(0, 0, 0);

  /** A job never stopped. */
  public JobProgress(double attainedBaseS, double sinceChangeS) {
    this(attainedBaseS, sinceChangeS, 0);
  }

  /** This progress with one more preemption. */
  public JobProgress preempted() {
    return new JobProgress(attainedBaseS, sinceChangeS, preemptions + 1);
  }
}
