package io.aryl.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The tarball this module's build packed, unpacked as an operator would (with {@code tar}, so that
 * file modes are kept), and the two jar lists the build wrote beside it: the jars Hadoop 3.5.0
 * ships ({@code src/hadoop-jars/pom.xml}) and the artifacts the tarball bundles.
 */
final class Distribution {

  /** The folders of jars the tarball brings, relative to its top directory. */
  static final List<String> JAR_FOLDERS =
      List.of("share/aryl/rm", "share/aryl/am", "share/aryl/serve", "share/aryl/tools");

  private Distribution() {}

  /**
   * One line of the dependency plugin's list: {@code
   * group:artifact:type[:classifier]:version:scope:/path}.
   */
  record ListedJar(String groupId, String artifactId, String version, Path file) {

    String coordinates() {
      return groupId + ":" + artifactId;
    }

    static ListedJar parse(String line) {
      String entry = line.strip();
      int module = entry.indexOf(" -- ");
      if (module >= 0) {
        entry = entry.substring(0, module);
      }
      int path = entry.indexOf(":/");
      if (path < 0) {
        throw new IllegalArgumentException("jar list line without a path: '" + line + "'");
      }
      String[] parts = entry.substring(0, path).split(":", -1);
      if (parts.length < 5) {
        throw new IllegalArgumentException("jar list line without coordinates: '" + line + "'");
      }
      return new ListedJar(
          parts[0], parts[1], parts[parts.length - 2], Path.of(entry.substring(path + 1)));
    }
  }

  static String version() {
    return property("aryl.dist.version");
  }

  static Path tarball() {
    Path tarball = Path.of(property("aryl.dist.tarball"));
    if (!Files.isRegularFile(tarball)) {
      throw new IllegalStateException(
          "no tarball at " + tarball + ": build it with mvn -pl aryl-dist -am package");
    }
    return tarball;
  }

  /**
   * The jars Hadoop 3.5.0 ships: its ResourceManager's, NodeManager's, common and HDFS client set.
   */
  static List<ListedJar> hadoopJars() {
    return readList(Path.of(property("aryl.dist.hadoop-jars")));
  }

  /**
   * The jars of a Hadoop 3.5.0 install that runs the daemons ({@code src/hadoop-home/pom.xml}): the
   * jars above plus the timeline service, MapReduce and ZooKeeper's server.
   */
  static List<ListedJar> hadoopHomeJars() {
    return readList(Path.of(property("aryl.dist.hadoop-home-jars")));
  }

  /** The artifacts the tarball bundles, as aryl-dist's pom names them. */
  static List<ListedJar> bundledArtifacts() {
    return readList(Path.of(property("aryl.dist.bundled-jars")));
  }

  /**
   * Unpacks the tarball into {@code into} and returns its top directory, {@code aryl-<version>}.
   */
  static Path unpack(Path into) throws IOException, InterruptedException {
    Process tar =
        new ProcessBuilder("tar", "xzf", tarball().toString(), "-C", into.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (tar.waitFor() != 0) {
      throw new IllegalStateException("tar xzf " + tarball() + " failed: " + output);
    }
    Path top = into.resolve("aryl-" + version());
    if (!Files.isDirectory(top)) {
      throw new IllegalStateException("the tarball has no top directory aryl-" + version());
    }
    return top;
  }

  /** The jars directly in {@code folder}, sorted by name. */
  static List<Path> jarsIn(Path folder) {
    try (Stream<Path> files = Files.list(folder)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<ListedJar> readList(Path list) {
    try {
      List<ListedJar> jars = new ArrayList<>();
      for (String line : Files.readAllLines(list, StandardCharsets.UTF_8)) {
        if (line.contains(".jar")) {
          jars.add(ListedJar.parse(line));
        }
      }
      if (jars.isEmpty()) {
        throw new IllegalStateException(list + " lists no jar");
      }
      return jars;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the jar list " + list, e);
    }
  }

  static String property(String key) {
    String value = System.getProperty(key);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "system property " + key + " is not set: run the tests through aryl-dist's pom");
    }
    return value;
  }
}
