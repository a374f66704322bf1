package io.aryl.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.dist.Distribution.ListedJar;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scripts in bin/, run from the unpacked tarball in an empty folder with nothing of the
 * repository in reach: no Maven, no sources, only a {@code hadoop} whose {@code classpath} prints
 * Hadoop 3.5.0's jars (a stand-in for an installed Hadoop) and a Java.
 */
@DisplayName("bin/ scripts of the unpacked tarball")
class DistributionScriptsTest {

  @TempDir static Path work;
  private static Path top;
  private static Path standInHadoopBin;

  /** The system's own tools (sh, dirname, ...), without any Hadoop or Maven. */
  private static final String SYSTEM_PATH = "/usr/bin:/bin";

  @BeforeAll
  static void unpackAndStandIn() throws Exception {
    Path into = Files.createDirectory(work.resolve("install"));
    top = Distribution.unpack(into);
    String hadoopClassPath =
        Distribution.hadoopJars().stream()
            .map(ListedJar::file)
            .map(Path::toString)
            .collect(Collectors.joining(":"));
    standInHadoopBin = Files.createDirectory(work.resolve("hadoop-bin"));
    executable(
        standInHadoopBin.resolve("hadoop"),
        "#!/bin/sh\n"
            + "# Stands in for Hadoop 3.5.0's bin/hadoop: `classpath` prints its jars.\n"
            + "if [ \"$1\" = classpath ]; then echo '"
            + hadoopClassPath
            + "'; exit 0; fi\n"
            + "echo \"stand-in hadoop: only classpath\" >&2; exit 1\n");
  }

  @Test
  @DisplayName("aryl-labels --help prints its usage, naming its commands, and exits 0")
  void labelsHelp() throws Exception {
    Run run = run(top.resolve("bin/aryl-labels"), standInHadoopBin + ":" + SYSTEM_PATH, "--help");
    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout()).startsWith("Usage: aryl-labels").contains("init", "run", "keys");
  }

  @Test
  @DisplayName("aryl-admin --help prints its usage, naming its commands, and exits 0")
  void adminHelp() throws Exception {
    Run run = run(top.resolve("bin/aryl-admin"), standInHadoopBin + ":" + SYSTEM_PATH, "--help");
    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout()).startsWith("Usage: aryl-admin").contains("status", "reclaim");
  }

  @Test
  @DisplayName("aryl-labels keys runs the controller's code on Hadoop's jars: its key table")
  void labelsKeys() throws Exception {
    Run run = run(top.resolve("bin/aryl-labels"), standInHadoopBin + ":" + SYSTEM_PATH, "keys");
    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout())
        .contains("| `aryl.labels.zk.connect` |", "| `aryl.labels.loan.hold-ms` |");
  }

  @Test
  @DisplayName("with no hadoop on the PATH and no HADOOP_HOME: one line naming both, exit 2")
  void noHadoop() throws Exception {
    for (String script : List.of("aryl-labels", "aryl-admin")) {
      Run run = run(top.resolve("bin").resolve(script), SYSTEM_PATH, "--help");
      assertThat(run.exit()).as(run.toString()).isEqualTo(2);
      assertThat(run.stdout()).as(script).isEmpty();
      assertThat(run.stderr().lines().toList())
          .as(script)
          .singleElement()
          .asString()
          .startsWith(script + ": no Hadoop found")
          .contains("'hadoop' on the PATH", "$HADOOP_HOME/bin/hadoop");
    }
  }

  @Test
  @DisplayName("HADOOP_HOME's bin/hadoop is used when set, with no hadoop on the PATH")
  void hadoopHome() throws Exception {
    Path home = Files.createDirectories(work.resolve("hadoop-home"));
    Files.createSymbolicLink(home.resolve("bin"), standInHadoopBin);
    Run run =
        run(
            top.resolve("bin/aryl-labels"),
            SYSTEM_PATH,
            Map.of("HADOOP_HOME", home.toString()),
            "--help");
    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout()).startsWith("Usage: aryl-labels");
  }

  @Test
  @DisplayName("JAVA_HOME's bin/java runs the command when JAVA_HOME is set")
  void javaHome() throws Exception {
    Path javaHome = Files.createDirectories(work.resolve("java-home/bin"));
    executable(javaHome.resolve("java"), "#!/bin/sh\necho \"stand-in java $*\"\n");
    Run run =
        run(
            top.resolve("bin/aryl-admin"),
            standInHadoopBin + ":" + SYSTEM_PATH,
            Map.of("JAVA_HOME", javaHome.getParent().toString()),
            "--help");
    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout())
        .startsWith("stand-in java ")
        .contains(top.resolve("share/aryl/tools") + "/*:", "io.aryl.admin.ArylAdmin --help");
  }

  record Run(int exit, String stdout, String stderr) {}

  private static Run run(Path script, String path, String... args) throws Exception {
    return run(script, path, Map.of("JAVA_HOME", System.getProperty("java.home")), args);
  }

  /** Runs a script from an empty working folder with only PATH and {@code env} set. */
  private static Run run(Path script, String path, Map<String, String> env, String... args)
      throws Exception {
    Path cwd = Files.createTempDirectory(work, "cwd");
    List<String> command = new java.util.ArrayList<>(List.of(script.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(cwd.toFile());
    builder.environment().clear();
    builder.environment().put("PATH", path);
    builder.environment().putAll(env);
    Path out = cwd.resolve("stdout");
    Path err = cwd.resolve("stderr");
    builder.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process process = builder.start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(script + " did not end within 60 s");
    }
    return new Run(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  private static void executable(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
