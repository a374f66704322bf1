package io.aryl.core.model;

/**
 * Argument checks whose messages name the field and the offending value, so that a bad job spec or a bad
 * configuration can be fixed from the message alone.
 */
public final class Checks {
  private Checks() {}

  public static String notBlank(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank, was " + quote(value));
    }
    return value;
  }

  public static int positive(String field, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(field + " must be > 0, was " + value);
    }
    return value;
  }

  public static int nonNegative(String field, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(field + " must be >= 0, was " + value);
    }
    return value;
  }

  public static double nonNegative(String field, double value) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(field + " must be a finite number >= 0, was " + value);
    }
    return value;
  }

  public static double positive(String field, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(field + " must be a finite number > 0, was " + value);
    }
    return value;
  }

  public static double fraction(String field, double value) {
    if (!(value >= 0 && value <= 1)) {
      throw new IllegalArgumentException(field + " must be within [0, 1], was " + value);
    }
    return value;
  }

  public static <T> T notNull(String field, T value) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    return value;
  }

  private static String quote(String s) {
    return s == null ? "null" : "'" + s + "'";
  }
}
