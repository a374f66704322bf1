package io.aryl.sls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Keeps SLS's thousands of made-up node names away from DNS. The RM resolves each NodeManager's
 * host when it registers (NodesListManager); a name no DNS server knows can take seconds to fail,
 * and 2,000 of them took minutes. The JVM resolves from a hosts file instead ({@code
 * jdk.net.hosts.file}) holding only this machine: every simulated name fails at once, and the RM
 * keeps it as it is.
 */
final class SimulatedHosts {
  static final String PROPERTY = "jdk.net.hosts.file";

  private SimulatedHosts() {}

  /**
   * Writes the hosts file under {@code dir} and points the JVM at it, unless it was given one. Must
   * run before anything in this JVM resolves a name: the JVM reads the property once.
   */
  static void install(Path dir) throws IOException {
    if (System.getProperty(PROPERTY) != null) {
      return;
    }
    Files.createDirectories(dir);
    Path hosts = dir.resolve("hosts");
    String self = thisHost();
    Files.writeString(
        hosts,
        "127.0.0.1 localhost" + (self.isEmpty() ? "" : " " + self) + "\n::1 localhost\n",
        StandardCharsets.UTF_8);
    System.setProperty(PROPERTY, hosts.toAbsolutePath().toString());
  }

  /** This machine's name, read without resolving anything. */
  private static String thisHost() {
    try {
      return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
    } catch (IOException | RuntimeException e) {
      String env = System.getenv("HOSTNAME");
      return env == null ? "" : env.strip();
    }
  }
}
