package io.aryl.serve.loadgen;

/**
 * One request the load generator sent, as one line of its output file (JSON lines, these field
 * names).
 *
 * @param seq its number, in order of sending, from 0
 * @param sentS when it was due, seconds from the run's start (its arrival time)
 * @param latencyMs from its due time to its answer (or to the timeout); 0 for {@code NO_REPLICA}
 * @param outcome what came of it
 * @param replica the endpoint it went to; {@code ""} for {@code NO_REPLICA}
 * @param httpStatus the answer's status; 0 without an answer
 */
public record RequestRecord(
    long seq, double sentS, double latencyMs, Outcome outcome, String replica, int httpStatus) {
  /** What came of a request. */
  public enum Outcome {
    /** A 2xx answer. */
    OK,
    /** Another answer, or the connection failed. */
    ERROR,
    /** No answer within {@code --timeout-ms}. */
    TIMEOUT,
    /** The service listed no endpoint when it was due: not sent. */
    NO_REPLICA
  }
}
