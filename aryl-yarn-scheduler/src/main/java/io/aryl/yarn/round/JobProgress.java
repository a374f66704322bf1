package io.aryl.yarn.round;

/**
 * How far a job has come, as the scheduler measures it between rounds.
 *
 * @param attainedBaseS seconds of work done, counted at the pace of its minimum width
 * @param sinceChangeS seconds since its workers last changed: what a restart from its last
 *     checkpoint would lose when workers checkpoint on every membership change
 */
public record JobProgress(double attainedBaseS, double sinceChangeS) {
  public static final JobProgress NONE = new JobProgress(0, 0);
}
