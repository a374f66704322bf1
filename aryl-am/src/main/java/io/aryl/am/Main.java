package io.aryl.am;

import io.aryl.yarnapp.ApplicationIdArgument;
import io.aryl.yarnapp.ClientCommandLine;
import io.aryl.yarnapp.RefusedSubmission;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The client: {@code yarn jar aryl-am-<version>.jar [-D key=value]... submit|status|list|kill ...}
 * (the jar's Main-Class). Exit status: 0 done, 1 job failed (with --wait) or an error, 2 bad
 * arguments (nothing runs): a malformed option, a job the cluster cannot run ({@link
 * SubmissionChecks}), a submission the ResourceManager refused ({@link RefusedSubmission}: a
 * queue's ACL, an Aryl shape it rejects), or an application id that names none.
 */
@Command(
    name = "aryl-am",
    mixinStandardHelpOptions = true,
    version = "aryl-am",
    description = "Elastic training jobs on YARN with the Aryl scheduler.",
    subcommands = {
      SubmitCommand.class,
      Main.StatusCommand.class,
      Main.ListCommand.class,
      Main.KillCommand.class
    })
public final class Main implements Callable<Integer> {
  private final Configuration conf;
  private final PrintStream out;

  Main(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  Configuration conf() {
    return conf;
  }

  PrintStream out() {
    return out;
  }

  public static void main(String[] args) throws Exception {
    System.exit(run(new YarnConfiguration(), System.out, System.err, args));
  }

  /**
   * Runs the client with this configuration; generic options (-D, -conf) come before the
   * sub-command, never after {@code --} (the worker command's own). A submission the
   * ResourceManager refused is told in its words with exit status 2, as a job the cluster cannot
   * run is; what else it or a file system refused, in its words with exit status 1 ({@link
   * ClientCommandLine}).
   */
  public static int run(Configuration conf, PrintStream out, PrintStream err, String... args)
      throws Exception {
    Configuration c = new YarnConfiguration(conf);
    String[] rest = ClientCommandLine.withoutGenericOptions(c, args);
    return ClientCommandLine.execute(new Main(c, out), out, err, e -> false, rest);
  }

  @Override
  public Integer call() {
    CommandLine.usage(this, out);
    return 2;
  }

  @Command(name = "status", description = "Show a job's state, progress and tracking URL.")
  static final class StatusCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Parameters(paramLabel = "APPLICATION_ID")
    String id;

    @Spec CommandSpec commandSpec;

    @Override
    public Integer call() throws Exception {
      ApplicationId appId = ApplicationIdArgument.of(commandSpec, id);
      try (JobSubmitter s = new JobSubmitter(main.conf())) {
        ApplicationReport r;
        try {
          r = s.report(appId);
        } catch (ApplicationNotFoundException e) {
          throw new ParameterException(
              commandSpec.commandLine(), ApplicationIdArgument.unknown("status", appId));
        }
        PrintStream o = main.out();
        o.println("application: " + r.getApplicationId());
        o.println("name:        " + r.getName());
        o.println("queue:       " + r.getQueue());
        o.println("state:       " + r.getYarnApplicationState());
        o.println("final:       " + r.getFinalApplicationStatus());
        o.println("progress:    " + Math.round(r.getProgress() * 100) + "%");
        o.println("tracking:    " + r.getTrackingUrl());
        o.println("tags:        " + String.join(",", r.getApplicationTags()));
        o.println("diagnostics: " + r.getDiagnostics());
        return 0;
      }
    }
  }

  @Command(name = "list", description = "List Aryl jobs (running ones, or all with --all).")
  static final class ListCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Option(names = "--all", description = "Finished jobs too.")
    boolean all;

    @Override
    public Integer call() throws Exception {
      try (JobSubmitter s = new JobSubmitter(main.conf())) {
        for (ApplicationReport r : s.list(all)) {
          main.out()
              .printf(
                  "%s\t%s\t%s\t%s\t%s%n",
                  r.getApplicationId(),
                  r.getName(),
                  r.getQueue(),
                  r.getYarnApplicationState(),
                  r.getFinalApplicationStatus());
        }
        return 0;
      }
    }
  }

  @Command(name = "kill", description = "Kill a job.")
  static final class KillCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Parameters(paramLabel = "APPLICATION_ID")
    String id;

    @Spec CommandSpec commandSpec;

    @Override
    public Integer call() throws Exception {
      ApplicationId appId = ApplicationIdArgument.of(commandSpec, id);
      try (JobSubmitter s = new JobSubmitter(main.conf())) {
        try {
          s.kill(appId);
        } catch (ApplicationNotFoundException e) {
          throw new ParameterException(
              commandSpec.commandLine(), ApplicationIdArgument.unknown("kill", appId));
        }
        main.out().println("killed " + appId);
        return 0;
      }
    }
  }
}
