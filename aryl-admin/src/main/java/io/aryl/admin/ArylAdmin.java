package io.aryl.admin;

import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.ErrorBody;
import io.aryl.api.reclaim.ReclaimRequest;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.labels.ActiveRmWebApp;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code aryl-admin}: the operator's view of ArylScheduler through the active ResourceManager's
 * {@code /ws/v1/cluster/aryl} ({@code status}, {@code nodes}) and reclaims on demand ({@code
 * reclaim}), read and written as aryl-api's records ({@link SchedulerStatus}, {@link
 * ReclaimRequest}, {@link ReclaimStatus}). The ResourceManager is found from the Hadoop
 * configuration as the loan controller finds it ({@link ActiveRmWebApp}: every RM of an HA pair,
 * following failovers). {@link #run} is the whole program; {@link #main} only exits with its code.
 */
@Command(
    name = "aryl-admin",
    mixinStandardHelpOptions = true,
    version = "aryl-admin 0.1",
    description =
        "The operator's view of Aryl: pools, loans, reclaims and elastic jobs, and reclaims on demand,"
            + " from the active ResourceManager (yarn.resourcemanager.webapp.address, every rm-id with HA).",
    subcommands = {ArylAdmin.Status.class, ArylAdmin.Nodes.class, ArylAdmin.Reclaim.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:done",
      "1:the ResourceManager refused (its error is printed): Aryl is not its scheduler, the caller is not a YARN"
          + " admin, a reclaim it cannot do, or it is recovering",
      "2:bad usage: an unknown command or option, a bad value (the message names the option and the value), a"
          + " configuration that names no usable ResourceManager address",
      "3:no ResourceManager answered (the message lists the addresses tried)"
    })
public final class ArylAdmin implements Callable<Integer> {
  public static final int OK = 0;
  public static final int REFUSED = 1;
  public static final int USAGE = 2;
  public static final int UNREACHABLE = 3;

  @Spec CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs one command; returns its exit code. Nothing is thrown and nothing exits the JVM. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, System::currentTimeMillis);
  }

  static int run(String[] args, PrintStream out, PrintStream err, LongSupplier clock) {
    PrintWriter o = new PrintWriter(out, true, StandardCharsets.UTF_8);
    PrintWriter e = new PrintWriter(err, true, StandardCharsets.UTF_8);
    CommandLine cl = new CommandLine(new ArylAdmin(), new Factory(clock));
    cl.setOut(o);
    cl.setErr(e);
    cl.setParameterExceptionHandler(
        (ex, a) -> {
          CommandLine c = ex.getCommandLine();
          String name = c.getCommandSpec().qualifiedName();
          c.getErr().println(name + ": " + oneLine(ex.getMessage()));
          c.getErr().println("Try '" + name + " --help' for more information.");
          return USAGE;
        });
    cl.setExecutionExceptionHandler(
        (ex, c, parsed) -> {
          c.getErr()
              .println(c.getCommandSpec().qualifiedName() + ": " + oneLine(String.valueOf(ex)));
          return REFUSED;
        });
    try {
      return cl.execute(args);
    } finally {
      o.flush();
      e.flush();
    }
  }

  /** Without a command: the usage, and exit 2. */
  @Override
  public Integer call() {
    spec.commandLine().getErr().println("aryl-admin: name a command: status, nodes or reclaim");
    spec.commandLine().usage(spec.commandLine().getErr());
    return USAGE;
  }

  /** Gives each command the clock, for deadlines and "in 4m59s". */
  private record Factory(LongSupplier clock) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> cls) throws Exception {
      K k = CommandLine.defaultFactory().create(cls);
      if (k instanceof Base b) {
        b.clock = clock;
      }
      return k;
    }
  }

  /** A command that ends with this exit code and this one-line message. */
  static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;
    final int code;

    Failure(int code, String message) {
      super(message);
      this.code = code;
    }
  }

  /**
   * Where the configuration and the ResourceManager come from, and the output form: every command's
   * options.
   */
  static final class Common {
    @Option(
        names = "--conf",
        paramLabel = "FILE",
        description =
            "A Hadoop configuration file to add (yarn-site.xml);"
                + " repeatable. Without it, yarn-site.xml on the class path ($HADOOP_CONF_DIR with bin/aryl-admin).")
    List<Path> files = new ArrayList<>();

    @Option(
        names = "-D",
        paramLabel = "KEY=VALUE",
        description =
            "A configuration property to set, e.g."
                + " -D yarn.resourcemanager.webapp.address=rm1:8088.")
    Map<String, String> props = Map.of();

    @Option(
        names = "--rm",
        paramLabel = "URL[,URL...]",
        description =
            "The ResourceManager web app(s) to ask,"
                + " http(s)://host:port, instead of those the configuration names.")
    String rm;

    @Option(names = "--json", description = "Print the ResourceManager's JSON answer as it came.")
    boolean json;

    Configuration conf() throws Failure {
      YarnConfiguration conf = new YarnConfiguration();
      for (Path p : files) {
        if (!Files.isReadable(p)) {
          throw new Failure(USAGE, "--conf: no such readable file: " + p);
        }
        conf.addResource(new org.apache.hadoop.fs.Path(p.toAbsolutePath().toUri()));
      }
      props.forEach(conf::set);
      return conf;
    }

    Rm connect() throws Failure {
      Configuration conf = conf();
      List<URI> candidates;
      try {
        candidates =
            rm != null
                ? ActiveRmWebApp.parseCandidates("--rm", rm)
                : ActiveRmWebApp.candidates(conf);
      } catch (IllegalArgumentException e) {
        throw new Failure(USAGE, e.getMessage());
      } catch (RuntimeException e) { // Hadoop's parse errors in a --conf file
        throw new Failure(
            USAGE, "cannot read the configuration: " + oneLine(String.valueOf(e.getMessage())));
      }
      return new Rm(ActiveRmWebApp.of(candidates), userName(conf));
    }

    /**
     * The caller's name for Hadoop's simple HTTP authentication ({@code ?user.name=}, as Hadoop's
     * own clients send it), or null under Kerberos, where the web app authenticates by SPNEGO
     * instead.
     */
    static String userName(Configuration conf) throws Failure {
      if (SecurityUtil.getAuthenticationMethod(conf)
          != UserGroupInformation.AuthenticationMethod.SIMPLE) {
        return null;
      }
      try {
        return UserGroupInformation.getCurrentUser().getShortUserName();
      } catch (IOException e) {
        throw new Failure(
            USAGE, "cannot tell the current user: " + oneLine(String.valueOf(e.getMessage())));
      }
    }
  }

  /** The active ResourceManager's web app, as this caller. */
  record Rm(ActiveRmWebApp web, String user) {
    /** A 2xx answer: who answered, what was asked, and the body as it came. */
    record Reply(URI rm, String method, String path, int status, String body) {
      /**
       * The body as the record it is, read leniently (fields this version does not know are
       * skipped).
       */
      <T> T read(Class<T> type) throws Failure {
        try {
          return ArylJson.read(body, type);
        } catch (IOException notTheRecord) {
          throw new Failure(
              REFUSED,
              "the ResourceManager at "
                  + rm
                  + " answered "
                  + method
                  + " "
                  + path
                  + " ("
                  + status
                  + ") with no "
                  + type.getSimpleName()
                  + ": "
                  + oneLine(abbreviate(body)));
        }
      }
    }

    Reply call(String method, String path, String body) throws Failure {
      String query =
          user == null ? "" : "?user.name=" + URLEncoder.encode(user, StandardCharsets.UTF_8);
      ActiveRmWebApp.Answer a;
      try {
        a = web.send(method, path + query, body);
      } catch (IOException e) {
        String detail =
            oneLine(String.valueOf(e.getMessage()))
                .replace(query, "")
                .replaceAll("ConnectException(?=;|$)", "ConnectException (connection refused)");
        String msg =
            "no ResourceManager answered (tried " + join(web.candidates()) + "): " + detail;
        if (!"GET".equals(method) && !neverDelivered(e)) {
          msg += "; the request may have reached it: check with aryl-admin status";
        }
        throw new Failure(UNREACHABLE, msg);
      }
      if (a.status() / 100 != 2) {
        throw new Failure(
            REFUSED,
            "the ResourceManager at "
                + a.rm()
                + " refused "
                + method
                + " "
                + path
                + " ("
                + a.status()
                + "): "
                + oneLine(error(a.body())));
      }
      return new Reply(a.rm(), method, path, a.status(), a.body());
    }

    /**
     * The refusal's {@code error}, or the start of the body when it is not an {@link ErrorBody}.
     */
    private static String error(String body) {
      try {
        ErrorBody e = body == null || body.isBlank() ? null : ArylJson.read(body, ErrorBody.class);
        if (e != null && e.error() != null) {
          return e.error();
        }
      } catch (IOException notJson) {
        // an HTML page, a proxy's text: quoted below
      }
      return abbreviate(body);
    }

    private static boolean neverDelivered(IOException e) {
      if (String.valueOf(e.getMessage()).startsWith("no active ResourceManager")) {
        return true;
      }
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof ConnectException
            || t instanceof HttpConnectTimeoutException
            || t instanceof UnresolvedAddressException) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * What every command shares: its options, the clock, and turning a {@link Failure} into a line
   * and a code.
   */
  abstract static class Base implements Callable<Integer> {
    @Mixin Common common = new Common();
    @Spec CommandSpec spec;
    LongSupplier clock = System::currentTimeMillis;

    abstract void run(PrintWriter out) throws Failure;

    @Override
    public final Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try {
        run(out);
        out.flush();
        return OK;
      } catch (Failure f) {
        out.flush();
        spec.commandLine().getErr().println(spec.qualifiedName() + ": " + f.getMessage());
        return f.code;
      }
    }

    void print(PrintWriter out, Rm.Reply r, String human) {
      out.print(common.json ? r.body().strip() + "\n" : human);
    }
  }

  static final String EXIT_CODES =
      "%nExit codes: 0 done, 1 the ResourceManager refused, 2 bad usage or option,"
          + " 3 no ResourceManager answered (see aryl-admin --help).";

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      footer = EXIT_CODES,
      description =
          "Pools (nodes and GPUs, on loan, fenced), reclaims in flight and the last done, and the elastic"
              + " jobs' min/target/actual/max workers, from GET /ws/v1/cluster/aryl.")
  static final class Status extends Base {
    @Override
    void run(PrintWriter out) throws Failure {
      Rm.Reply r = common.connect().call("GET", ArylPaths.STATUS, null);
      print(out, r, Views.status(r.read(SchedulerStatus.class), clock.getAsLong()));
    }
  }

  @Command(
      name = "nodes",
      mixinStandardHelpOptions = true,
      footer = EXIT_CODES,
      description =
          "One row per node: label, owner pool, GPU type, GPUs and GPUs in use, on loan, fenced.")
  static final class Nodes extends Base {
    @Override
    void run(PrintWriter out) throws Failure {
      Rm.Reply r = common.connect().call("GET", ArylPaths.STATUS, null);
      print(out, r, Views.nodes(r.read(SchedulerStatus.class)));
    }
  }

  @Command(
      name = "reclaim",
      mixinStandardHelpOptions = true,
      footer = EXIT_CODES,
      description =
          "Return loaned nodes to inference: the scheduler picks the N loaned nodes whose return costs the"
              + " least training work, drains them and relabels them. Needs a YARN admin when yarn.acl.enable is on.")
  static final class Reclaim extends Base {
    @Option(
        names = "--nodes",
        required = true,
        paramLabel = "N",
        converter = NodeCount.class,
        description = "How many loaned nodes to return, an integer >= 1.")
    int nodes;

    @Option(
        names = "--deadline",
        paramLabel = "DURATION",
        converter = DeadlineConverter.class,
        description =
            "By when they must be back, from now: 90s, 5m, 1h (at most 7d). Default: the scheduler's"
                + " aryl.scheduler.reclaim.default-deadline-ms.")
    Duration deadline;

    @Option(
        names = "--gpu-type",
        paramLabel = "TYPE",
        description =
            "Only loaned nodes of this GPU type, one of the scheduler's aryl.scheduler.gpu-types.")
    String gpuType;

    @Override
    void run(PrintWriter out) throws Failure {
      Rm rm = common.connect();
      long now = clock.getAsLong();
      ReclaimRequest body =
          new ReclaimRequest(nodes, deadline == null ? 0 : now + deadline.toMillis(), gpuType);
      Rm.Reply r = rm.call("POST", ArylPaths.RECLAIMS, ArylJson.write(body));
      print(out, r, Views.reclaim(r.read(ReclaimStatus.class), now));
    }
  }

  /** {@code --nodes}: an integer >= 1. */
  static final class NodeCount implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      try {
        int n = Integer.parseInt(value.trim());
        if (n >= 1) {
          return n;
        }
      } catch (NumberFormatException e) {
        // said below
      }
      throw new TypeConversionException("must be an integer >= 1, was '" + value + "'");
    }
  }

  /** {@code --deadline}: {@link Durations}. */
  static final class DeadlineConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Durations.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
  }

  private static String abbreviate(String body) {
    String b = body == null ? "" : body.strip();
    return b.isEmpty() ? "(empty body)" : b.length() > 300 ? b.substring(0, 300) + "..." : b;
  }

  private static String join(List<URI> uris) {
    return String.join(", ", uris.stream().map(URI::toString).toList());
  }
}
