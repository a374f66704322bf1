package io.aryl.yarnapp;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.GenericOptionsParser;
import org.apache.hadoop.yarn.exceptions.YarnException;
import picocli.CommandLine;

/**
 * The command line of a {@code yarn jar} client (aryl-am's, aryl-serve's): Hadoop's generic options
 * before the sub-command, picocli after it, and the exit statuses: {@value #OK} done, {@value
 * #FAILED} an error told in the words of whoever refused (the ResourceManager, a file system), one
 * line, no stack trace; {@value #USAGE} a user's mistake (picocli's usage and a message naming the
 * option and the value, or a {@link RefusedSubmission} in one line). Any other exception is a
 * defect in the client and keeps its stack trace.
 */
public final class ClientCommandLine {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;

  private ClientCommandLine() {}

  /**
   * Reads Hadoop's generic options ({@code -D key=value}, {@code -conf file}) into {@code conf} and
   * returns the other arguments. Generic options are read only before {@code --}: what follows is
   * the user's own command, whose options GenericOptionsParser (commons-cli) would take, and it
   * would drop the {@code --} too; both are kept as they are.
   */
  public static String[] withoutGenericOptions(Configuration conf, String... args)
      throws IOException {
    int end = Arrays.asList(args).indexOf("--");
    String[] rest =
        new GenericOptionsParser(conf, end < 0 ? args : Arrays.copyOfRange(args, 0, end))
            .getRemainingArgs();
    if (end >= 0) {
      String[] all = Arrays.copyOf(rest, rest.length + args.length - end);
      System.arraycopy(args, end, all, rest.length, args.length - end);
      rest = all;
    }
    return rest;
  }

  /**
   * Runs the picocli command {@code main} on {@code args} (generic options already read) and
   * returns its exit status.
   *
   * @param alsoTold exceptions besides YarnException and IOException that this client tells in one
   *     line with status {@value #FAILED} (e.g. aryl-serve's IllegalStateException for a service
   *     that is not running)
   */
  public static int execute(
      Object main,
      PrintStream out,
      PrintStream err,
      Predicate<Exception> alsoTold,
      String... args) {
    CommandLine cli = new CommandLine(main);
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cli.setExecutionExceptionHandler((e, line, parsed) -> report(e, line, alsoTold));
    return cli.execute(args);
  }

  private static int report(Exception e, CommandLine cli, Predicate<Exception> alsoTold)
      throws Exception {
    if (e instanceof RefusedSubmission) {
      cli.getErr().println(cli.getCommandName() + ": " + e.getMessage());
      return USAGE;
    }
    if (!(e instanceof YarnException) && !(e instanceof IOException) && !alsoTold.test(e)) {
      throw e;
    }
    cli.getErr().println(cli.getCommandName() + ": " + firstLine(e.getMessage()));
    return FAILED;
  }

  private static String firstLine(String message) {
    String m = String.valueOf(message);
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
