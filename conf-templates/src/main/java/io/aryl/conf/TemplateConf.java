package io.aryl.conf;

import java.net.URL;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The templates under {@code aryl-conf/} on the class path, laid over a {@link Configuration} as a
 * cluster's own files would be: for the embedded clusters of the demo, the end-to-end tests and the
 * load simulator.
 */
public final class TemplateConf {
  /** Where the templates are on the class path. */
  public static final String DIR = "aryl-conf/";

  public static final String YARN_SITE = "yarn-site.xml";
  public static final String CAPACITY_SCHEDULER = "capacity-scheduler.xml";
  public static final String RESOURCE_TYPES = "resource-types.xml";
  public static final String NODE_RESOURCES = "node-resources.xml";

  /**
   * The existing-cluster variant of capacity-scheduler.xml: keeps root.default beside the two GPU
   * pools.
   */
  public static final String EXISTING_CLUSTER_CAPACITY_SCHEDULER =
      "existing-cluster/capacity-scheduler.xml";

  /** The templates of a new cluster. */
  public static final List<String> NEW_CLUSTER =
      List.of(YARN_SITE, CAPACITY_SCHEDULER, RESOURCE_TYPES, NODE_RESOURCES);

  private TemplateConf() {}

  /**
   * Sets every property of each template ({@code files}, relative to {@link #DIR}) into {@code
   * conf}, later files winning. {@code set()}, not {@code addResource()}: the Capacity Scheduler
   * re-reads capacity-scheduler.xml from the class path, where Hadoop's own test jars may carry
   * one, and only what is set in the overlay wins over it.
   *
   * @throws IllegalStateException if a template is not on the class path
   */
  public static <C extends Configuration> C overlay(C conf, List<String> files) {
    for (String file : files) {
      URL url = TemplateConf.class.getClassLoader().getResource(DIR + file);
      if (url == null) {
        throw new IllegalStateException("template " + DIR + file + " is not on the class path");
      }
      Configuration t = new Configuration(false);
      t.addResource(url);
      for (Map.Entry<String, String> e : t) {
        conf.set(e.getKey(), t.get(e.getKey()));
      }
    }
    return conf;
  }
}
