package io.aryl.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Hadoop configuration files ({@code <configuration><property><name/><value/>}) written as an
 * operator edits the templates: a template's properties kept, in its order and with its comments,
 * the values this cluster needs set in place, the properties the template lacks added at the end.
 * Hadoop is not on the tests' class path, so this is plain DOM.
 */
final class HadoopXml {

  private HadoopXml() {}

  /** Writes {@code template} to {@code to} with {@code values} set. */
  static void edit(Path template, Map<String, String> values, Path to) throws IOException {
    try {
      Document doc =
          DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(template.toFile());
      write(doc, values, to);
    } catch (ParserConfigurationException | SAXException e) {
      throw new IOException("cannot read the Hadoop configuration " + template, e);
    }
  }

  /** Writes a configuration holding exactly {@code values}. */
  static void create(Map<String, String> values, Path to) throws IOException {
    try {
      Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().newDocument();
      doc.appendChild(doc.createElement("configuration"));
      write(doc, values, to);
    } catch (ParserConfigurationException e) {
      throw new IOException(e);
    }
  }

  private static void write(Document doc, Map<String, String> values, Path to) throws IOException {
    Map<String, String> left = new LinkedHashMap<>(values);
    NodeList properties = doc.getElementsByTagName("property");
    for (int i = 0; i < properties.getLength(); i++) {
      Element property = (Element) properties.item(i);
      String name = text(property, "name");
      if (left.containsKey(name)) {
        Node value = property.getElementsByTagName("value").item(0);
        if (value == null) {
          value = property.appendChild(doc.createElement("value"));
        }
        value.setTextContent(left.remove(name));
      }
    }
    Element configuration = doc.getDocumentElement();
    for (Map.Entry<String, String> e : left.entrySet()) {
      Element property = doc.createElement("property");
      Element name = doc.createElement("name");
      name.setTextContent(e.getKey());
      Element value = doc.createElement("value");
      value.setTextContent(e.getValue());
      property.appendChild(name);
      property.appendChild(value);
      configuration.appendChild(property);
    }
    try {
      var transformer = TransformerFactory.newInstance().newTransformer();
      transformer.setOutputProperty(OutputKeys.INDENT, "yes");
      Files.createDirectories(to.getParent());
      transformer.transform(new DOMSource(doc), new StreamResult(to.toFile()));
    } catch (TransformerException e) {
      throw new IOException("cannot write " + to, e);
    }
  }

  private static String text(Element property, String child) {
    Node node = property.getElementsByTagName(child).item(0);
    return node == null ? "" : node.getTextContent().strip();
  }
}
