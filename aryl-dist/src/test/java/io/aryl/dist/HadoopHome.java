package io.aryl.dist;

import io.aryl.dist.Distribution.ListedJar;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A Hadoop install laid out of Maven artifacts, since no Hadoop binary tarball is in reach of the
 * build: every jar in one {@code share/hadoop/lib/} folder, and a {@code bin/hadoop} whose {@code
 * classpath} prints what Hadoop's own does ({@code HADOOP_CONF_DIR}, the jars, {@code
 * HADOOP_CLASSPATH}). That is all aryl-dist's scripts ask of an installed Hadoop; the daemons are
 * started by {@link Daemons} on the same class path, as Hadoop's {@code yarn} script starts them.
 */
final class HadoopHome {

  private final Path home;

  private HadoopHome(Path home) {
    this.home = home;
  }

  /**
   * Lays the install out under {@code home}, copying the jars (a jar already there with the same
   * size is kept: the folder survives between runs of the build).
   */
  static HadoopHome layOut(Path home, List<ListedJar> jars) throws IOException {
    Path lib = home.resolve("share/hadoop/lib");
    Files.createDirectories(lib);
    for (ListedJar jar : jars) {
      Path to = lib.resolve(jar.file().getFileName());
      if (!Files.isRegularFile(to) || Files.size(to) != Files.size(jar.file())) {
        Files.copy(jar.file(), to, StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Path bin = home.resolve("bin");
    Files.createDirectories(bin);
    Path hadoop = bin.resolve("hadoop");
    Files.writeString(
        hadoop,
        String.join(
            "\n",
            "#!/bin/sh",
            "# A Hadoop install laid out of Maven artifacts for Aryl's real-daemon tests: only the"
                + " 'classpath' subcommand.",
            "home=$(cd \"$(dirname \"$0\")/..\" && pwd -P)",
            "case \"${1:-}\" in",
            "  classpath)",
            "    echo \"${HADOOP_CONF_DIR:-$home/etc/hadoop}:$home/share/hadoop/lib/*"
                + "${HADOOP_CLASSPATH:+:$HADOOP_CLASSPATH}\" ;;",
            "  *)",
            "    echo \"hadoop: this test install has only the 'classpath' subcommand, not"
                + " '${1:-}'\" >&2",
            "    exit 2 ;;",
            "esac",
            ""),
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(hadoop, PosixFilePermissions.fromString("rwxr-xr-x"));
    return new HadoopHome(home);
  }

  Path home() {
    return home;
  }

  /** The class path entry of every jar of the install. */
  String jars() {
    return home.resolve("share/hadoop/lib") + "/*";
  }
}
