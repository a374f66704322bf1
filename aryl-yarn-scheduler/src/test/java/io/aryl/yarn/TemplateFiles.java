package io.aryl.yarn;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * The conf-templates files, read from the source tree: conf-templates' own tests run this module's
 * scheduler, so this module cannot depend on conf-templates' {@code TemplateConf} and reads the
 * same files by path instead.
 */
public final class TemplateFiles {
  private TemplateFiles() {}

  /**
   * yarn-site, capacity-scheduler and resource-types as overlay properties. set(), not
   * addResource(): the Capacity Scheduler re-reads capacity-scheduler.xml from the class path (the
   * RM test jar carries one) and only properties set in the overlay win over it.
   */
  public static YarnConfiguration conf() throws IOException {
    Path dir = dir();
    YarnConfiguration conf = new YarnConfiguration();
    for (String file : List.of("yarn-site.xml", "capacity-scheduler.xml", "resource-types.xml")) {
      Configuration t = new Configuration(false);
      t.addResource(dir.resolve(file).toUri().toURL());
      for (Map.Entry<String, String> e : t) {
        conf.set(e.getKey(), t.get(e.getKey()));
      }
    }
    return conf;
  }

  /**
   * The templates' directory: {@code -Daryl.conf.dir}, else found from the module's or the
   * reactor's directory.
   */
  public static Path dir() throws IOException {
    List<Path> candidates = new ArrayList<>();
    String configured = System.getProperty("aryl.conf.dir");
    if (configured != null) {
      candidates.add(Path.of(configured));
    }
    candidates.add(Path.of("conf-templates/src/main/resources/aryl-conf"));
    candidates.add(Path.of("../conf-templates/src/main/resources/aryl-conf"));
    for (Path p : candidates) {
      if (Files.isRegularFile(p.resolve("capacity-scheduler.xml"))) {
        return p;
      }
    }
    throw new IOException(
        "conf-templates not found (tried " + candidates + "); set -Daryl.conf.dir");
  }
}
