package io.aryl.it;

import io.aryl.admin.ArylAdmin;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * {@code aryl-admin} run in this JVM through {@link ArylAdmin#run}, as an operator runs it against
 * a cluster.
 */
final class AdminCommand {
  /** One run: exit code, stdout, stderr. */
  record Run(int exit, String out, String err) {}

  private AdminCommand() {}

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        ArylAdmin.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The command with {@code --conf yarnSite}. */
  static Run onCluster(File yarnSite, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--conf", yarnSite.getPath()));
    return run(all.toArray(String[]::new));
  }

  /** {@link #onCluster} as {@code user} (Hadoop's simple authentication names the caller so). */
  static Run onClusterAs(String user, File yarnSite, String... args) throws Exception {
    return UserGroupInformation.createRemoteUser(user)
        .doAs((PrivilegedExceptionAction<Run>) () -> onCluster(yarnSite, args));
  }

  /**
   * Writes the client configuration an operator's machine would have for the cluster: its RM web
   * address.
   */
  static YarnConfiguration writeClientConf(ArylMiniCluster cluster, File yarnSite)
      throws IOException {
    YarnConfiguration conf = new YarnConfiguration(cluster.conf());
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, URI.create(cluster.webAddress()).getAuthority());
    try (OutputStream out = new FileOutputStream(yarnSite)) {
      conf.writeXml(out);
    }
    return conf;
  }
}
