package io.aryl.yarn.state;

import java.io.IOException;

/**
 * A write refused because another scheduler claimed the store after this one: this one is no longer
 * active.
 */
public final class StoreFencedException extends IOException {
  private static final long serialVersionUID = 1L;

  public StoreFencedException(String message) {
    super(message);
  }

  public StoreFencedException(String message, Throwable cause) {
    super(message, cause);
  }
}
