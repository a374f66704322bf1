package io.aryl.yarn.state;

import java.io.IOException;

/**
 * Stored state that cannot be read back: it names where it is and how to reset it, and nothing is
 * guessed.
 */
public final class CorruptStateException extends IOException {
  private static final long serialVersionUID = 1L;

  public CorruptStateException(String location, String problem, String reset, Throwable cause) {
    super(
        "Aryl's stored state at "
            + location
            + " is unreadable ("
            + problem
            + "). Nothing is guessed in its place: "
            + "fix or remove it, then start again. To reset: "
            + reset,
        cause);
  }
}
