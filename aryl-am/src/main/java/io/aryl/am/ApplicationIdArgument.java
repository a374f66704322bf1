package io.aryl.am;

import org.apache.hadoop.yarn.api.records.ApplicationId;

/**
 * The APPLICATION_ID argument of {@code status} and {@code kill}, and what they say when it names
 * no application.
 */
final class ApplicationIdArgument {
  private ApplicationIdArgument() {}

  /**
   * @throws IllegalArgumentException naming the command and the text when it is not an application
   *     id
   */
  static ApplicationId parse(String command, String text) {
    try {
      return ApplicationId.fromString(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          command
              + ": '"
              + text
              + "' is not an application id (application_<cluster timestamp>_<number>)");
    }
  }

  /**
   * The message for an id the ResourceManager does not know (never submitted, or forgotten since it
   * ended).
   */
  static String unknown(String command, ApplicationId id) {
    return command + ": no application " + id + " in the ResourceManager";
  }
}
