package io.aryl.dist;

import io.aryl.dist.Distribution.ListedJar;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A Hadoop install laid out of Maven artifacts, since no Hadoop binary tarball is in reach of the
 * build: the jars in one {@code share/hadoop/lib/} folder, MapReduce's examples jar in {@code
 * share/hadoop/mapreduce/} and an empty {@code share/hadoop/yarn/lib/} (where the deploying page
 * copies Aryl's ResourceManager jars), as in Hadoop's tarball; a {@code bin/hadoop} and a {@code
 * bin/yarn} that run the subcommands an operator's commands use ({@link #SUBCOMMANDS}) with the
 * main classes Hadoop's own scripts run, on {@code HADOOP_CONF_DIR} and these folders. That is all
 * aryl-dist's scripts and the deploying page ask of an installed Hadoop; the daemons are started by
 * {@link Daemons} on the same class path, as Hadoop's {@code yarn} script starts them.
 */
final class HadoopHome {

  /** The subcommands of {@code bin/hadoop} and {@code bin/yarn}, and the class each runs. */
  static final Map<String, String> SUBCOMMANDS =
      Map.of(
          "jar", "org.apache.hadoop.util.RunJar",
          "rmadmin", "org.apache.hadoop.yarn.client.cli.RMAdminCLI",
          "node", "org.apache.hadoop.yarn.client.cli.NodeCLI",
          "cluster", "org.apache.hadoop.yarn.client.cli.ClusterCLI",
          "application", "org.apache.hadoop.yarn.client.cli.ApplicationCLI",
          "queue", "org.apache.hadoop.yarn.client.cli.QueueCLI");

  private static final String EXAMPLES = "hadoop-mapreduce-examples-";

  private final Path home;

  private HadoopHome(Path home) {
    this.home = home;
  }

  /**
   * Lays the install out under {@code home}, copying the jars (a jar already there with the same
   * size is kept: the folder survives between runs of the build). {@code share/hadoop/yarn/lib/} is
   * emptied: what an earlier run copied there is an earlier build's.
   */
  static HadoopHome layOut(Path home, List<ListedJar> jars) throws IOException {
    Path lib = Files.createDirectories(home.resolve("share/hadoop/lib"));
    Path mapreduce = Files.createDirectories(home.resolve("share/hadoop/mapreduce"));
    Path yarnLib = home.resolve("share/hadoop/yarn/lib");
    if (Files.isDirectory(yarnLib)) {
      try (Stream<Path> left = Files.list(yarnLib)) {
        for (Path f : left.toList()) {
          Files.delete(f);
        }
      }
    }
    Files.createDirectories(yarnLib);
    for (ListedJar jar : jars) {
      String name = jar.file().getFileName().toString();
      Path to = (name.startsWith(EXAMPLES) ? mapreduce : lib).resolve(name);
      if (!Files.isRegularFile(to) || Files.size(to) != Files.size(jar.file())) {
        Files.copy(jar.file(), to, StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Path bin = Files.createDirectories(home.resolve("bin"));
    StringBuilder cases = new StringBuilder();
    SUBCOMMANDS.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                cases.append(
                    "  "
                        + e.getKey()
                        + ") shift; exec \"$java\" $HADOOP_OPTS -cp \"$cp\" "
                        + e.getValue()
                        + " \"$@\" ;;\n"));
    String script =
        String.join(
            "\n",
            "#!/bin/sh",
            "# A Hadoop install laid out of Maven artifacts for Aryl's real-daemon tests: the"
                + " subcommands below, each the class Hadoop's own script runs.",
            "home=$(cd \"$(dirname \"$0\")/..\" && pwd -P)",
            "cp=\"${HADOOP_CONF_DIR:-$home/etc/hadoop}:$home/share/hadoop/lib/*:"
                + "$home/share/hadoop/yarn/lib/*:$home/share/hadoop/mapreduce/*"
                + "${HADOOP_CLASSPATH:+:$HADOOP_CLASSPATH}\"",
            "java=${JAVA_HOME:+$JAVA_HOME/bin/}java",
            "case \"${1:-}\" in",
            "  classpath)",
            "    if [ \"${2:-}\" = --glob ]; then",
            "      echo \"$cp\" | tr ':' '\\n' | while read -r e; do",
            "        case \"$e\" in *'*') ls -1 \"${e%'*'}\" 2>/dev/null"
                + " | sed \"s|^|${e%'*'}|\" ;; *) echo \"$e\" ;; esac",
            "      done | paste -sd: -",
            "    else",
            "      echo \"$cp\"",
            "    fi ;;",
            cases.toString() + "  *)",
            "    echo \"$(basename \"$0\"): this test install has only the subcommands classpath, "
                + String.join(", ", new TreeSet<>(SUBCOMMANDS.keySet()))
                + "; not '${1:-}'\" >&2",
            "    exit 2 ;;",
            "esac",
            "");
    for (String name : List.of("hadoop", "yarn")) {
      Path file = bin.resolve(name);
      Files.writeString(file, script, StandardCharsets.UTF_8);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return new HadoopHome(home);
  }

  Path home() {
    return home;
  }

  /** The class path entry of every jar of the install (not the examples, not yarn/lib). */
  String jars() {
    return home.resolve("share/hadoop/lib") + "/*";
  }

  /** The folder the deploying page copies Aryl's ResourceManager jars to. */
  Path yarnLib() {
    return home.resolve("share/hadoop/yarn/lib");
  }

  Path bin() {
    return home.resolve("bin");
  }
}
