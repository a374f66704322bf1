package io.aryl.api.body;

/**
 * A request that is refused as it stands ({@code 400}), with what was wrong: the field and the
 * value.
 */
public final class BadRequestException extends Exception {
  private static final long serialVersionUID = 1L;

  public BadRequestException(String message) {
    super(message);
  }
}
