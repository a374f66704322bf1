package io.aryl.demo;

/**
 * What became of one job in one run. Times are milliseconds from the start of the run; -1 when it
 * did not happen.
 *
 * @param name the job's name
 * @param applicationId its YARN application id, "" if never submitted
 * @param elastic whether it was elastic
 * @param submitMs when it was submitted
 * @param startMs when it first held its base gang (its minimum workers)
 * @param endMs when it ended
 * @param finalState SUCCEEDED, FAILED, KILLED, or UNFINISHED when the run ended first
 */
public record JobOutcome(
    String name,
    String applicationId,
    boolean elastic,
    long submitMs,
    long startMs,
    long endMs,
    String finalState) {

  public boolean started() {
    return startMs >= 0;
  }

  public boolean ended() {
    return endMs >= 0;
  }

  public boolean succeeded() {
    return "SUCCEEDED".equals(finalState);
  }

  /**
   * Queuing time, ms: submission to base gang held; a job still waiting at {@code cutoffMs} counts
   * until then.
   */
  public long queuingMs(long cutoffMs) {
    return (started() ? startMs : Math.max(cutoffMs, submitMs)) - submitMs;
  }

  /**
   * Completion time, ms: submission to end; a job not ended at {@code cutoffMs} counts until then.
   */
  public long jctMs(long cutoffMs) {
    return (ended() ? endMs : Math.max(cutoffMs, submitMs)) - submitMs;
  }
}
