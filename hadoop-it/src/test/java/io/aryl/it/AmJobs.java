package io.aryl.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.am.Main;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Helpers for jobs run by the real aryl-am ApplicationMaster: the client in-process or through
 * RunJar (as {@code yarn jar} does), and shell workers that record their environment to files.
 */
final class AmJobs {
  /**
   * JVM options for the short-lived client JVMs the tests start (RunJar, the stock clients): quick
   * to start, one GC thread. They change how fast the client starts, not what it does.
   */
  static final String QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

  private AmJobs() {}

  /**
   * The cluster configuration plus the AM's test settings: staging under the test dir, quick
   * generations.
   */
  static YarnConfiguration conf(File dir) {
    return conf(dir, ArylMiniCluster.templateConf());
  }

  /** {@link #conf(File)} on top of these template properties (e.g. the existing-cluster ones). */
  static YarnConfiguration conf(File dir, YarnConfiguration templates) {
    YarnConfiguration conf = ArylMiniCluster.testConf(dir, templates);
    conf.set("aryl.am.staging-dir", new File(dir, "staging").toURI().toString());
    conf.setLong("aryl.am.settle-ms", 300);
    conf.setInt("aryl.am.heartbeat-ms", 200);
    return conf;
  }

  /** A worker command that writes its environment to DIR/g<generation>-r<rank>.env, then sleeps. */
  static String recordEnvThenSleep(Path envDir) {
    return "env | sort > "
        + envDir
        + "/g${ARYL_GENERATION}-r${RANK}.env.tmp && mv "
        + envDir
        + "/g${ARYL_GENERATION}-r${RANK}.env.tmp "
        + envDir
        + "/g${ARYL_GENERATION}-r${RANK}.env; exec sleep 600";
  }

  /**
   * Like {@link #recordEnvThenSleep}, after appending "CONTAINER_ID ARYL_GENERATION" to the file
   * {@code starts}: one line per worker process ever started.
   */
  static String recordStartAndEnvThenSleep(Path envDir, Path starts) {
    return "echo \"$CONTAINER_ID $ARYL_GENERATION\" >> "
        + starts
        + "; "
        + recordEnvThenSleep(envDir);
  }

  /** The lines of a file; none while it does not exist. */
  static List<String> lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file) : List.of();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every recorded worker environment, by file name (g<gen>-r<rank>.env). */
  static Map<String, Map<String, String>> envs(Path envDir) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(envDir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (!f.getFileName().toString().endsWith(".env")) {
          continue;
        }
        Map<String, String> env = new TreeMap<>();
        for (String line : Files.readAllLines(f)) {
          int eq = line.indexOf('=');
          if (eq > 0) {
            env.put(line.substring(0, eq), line.substring(eq + 1));
          }
        }
        out.put(f.getFileName().toString(), env);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  /** Environments of the workers of one generation. */
  static List<Map<String, String>> generation(Path envDir, int generation) {
    List<Map<String, String>> out = new ArrayList<>();
    envs(envDir)
        .forEach(
            (name, env) -> {
              if (name.startsWith("g" + generation + "-")) {
                out.add(env);
              }
            });
    return out;
  }

  /**
   * The highest generation whose workers all recorded their environment with this world size, or
   * -1.
   */
  static int generationOfSize(Path envDir, int worldSize) {
    int found = -1;
    for (Map<String, String> env : envs(envDir).values()) {
      int g = Integer.parseInt(env.getOrDefault("ARYL_GENERATION", "-1"));
      if (env.get("WORLD_SIZE").equals(Integer.toString(worldSize))
          && generation(envDir, g).size() == worldSize) {
        found = Math.max(found, g);
      }
    }
    return found;
  }

  /** The client in this JVM; returns exit status and output. */
  static Result client(YarnConfiguration conf, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            conf,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            args);
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /**
   * The client exactly as {@code yarn jar aryl-am.jar ARGS} runs it: a JVM running RunJar on the
   * aryl-am jar, with a configuration directory (yarn-site.xml written from the cluster's
   * configuration) first on the class path.
   */
  static Result runJar(YarnConfiguration conf, File dir, String... args) throws Exception {
    return runJarAs(null, conf, dir, args);
  }

  /**
   * {@link #runJar} as another user: {@code HADOOP_USER_NAME}, which Hadoop's simple authentication
   * takes as the client's user, as on a cluster without Kerberos. Null: the test JVM's own.
   */
  static Result runJarAs(String user, YarnConfiguration conf, File dir, String... args)
      throws Exception {
    String jar = System.getProperty("aryl.it.am-jar");
    if (jar == null || !new File(jar).isFile()) {
      throw new IllegalStateException(
          "the aryl-am jar is missing (system property aryl.it.am-jar): " + jar);
    }
    File confDir = new File(dir, "client-conf");
    confDir.mkdirs();
    try (OutputStream out = new FileOutputStream(new File(confDir, "yarn-site.xml"))) {
      conf.writeXml(out);
    }
    List<String> cmd =
        new ArrayList<>(List.of(System.getProperty("java.home") + "/bin/java", "-Xmx256m"));
    cmd.addAll(List.of(QUICK_JVM.split(" ")));
    cmd.addAll(
        List.of(
            "-cp",
            confDir + File.pathSeparator + System.getProperty("java.class.path"),
            "org.apache.hadoop.util.RunJar",
            jar));
    cmd.addAll(List.of(args));
    File outFile = new File(dir, "runjar-" + System.nanoTime() + ".out");
    ProcessBuilder builder =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(outFile);
    if (user != null) {
      builder.environment().put("HADOOP_USER_NAME", user);
    }
    Process p = builder.start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("RunJar did not end: " + Files.readString(outFile.toPath()));
    }
    String output = Files.readString(outFile.toPath());
    return new Result(p.exitValue(), output, output);
  }

  /** What a client run printed and returned. */
  record Result(int exit, String out, String err) {
    ApplicationId applicationId() {
      for (String line : out.split("\n")) {
        if (line.startsWith("submitted ")) {
          return ApplicationId.fromString(line.substring("submitted ".length()).trim());
        }
      }
      throw new AssertionError("no 'submitted' line in: " + out + err);
    }
  }

  static YarnApplicationState state(ArylMiniCluster cluster, ApplicationId id) {
    try {
      ApplicationReport r = cluster.client().getApplicationReport(id);
      return r.getYarnApplicationState();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The job's AM status JSON through the RM web proxy, parsed; null while it cannot be fetched. */
  static JsonNode status(ArylMiniCluster cluster, ApplicationId id) {
    String json = statusJson(cluster, id);
    try {
      return json.isEmpty() ? null : new ObjectMapper().readTree(json);
    } catch (IOException e) {
      return null;
    }
  }

  /** The details of the status's scaling events of one kind, in order. */
  static List<String> eventDetails(JsonNode status, String kind) {
    List<String> out = new ArrayList<>();
    status
        .path("events")
        .forEach(
            e -> {
              if (e.path("kind").asText().equals(kind)) {
                out.add(e.path("detail").asText());
              }
            });
    return out;
  }

  /** The job's AM status JSON through the RM web proxy, or "" while it cannot be fetched. */
  static String statusJson(ArylMiniCluster cluster, ApplicationId id) {
    try {
      ArylMiniCluster.Http r = cluster.get("/proxy/" + id + "/status.json");
      return r.status() == 200 ? r.body() : "";
    } catch (IOException e) {
      return "";
    }
  }
}
