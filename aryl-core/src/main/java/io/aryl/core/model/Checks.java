package io.aryl.core.model;

/**
 * Argument checks whose messages name the field and the offending value, so that a bad job spec or
 * a bad configuration can be fixed from the message alone.
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

  /*
   * The same checks for a field of one named thing, e.g. ("job", id, "remainingS") for "job(<id>).remainingS": the
   * name is put together only for the message, as these run for every job of every round.
   */

  public static String notBlank(String owner, String id, String field, String value) {
    return value == null || value.isBlank() ? notBlank(name(owner, id, field), value) : value;
  }

  public static int positive(String owner, String id, String field, int value) {
    return value <= 0 ? positive(name(owner, id, field), value) : value;
  }

  public static double nonNegative(String owner, String id, String field, double value) {
    return !(value >= 0) || Double.isInfinite(value)
        ? nonNegative(name(owner, id, field), value)
        : value;
  }

  public static <T> T notNull(String owner, String id, String field, T value) {
    return value == null ? notNull(name(owner, id, field), value) : value;
  }

  private static String name(String owner, String id, String field) {
    return owner + "(" + id + ")." + field;
  }

  private static String quote(String s) {
    return s == null ? "null" : "'" + s + "'";
  }
}
