package io.aryl.core.job;

/**
 * A job's shape breaks the job contract. The message names the tag and the value; the scheduler
 * rejects the application with it as the diagnostics.
 */
public final class InvalidJobShapeException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** What every message starts with, so that a submitter sees which contract was broken. */
  public static final String PREFIX = "invalid Aryl job shape: ";

  public InvalidJobShapeException(String message) {
    super(PREFIX + message);
  }
}
