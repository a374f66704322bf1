package io.aryl.yarnapp;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The APPLICATION_ID argument of the clients' {@code status} and {@code kill} (and aryl-serve's
 * {@code loadgen --app}), and what they say when it names no application.
 */
public final class ApplicationIdArgument {
  private ApplicationIdArgument() {}

  /**
   * The application id {@code text} names, as YARN writes it.
   *
   * @throws IllegalArgumentException naming the command and the text when it is not an application
   *     id
   */
  public static ApplicationId parse(String command, String text) {
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
   * {@link #parse} for a picocli command: a malformed id is a usage error (exit status {@value
   * ClientCommandLine#USAGE}).
   */
  public static ApplicationId of(CommandSpec command, String text) {
    try {
      return parse(command.name(), text);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(command.commandLine(), e.getMessage());
    }
  }

  /**
   * The message for an id the ResourceManager does not know (never submitted, or forgotten since it
   * ended).
   */
  public static String unknown(String command, ApplicationId id) {
    return command + ": no application " + id + " in the ResourceManager";
  }
}
