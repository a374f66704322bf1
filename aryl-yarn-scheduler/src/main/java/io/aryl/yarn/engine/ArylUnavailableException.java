package io.aryl.yarn.engine;

/**
 * Aryl cannot take a request now (it is recovering, or its state store does not answer): ask again
 * shortly.
 */
public final class ArylUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ArylUnavailableException(String message) {
    super(message);
  }

  public ArylUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
