package io.aryl.conf;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
   * The commented example at the end of the existing-cluster capacity-scheduler.xml that splits
   * root.training into team queues: the text between {@code BEGIN TEAMS EXAMPLE} and {@code END
   * TEAMS EXAMPLE}, the properties it adds and the ones its {@code Remove:} line names. Read here
   * once, so that the template's tests and the end-to-end tests apply it exactly as it says.
   *
   * @param text the example's text
   * @param properties the properties it sets, by name
   * @param removed the properties it says to remove
   */
  public record TeamsExample(String text, Map<String, String> properties, List<String> removed) {
    private static final Pattern BLOCK =
        Pattern.compile("BEGIN TEAMS EXAMPLE(.*?)END TEAMS EXAMPLE", Pattern.DOTALL);
    private static final Pattern PROPERTY =
        Pattern.compile("<property>.*?</property>", Pattern.DOTALL);
    private static final Pattern REMOVE = Pattern.compile("(?m)^\\s*Remove:(.*)$");

    public TeamsExample {
      properties = Map.copyOf(properties);
      removed = List.copyOf(removed);
    }

    /**
     * The example of the existing-cluster template on the class path.
     *
     * @throws IllegalStateException if the template has no example block, or it no {@code Remove:}
     *     line
     */
    public static TeamsExample read() {
      URL url = url(EXISTING_CLUSTER_CAPACITY_SCHEDULER);
      String file;
      try (InputStream in = url.openStream()) {
        file = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Matcher m = BLOCK.matcher(file);
      if (!m.find()) {
        throw new IllegalStateException("no BEGIN/END TEAMS EXAMPLE block in " + url);
      }
      String text = m.group(1);
      StringBuilder xml = new StringBuilder("<configuration>");
      Matcher p = PROPERTY.matcher(text);
      while (p.find()) {
        xml.append(p.group());
      }
      xml.append("</configuration>");
      Configuration example = new Configuration(false);
      example.addResource(
          new ByteArrayInputStream(xml.toString().getBytes(StandardCharsets.UTF_8)),
          "teams example");
      Map<String, String> properties = new TreeMap<>();
      for (Map.Entry<String, String> e : example) {
        properties.put(e.getKey(), example.get(e.getKey()));
      }
      Matcher r = REMOVE.matcher(text);
      if (!r.find()) {
        throw new IllegalStateException("no 'Remove:' line in the teams example of " + url);
      }
      List<String> removed =
          Arrays.stream(r.group(1).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
      return new TeamsExample(text, properties, removed);
    }

    /** Applies the example to {@code conf}: the properties it names removed, its own set. */
    public <C extends Configuration> C applyTo(C conf) {
      removed.forEach(conf::unset);
      properties.forEach(conf::set);
      return conf;
    }
  }

  private static URL url(String file) {
    URL url = TemplateConf.class.getClassLoader().getResource(DIR + file);
    if (url == null) {
      throw new IllegalStateException("template " + DIR + file + " is not on the class path");
    }
    return url;
  }

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
      Configuration t = new Configuration(false);
      t.addResource(url(file));
      for (Map.Entry<String, String> e : t) {
        conf.set(e.getKey(), t.get(e.getKey()));
      }
    }
    return conf;
  }
}
