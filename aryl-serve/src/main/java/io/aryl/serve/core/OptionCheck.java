package io.aryl.serve.core;

/**
 * The refusal of an option's value below its least, in the words every check of the service's
 * options uses: the option, the bound and the value ({@code --gpus must be >= 0, was -1}).
 */
public final class OptionCheck {
  private OptionCheck() {}

  /**
   * Refuses {@code value} of {@code option} when it is below {@code least}.
   *
   * @throws IllegalArgumentException naming the option, the least and the value
   */
  public static void atLeast(String option, long value, long least) {
    if (value < least) {
      throw new IllegalArgumentException(option + " must be >= " + least + ", was " + value);
    }
  }
}
