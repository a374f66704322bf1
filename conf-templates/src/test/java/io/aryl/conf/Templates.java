package io.aryl.conf;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.hadoop.conf.Configuration;
import org.w3c.dom.Comment;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Reads the templates under {@code aryl-conf/} on the classpath, the way Hadoop and an XML parser
 * see them.
 */
final class Templates {

  static final String DIR = TemplateConf.DIR;
  static final String YARN_SITE = TemplateConf.YARN_SITE;
  static final String CAPACITY_SCHEDULER = TemplateConf.CAPACITY_SCHEDULER;
  static final String RESOURCE_TYPES = TemplateConf.RESOURCE_TYPES;
  static final String NODE_RESOURCES = TemplateConf.NODE_RESOURCES;
  static final String EXISTING_CLUSTER_CAPACITY_SCHEDULER =
      TemplateConf.EXISTING_CLUSTER_CAPACITY_SCHEDULER;

  /** The templates of a new cluster. */
  static final List<String> ALL = TemplateConf.NEW_CLUSTER;

  /**
   * The templates for adding Aryl to a cluster that already runs: the same, with the
   * existing-cluster queues.
   */
  static final List<String> EXISTING_CLUSTER =
      List.of(YARN_SITE, EXISTING_CLUSTER_CAPACITY_SCHEDULER, RESOURCE_TYPES, NODE_RESOURCES);

  /** Every template file, each once. */
  static final List<String> FILES =
      List.of(
          YARN_SITE,
          CAPACITY_SCHEDULER,
          EXISTING_CLUSTER_CAPACITY_SCHEDULER,
          RESOURCE_TYPES,
          NODE_RESOURCES);

  private Templates() {}

  static URL url(String file) {
    URL url = Templates.class.getClassLoader().getResource(DIR + file);
    if (url == null) {
      throw new IllegalStateException("template not on the classpath: " + DIR + file);
    }
    return url;
  }

  /** The template alone, as Hadoop reads it: no core-default.xml or core-site.xml behind it. */
  static Configuration load(String file) {
    Configuration conf = new Configuration(false);
    conf.addResource(url(file));
    return conf;
  }

  /** All templates in one Configuration, the later files on top of the earlier ones. */
  static Configuration loadAll() {
    Configuration conf = new Configuration(false);
    ALL.forEach(f -> conf.addResource(url(f)));
    return conf;
  }

  static Document dom(String file) {
    try (InputStream in = url(file).openStream()) {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      factory.setIgnoringComments(false);
      return factory.newDocumentBuilder().parse(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot parse " + file, e);
    }
  }

  /**
   * A {@code <property>} element of a template: its name, value (trimmed), the comment right before
   * it (or null), and the value exactly as written. They differ only for a value of spaces, which
   * Hadoop keeps as written (a single space is how the Capacity Scheduler is told "no node label").
   */
  record Property(String file, String name, String value, String comment, String rawValue) {
    @Override
    public String toString() {
      return file + ": " + name;
    }
  }

  static List<Property> properties(String file) {
    NodeList nodes = dom(file).getElementsByTagName("property");
    List<Property> out = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      Element property = (Element) nodes.item(i);
      out.add(
          new Property(
              file,
              childText(property, "name"),
              childText(property, "value"),
              precedingComment(property),
              rawChildText(property, "value")));
    }
    return out;
  }

  /** The properties of every template file. */
  static List<Property> allProperties() {
    return allProperties(FILES);
  }

  /** The properties of these files, in order. */
  static List<Property> allProperties(List<String> files) {
    List<Property> out = new ArrayList<>();
    files.forEach(f -> out.addAll(properties(f)));
    return out;
  }

  private static String childText(Element parent, String tag) {
    String raw = rawChildText(parent, tag);
    return raw == null ? null : raw.trim();
  }

  private static String rawChildText(Element parent, String tag) {
    NodeList children = parent.getElementsByTagName(tag);
    return children.getLength() == 0 ? null : children.item(0).getTextContent();
  }

  /**
   * The text of the comment that is the nearest preceding sibling other than whitespace, or null if
   * that is not a comment.
   */
  private static String precedingComment(Node node) {
    Node previous = node.getPreviousSibling();
    while (previous != null
        && previous.getNodeType() == Node.TEXT_NODE
        && previous.getTextContent().isBlank()) {
      previous = previous.getPreviousSibling();
    }
    return previous instanceof Comment comment ? normalize(comment.getData()) : null;
  }

  /** Collapses runs of whitespace (line breaks, indentation) to one space. */
  static String normalize(String text) {
    return text.strip().replaceAll("\\s+", " ");
  }
}
