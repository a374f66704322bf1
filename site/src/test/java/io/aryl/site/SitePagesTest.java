package io.aryl.site;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The site as Doxia will render it, checked from its sources without rendering it: the pages of
 * src/site/markdown and those the pom copies in at pre-site, the files of src/site/resources and
 * those copied in. Every page named in site.xml must exist, every page must be in site.xml, and
 * every relative link or image must reach a page or a file (and a link's #fragment a heading of its
 * page).
 */
class SitePagesTest {
  /** Site path (e.g. "rest.html", "img/x.png") -> the source file it is rendered or copied from. */
  static final Map<String, Path> pages = new TreeMap<>();

  static final Map<String, Path> files = new TreeMap<>();

  private static final Pattern MD_LINK =
      Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern HTML_LINK = Pattern.compile("(?:href|src)\\s*=\\s*\"([^\"]+)\"");
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

  @BeforeAll
  static void collect() throws Exception {
    Path module = SiteSources.module();
    addPages(module.resolve("src/site/markdown"), List.of());
    addFiles(module.resolve("src/site/resources"), "", List.of());
    // The pre-site copies of the pom: generated-site/markdown holds pages,
    // generated-site/resources/X files under X/.
    Document pom = parse(module.resolve("pom.xml"));
    NodeList executions = pom.getElementsByTagName("execution");
    for (int i = 0; i < executions.getLength(); i++) {
      Element ex = (Element) executions.item(i);
      if (!"pre-site".equals(text(ex, "phase")) || !"copy-resources".equals(text(ex, "goal"))) {
        continue;
      }
      String out = text(ex, "outputDirectory").replace("${project.build.directory}", "target");
      NodeList resources = ex.getElementsByTagName("resource");
      for (int r = 0; r < resources.getLength(); r++) {
        Element res = (Element) resources.item(r);
        Path dir =
            module.resolve(text(res, "directory").replace("${project.basedir}/", "")).normalize();
        List<String> includes = new ArrayList<>();
        NodeList inc = res.getElementsByTagName("include");
        for (int k = 0; k < inc.getLength(); k++) {
          includes.add(inc.item(k).getTextContent().trim());
        }
        if (out.equals("target/generated-site/markdown")) {
          addPages(dir, includes);
        } else if (out.startsWith("target/generated-site/resources")) {
          String prefix =
              out.substring("target/generated-site/resources".length()).replaceFirst("^/", "");
          addFiles(dir, prefix.isEmpty() ? "" : prefix + "/", includes);
        } else {
          throw new AssertionError("a pre-site copy this test does not know: " + out);
        }
      }
    }
  }

  @Test
  @DisplayName("the site has the pages of the documentation, each from a source that exists")
  void pagesExist() {
    assertThat(pages.keySet())
        .contains(
            "index.html",
            "quickstart.html",
            "concepts.html",
            "deploying.html",
            "job-contract.html",
            "configuration.html",
            "rest.html",
            "metrics.html",
            "evaluation.html");
    assertThat(pages.values()).allSatisfy(p -> assertThat(p).isRegularFile());
    assertThat(files).as("the evaluation plots").containsKey("img/itp04-jct-cdf.png");
  }

  @Test
  @DisplayName("every page in site.xml exists, and every page is in site.xml")
  void menuMatchesPages() throws Exception {
    Document site = parse(SiteSources.module().resolve("src/site/site.xml"));
    Set<String> hrefs = new LinkedHashSet<>();
    for (String tag : List.of("item", "bannerLeft", "bannerRight", "menu", "link")) {
      NodeList nodes = site.getElementsByTagName(tag);
      for (int i = 0; i < nodes.getLength(); i++) {
        String href = ((Element) nodes.item(i)).getAttribute("href");
        if (!href.isEmpty() && !SCHEME.matcher(href).find()) {
          hrefs.add(href);
        }
      }
    }
    assertThat(hrefs)
        .as("pages named in site.xml")
        .isNotEmpty()
        .allSatisfy(h -> assertThat(pages).as("pages of the site").containsKey(h));
    assertThat(pages.keySet())
        .as("pages missing from site.xml's menu")
        .allSatisfy(p -> assertThat(hrefs).contains(p));
  }

  @Test
  @DisplayName("every relative link and image of every page resolves to a page or file of the site")
  void linksResolve() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Map.Entry<String, Path> page : pages.entrySet()) {
      for (String target : links(Files.readString(page.getValue()))) {
        if (SCHEME.matcher(target).find() || target.startsWith("//")) {
          continue;
        }
        checked++;
        String path = target;
        String fragment = null;
        int hash = target.indexOf('#');
        if (hash >= 0) {
          path = target.substring(0, hash);
          fragment = target.substring(hash + 1);
        }
        String resolved = path.isEmpty() ? page.getKey() : resolve(page.getKey(), path);
        if (resolved == null || !(pages.containsKey(resolved) || files.containsKey(resolved))) {
          broken.add(
              page.getKey()
                  + ": "
                  + target
                  + (path.endsWith(".md") ? " (link the .html page)" : ""));
        } else if (fragment != null
            && pages.containsKey(resolved)
            && !anchors(Files.readString(pages.get(resolved))).contains(fragment)) {
          broken.add(
              page.getKey()
                  + ": "
                  + target
                  + " (no such heading; anchors: "
                  + anchors(Files.readString(pages.get(resolved)))
                  + ")");
        }
      }
    }
    assertThat(broken).as("links that lead nowhere on the site").isEmpty();
    assertThat(checked).as("relative links and images checked").isGreaterThan(20);
  }

  /** Link targets of a Markdown page, outside code blocks and code spans. */
  static List<String> links(String markdown) {
    StringBuilder prose = new StringBuilder();
    boolean fenced = false;
    for (String line : markdown.split("\n", -1)) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      if (!fenced && !line.startsWith("    ")) {
        prose.append(line.replaceAll("`[^`]*`", "")).append('\n');
      }
    }
    List<String> out = new ArrayList<>();
    for (Pattern p : List.of(MD_LINK, HTML_LINK)) {
      Matcher m = p.matcher(prose);
      while (m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /**
   * The anchors Doxia gives a page's headings: spaces become _, other punctuation .XX (hex), code
   * marks dropped.
   */
  static Set<String> anchors(String markdown) {
    Set<String> out = new LinkedHashSet<>();
    boolean fenced = false;
    for (String line : markdown.split("\n", -1)) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
      } else if (!fenced && line.matches("#{1,6} .*")) {
        String title = line.replaceFirst("#{1,6} ", "").replace("`", "").strip();
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < title.length(); i++) {
          char c = title.charAt(i);
          if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
            id.append(c);
          } else if (c == ' ') {
            id.append('_');
          } else {
            id.append('.').append(String.format("%02X", (int) c));
          }
        }
        out.add(id.toString());
      }
    }
    return out;
  }

  private static String resolve(String from, String relative) {
    Path base = Path.of(from).getParent();
    Path p = (base == null ? Path.of(relative) : base.resolve(relative)).normalize();
    return p.startsWith("..") ? null : p.toString().replace('\\', '/');
  }

  private static void addPages(Path dir, List<String> includes) throws IOException {
    for (Path f : list(dir, includes)) {
      String name = dir.relativize(f).toString().replace('\\', '/');
      if (name.endsWith(".md")) {
        Path previous = pages.put(name.substring(0, name.length() - 3) + ".html", f);
        assertThat(previous).as("two sources for the page of %s", f).isNull();
      }
    }
  }

  private static void addFiles(Path dir, String prefix, List<String> includes) throws IOException {
    for (Path f : list(dir, includes)) {
      files.put(prefix + dir.relativize(f).toString().replace('\\', '/'), f);
    }
  }

  private static List<Path> list(Path dir, List<String> includes) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<PathMatcher> matchers =
        includes.stream().map(i -> FileSystems.getDefault().getPathMatcher("glob:" + i)).toList();
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile)
          .filter(
              f ->
                  matchers.isEmpty()
                      || matchers.stream().anyMatch(m -> m.matches(dir.relativize(f))))
          .sorted()
          .toList();
    }
  }

  private static Document parse(Path xml) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(false);
    return f.newDocumentBuilder().parse(xml.toFile());
  }

  private static String text(Element parent, String tag) {
    NodeList n = parent.getElementsByTagName(tag);
    return n.getLength() == 0 ? "" : n.item(0).getTextContent().trim();
  }
}
